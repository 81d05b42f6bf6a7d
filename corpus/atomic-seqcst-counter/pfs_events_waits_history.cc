/*
 * MySQL bug 100432: performance schema's history ring buffers. The slot index comes from
 * `index = counter++ % size` and the slot is then written; nothing is published through
 * the counter, so every seq_cst operation on it (the increment, the reset on TRUNCATE, a
 * load for the table's row count) should be relaxed. PFS_atomic::add_u32 is a rule-data
 * wrapper over a seq_cst fetch_add. Negatives: pfs_lock's m_version_state, which is
 * compared-and-swapped (it IS the synchronization), and the plain bool `full` flag.
 */
// hotscan-args: --min-confidence low
#include <atomic>
#include <cstdint>

typedef uint32_t uint32;
typedef uint64_t ulonglong;
typedef unsigned int uint;

#define PFS_CACHE_LINE_SIZE 64

struct PFS_cacheline_atomic_uint32 {
    std::atomic<uint32> m_u32;
    char m_full_cache_line[PFS_CACHE_LINE_SIZE - sizeof(std::atomic<uint32>)];
    PFS_cacheline_atomic_uint32() : m_u32(0) {}
};

class PFS_atomic {
public:
    static inline uint32 add_u32(std::atomic<uint32> *ptr, uint32 value) { return ptr->fetch_add(value); }
    static inline uint32 load_u32(std::atomic<uint32> *ptr) { return ptr->load(); }
    static inline bool cas_u32(std::atomic<uint32> *ptr, uint32 *old_value, uint32 new_value)
    {
        return ptr->compare_exchange_strong(*old_value, new_value);
    }
};

struct PFS_events_waits {
    ulonglong m_event_id;
    ulonglong m_timer_start;
    ulonglong m_timer_end;
    const void *m_class;
};

struct pfs_lock {
    std::atomic<uint32> m_version_state;

    bool free_to_dirty(uint32 *copy)
    {
        uint32 old_val = m_version_state.load();
        if ((old_val & 3) != 0)
            return false;
        uint32 new_val = (old_val & ~3u) + 1;
        bool pass = PFS_atomic::cas_u32(&m_version_state, &old_val, new_val);
        if (pass)
            *copy = new_val;
        return pass;
    }

    void dirty_to_allocated(const uint32 *copy) { m_version_state.store((*copy & ~3u) + 2); }
};

static PFS_events_waits *events_waits_history_long_array;
static ulonglong events_waits_history_long_size;
static bool events_waits_history_long_full;
static PFS_cacheline_atomic_uint32 events_waits_history_long_index;
static std::atomic<uint32> events_waits_lost;

static void copy_events_waits(PFS_events_waits *dest, const PFS_events_waits *source)
{
    *dest = *source;
}

void insert_events_waits_history_long(PFS_events_waits *wait)
{
    if (events_waits_history_long_size == 0)
        return;

    uint index = events_waits_history_long_index.m_u32++; // expect: atomic-seqcst-counter

    index = index % events_waits_history_long_size;
    if (index == 0)
        events_waits_history_long_full = true;

    copy_events_waits(&events_waits_history_long_array[index], wait);
}

void note_lost_wait()
{
    PFS_atomic::add_u32(&events_waits_lost, 1); // expect: atomic-seqcst-counter
}

void reset_events_waits_history_long()
{
    events_waits_history_long_index.m_u32 = 0; // expect: atomic-seqcst-counter
    events_waits_history_long_full = false;
    events_waits_lost.store(0); // expect: atomic-seqcst-counter
}

ulonglong table_events_waits_history_long_rows()
{
    if (events_waits_history_long_full)
        return events_waits_history_long_size;
    return events_waits_history_long_index.m_u32.load() % events_waits_history_long_size; // expect: atomic-seqcst-counter
}

uint32 events_waits_lost_count()
{
    return PFS_atomic::load_u32(&events_waits_lost); // expect: atomic-seqcst-counter
}
