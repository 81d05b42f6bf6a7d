/*
 * Tests through accessors (issue 10). fil_space_t::n_pending_ios is added to and
 * subtracted from in methods and read only through pending_io(); the code that frees the
 * tablespace waits with `while (space->pending_io()) sleep()`: a wait, so no operation on
 * it may be relaxed. Likewise a refcount tested through a getter (`get_refcount() == 0`
 * decides the purge) and a count that bounds a reader's scan of slots another thread
 * filled (`i < log->size()`). Positive: a statistic whose getter only feeds a report.
 */
// hotscan-args: --min-confidence low
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <unistd.h>

struct fil_space_t {
    std::atomic<uint32_t> n_pending_ios{0};
    std::atomic<uint64_t> n_reads{0};
    void acquire_for_io() { n_pending_ios++; }
    void release_for_io() { n_pending_ios--; }
    bool pending_io() const { return n_pending_ios; }
    void count_read() { n_reads.fetch_add(1, std::memory_order_relaxed); } // expect: atomic-seqcst-counter
    uint64_t reads() const { return n_reads.load(std::memory_order_relaxed); } // expect: atomic-seqcst-counter
};

void fil_space_free_low(fil_space_t *space)
{
    while (space->pending_io())
        usleep(100);
    free(space);
}

extern void report(const char *name, uint64_t value);

void fil_space_report(const fil_space_t *space)
{
    report("reads", space->reads());
}

class Cached_object {
public:
    void pin() { m_ref.fetch_add(1); }
    void unpin() { m_ref.fetch_sub(1); }
    uint32_t get_refcount() const { return m_ref.load(); }

private:
    std::atomic<uint32_t> m_ref{0};
};

extern void purge(Cached_object *obj);

void maybe_purge(Cached_object *obj)
{
    if (obj->get_refcount() == 0)
        purge(obj);
}

struct Event_log {
    int slot[256];
    std::atomic<uint32_t> m_count{0};
    void append(int v)
    {
        slot[m_count.load(std::memory_order_relaxed) & 255] = v;
        m_count++;
    }
    uint32_t size() const { return m_count.load(); }
};

extern void use(int v);

void scan_log(const Event_log *log)
{
    for (uint32_t i = 0; i < log->size(); i++)
        use(log->slot[i]);
}
