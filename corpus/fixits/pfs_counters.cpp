// Fix-its for std::atomic counters in the forms performance_schema-style code uses
// (MySQL bug 100432): member calls, operators whose value is discarded, postfix and
// prefix operators whose value is used, explicit seq_cst orders and implicit loads.
// The refcount is not a counter and must keep its order.
// hotscan-args: --min-confidence low
#include <atomic>
#include <cstdint>

struct PFS_table_stat {
    std::atomic<uint64_t> m_fetch_count{0};
    std::atomic<uint64_t> m_insert_count{0};
    std::atomic<uint32_t> m_refs{0};
};

static PFS_table_stat table_stats[64];
static std::atomic<uint64_t> events_waits_history_long_index{0};
static uint64_t history_long[1024];

void aggregate_fetch(unsigned t)
{
    table_stats[t].m_fetch_count.fetch_add(1); // expect: atomic-seqcst-counter
    table_stats[t].m_insert_count++; // expect: atomic-seqcst-counter
}

void insert_events_waits_history_long(uint64_t event)
{
    uint64_t index = events_waits_history_long_index++ % 1024; // expect: atomic-seqcst-counter
    history_long[index] = event;
}

uint64_t next_ticket()
{
    return ++events_waits_history_long_index; // expect: atomic-seqcst-counter
}

uint64_t report_fetches(unsigned t)
{
    uint64_t inserts = table_stats[t].m_insert_count; // expect: atomic-seqcst-counter
    return table_stats[t].m_fetch_count.load(std::memory_order_seq_cst) + inserts; // expect: atomic-seqcst-counter
}

void reset_stats(unsigned t)
{
    table_stats[t].m_fetch_count.store(0); // expect: atomic-seqcst-counter
}

bool unpin(unsigned t)
{
    return table_stats[t].m_refs.fetch_sub(1) == 1;
}

void pin(unsigned t)
{
    table_stats[t].m_refs.fetch_add(1);
}
