/*
 * Reference counts, every one seq_cst and every one negative: the result of the
 * decrement decides who frees the object (`fetch_sub(1) == 1`, `if (--refs == 0)`), or is
 * returned to the caller who will decide (COM-style `return --m_refs;`). The last owner
 * must see every write the others made before their release, which a relaxed decrement
 * would not give it. The increments look like a counter's; one decrement per variable is
 * enough to show the variable is not one.
 */
// hotscan-args: --min-confidence low
#include <atomic>
#include <cstdint>

class Buffer {
public:
    void add_ref() { m_refs.fetch_add(1); }
    void release()
    {
        if (m_refs.fetch_sub(1) == 1)
            delete this;
    }

private:
    ~Buffer() = default;
    std::atomic<uint32_t> m_refs{1};
};

class IUnknownLike {
public:
    uint32_t AddRef() { return ++m_refs; }
    uint32_t Release() { return --m_refs; }

private:
    std::atomic<uint32_t> m_refs{1};
};

struct trx_t {
    std::atomic<int32_t> n_ref;
};

extern void trx_free(trx_t *trx);

void trx_reference(trx_t *trx)
{
    trx->n_ref++;
}

void trx_release_reference(trx_t *trx)
{
    if (--trx->n_ref == 0)
        trx_free(trx);
}

struct Page {
    std::atomic<uint32_t> buf_fix_count;
    bool evictable;
};

void page_unfix(Page *page)
{
    bool last = page->buf_fix_count.fetch_sub(1) - 1 == 0;
    page->evictable = last;
}

void page_fix(Page *page)
{
    page->buf_fix_count += 1;
}
