/*
 * Object paths (issue 10, MySQL bug 100432). PFS_cacheline_atomic_uint32 pads one
 * std::atomic to a cache line and is used for many unrelated globals. Each global's m_u32
 * is its own variable: the history index (`events_waits_history_long_index.m_u32++`, its
 * value used as a ring-buffer slot) is a counter, though another global's m_u32 is a flag
 * stored with 1 and 0 and waited on. add_slot() is a wrapper hotscan is not told about:
 * its body only adds to its pointer parameter, so its call is an add on the object passed.
 * Negatives: `digest_monotonic_index.m_u32` (a flag), and `reader_slots.m_u32`, which a
 * function reaching any Reader_count through a pointer waits on, so no instance of that
 * field is a counter.
 */
// hotscan-args: --min-confidence low
#include <atomic>
#include <cstdint>

typedef uint32_t uint32;

struct PFS_cacheline_atomic_uint32 {
    std::atomic<uint32> m_u32;
    char m_full_cache_line[64 - sizeof(std::atomic<uint32>)];
    PFS_cacheline_atomic_uint32() : m_u32(0) {}
};

struct Reader_count {
    std::atomic<uint32> m_u32;
};

struct PFS_events_waits {
    unsigned long long m_event_id;
};

static PFS_events_waits events_waits_history_long_array[1024];
static PFS_cacheline_atomic_uint32 events_waits_history_long_index;
static PFS_cacheline_atomic_uint32 digest_monotonic_index;
static PFS_cacheline_atomic_uint32 digest_lost;
static Reader_count reader_slots;

static inline uint32 add_slot(std::atomic<uint32> *ptr, uint32 n)
{
    return ptr->fetch_add(n);
}

void insert_events_waits_history_long(const PFS_events_waits *wait)
{
    uint index = events_waits_history_long_index.m_u32.fetch_add(1, std::memory_order_relaxed); // expect: atomic-seqcst-counter
    events_waits_history_long_array[index % 1024] = *wait;
}

void reset_events_waits_history_long()
{
    events_waits_history_long_index.m_u32.store(0, std::memory_order_relaxed); // expect: atomic-seqcst-counter
}

uint32 events_waits_history_long_rows()
{
    return events_waits_history_long_index.m_u32.load(std::memory_order_relaxed) % 1024; // expect: atomic-seqcst-counter
}

void digest_lost_one()
{
    add_slot(&digest_lost.m_u32, 1); // expect: atomic-seqcst-counter
}

void digest_reset_start()
{
    digest_monotonic_index.m_u32.store(1);
}

void digest_reset_done()
{
    digest_monotonic_index.m_u32.store(0);
}

void digest_wait_reset()
{
    while (digest_monotonic_index.m_u32.load() != 0) {
    }
}

void reader_enter()
{
    reader_slots.m_u32++;
}

void wait_readers(Reader_count *c)
{
    while (c->m_u32.load() > 0) {
    }
}
