/*
 * std::atomic_ref (C++20) over plain fields: the statistics struct stays a plain
 * aggregate (it is memcpy'd into a report), and the hot path bumps its fields through a
 * temporary or a named atomic_ref, seq_cst by default. The fields are counters: every
 * seq_cst operation made through an atomic_ref on them is flagged.
 * Negative: Page_header::fix_count, a buffer-fix count reached through atomic_ref whose
 * decrement result decides when the page becomes evictable (a refcount).
 */
// hotscan-args: --min-confidence low
#include <atomic>
#include <cstdint>

struct Io_stats {
    uint64_t reads;
    uint64_t writes;
    uint64_t read_bytes;
};

struct Page_header {
    uint32_t fix_count;
    uint32_t space_id;
};

extern void page_make_evictable(Page_header *page);

static Io_stats io_stats;

void io_read_done(uint64_t bytes)
{
    std::atomic_ref<uint64_t>(io_stats.reads).fetch_add(1); // expect: atomic-seqcst-counter
    std::atomic_ref<uint64_t> read_bytes(io_stats.read_bytes);
    read_bytes += bytes; // expect: atomic-seqcst-counter
}

void io_write_done()
{
    std::atomic_ref<uint64_t> writes(io_stats.writes);
    writes++; // expect: atomic-seqcst-counter
}

uint64_t io_reads_so_far()
{
    return std::atomic_ref<uint64_t>(io_stats.reads).load(); // expect: atomic-seqcst-counter
}

void page_fix(Page_header *page)
{
    std::atomic_ref<uint32_t>(page->fix_count).fetch_add(1);
}

void page_unfix(Page_header *page)
{
    if (std::atomic_ref<uint32_t>(page->fix_count).fetch_sub(1) == 1)
        page_make_evictable(page);
}
