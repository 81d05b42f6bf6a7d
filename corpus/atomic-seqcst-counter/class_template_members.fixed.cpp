/*
 * Members of a class template's instantiations (issue 10, found on rocksdb): the walk visits
 * the template once, as written, so its own `pins_ != 0` tests the template's field, while
 * `p->pins_++` on a `Page : Pin<Page>` names the instantiation's field and `p->pinned()` the
 * instantiation's method. Both are the template's member: one variable, one verdict.
 * Negative: a pin count that eviction waits on through the template's accessor before it
 * frees the page (`while (p->pinned())`), adds and drops outside the template and inside it.
 * Positive: a hit count taken inside and outside the template and only ever read as a
 * value; a static data member counting instances. An explicit specialization is a class of
 * its own: its `pins_` is only ever added to, so it is a counter, whatever the primary
 * template's is.
 */
// hotscan-args: --min-confidence low
#include <atomic>
#include <cstddef>

template <class T>
struct Pin {
    std::atomic<int> pins_{0};
    std::atomic<size_t> hits_{0};
    static std::atomic<long> created_;
    bool pinned() const { return pins_ != 0; }
    void pin() { pins_++; }
    void touch() { hits_.fetch_add(1, std::memory_order_relaxed); } // expect: atomic-seqcst-counter
    size_t hits() const { return hits_.load(std::memory_order_relaxed); }
};

template <class T>
std::atomic<long> Pin<T>::created_{0};

template <>
struct Pin<int> {
    std::atomic<int> pins_{0};
    void pin() { pins_.fetch_add(1, std::memory_order_relaxed); } // expect: atomic-seqcst-counter
};

struct Page : Pin<Page> {
    int value;
};

Page *make_page()
{
    (Pin<Page>::created_).fetch_add(1, std::memory_order_relaxed); // expect: atomic-seqcst-counter
    return new Page();
}

int read_page(Page *p)
{
    p->pin();
    p->hits_.fetch_add(1, std::memory_order_relaxed); // expect: atomic-seqcst-counter
    int v = p->value;
    p->pins_--;
    return v;
}

void evict(Page *p)
{
    while (p->pinned()) {
    }
    delete p;
}

size_t page_hits(Page *p) { return p->hits(); }

void pin_int(Pin<int> *q) { q->pin(); }
