/*
 * Members of a dependent type in a template (issue 10): `t->refs_` with `T *t` has no
 * declaration until the template is instantiated, and libclang shows no instantiated body.
 * The shape of an LRU list whose eviction skips entries still referenced: `Pop()` waits,
 * in a loop condition, for an entry's reference count to reach zero, and the lookup that
 * takes the reference drops it outside any template. Not a counter: the evicted entry is
 * freed on that value. The template's loop is matched to every atomic field named `refs_`.
 * Positive: a hit count that a template only reads as a value stays a counter.
 */
// hotscan-args: --min-confidence low
#include <atomic>
#include <cstddef>

template <class T>
struct Entry {
    T *next_ = nullptr;
    std::atomic<size_t> refs_{0};
    std::atomic<size_t> hits_{0};
};

template <class T>
struct Lru {
    T *head_ = nullptr;
    T *Pop()
    {
        T *t = head_;
        while (t && t->refs_)
            t = t->next_;
        return t;
    }
    size_t Hits(T *t) { return t->hits_ + 0; }
};

struct Page : Entry<Page> {
    int value;
};

static Lru<Page> lru;

int lookup(Page *p)
{
    p->refs_++;
    p->hits_++; // expect: atomic-seqcst-counter
    int v = p->value;
    p->refs_--;
    return v;
}

void evict_one() { delete lru.Pop(); }
size_t page_hits(Page *p) { return lru.Hits(p); }
