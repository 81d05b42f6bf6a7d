/*
 * Operations through a pointer to an atomic held in a field (found reviewing rocksdb's
 * test env, issue 10): `*c += 1` with `std::atomic<int> *c` acts on whatever c points to.
 * Here that is an object's reference count, whose last decrement frees the object; hotscan
 * does not follow where a pointer field points, so the operations through it are reported
 * low with no fix-it (a relaxed add could be on a count that decides freeing). A plain
 * global statistic beside it keeps its finding and its fix.
 */
// hotscan-args: --min-confidence low
#include <atomic>

struct Obj {
    std::atomic<int> refs{1};
    int data;
};

struct RefBumper {
    std::atomic<int> *c;
    explicit RefBumper(std::atomic<int> *p) : c(p) {}
    void bump() { *c += 1; } // expect: atomic-seqcst-counter
};

std::atomic<long> objects_made{0};

void release(Obj *obj)
{
    if (--obj->refs == 0)
        delete obj;
}

Obj *share(Obj *obj)
{
    RefBumper b(&obj->refs);
    b.bump();
    objects_made.fetch_add(1, std::memory_order_relaxed); // expect: atomic-seqcst-counter
    return obj;
}
