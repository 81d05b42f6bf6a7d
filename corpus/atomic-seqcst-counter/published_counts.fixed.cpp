/*
 * A count that bounds a reader's scan (issue 10). events_history_index hands out ring
 * slots (`index = events_history_index++`, the slot filled after it is reserved), and the
 * table reader scans up to `index % size`: the count published nothing, so it is a counter
 * (MySQL's table_events_waits_history_long::rnd_next). Negative: n_filled is incremented
 * after its slot is filled, and the reader scans `i < n`: the increment publishes the slots.
 */
// hotscan-args: --min-confidence low
#include <atomic>
#include <cstdint>

struct Event {
    int kind;
};

static Event history[512];
static std::atomic<uint32_t> events_history_index;
static Event published[512];
static std::atomic<uint32_t> n_filled;

extern void make_row(const Event *e);

void insert_event(const Event *e)
{
    uint32_t index = events_history_index.fetch_add(1, std::memory_order_relaxed) % 512; // expect: atomic-seqcst-counter
    history[index] = *e;
}

void rnd_next()
{
    uint32_t limit = events_history_index.load(std::memory_order_relaxed) % 512; // expect: atomic-seqcst-counter
    for (uint32_t i = 0; i < limit; i++)
        make_row(&history[i]);
}

void publish_event(const Event *e)
{
    uint32_t slot = n_filled.load(std::memory_order_relaxed);
    published[slot % 512] = *e;
    n_filled++;
}

void read_published()
{
    uint32_t n = n_filled.load();
    for (uint32_t i = 0; i < n; i++)
        make_row(&published[i % 512]);
}
