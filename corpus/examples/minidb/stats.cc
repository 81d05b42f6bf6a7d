// Statement statistics in the style of MySQL's performance schema (bug 100432): plain
// counters with the default seq_cst order, and a reference count that must keep it.
#include <atomic>
#include <cstdint>

struct table_share {
    std::atomic<uint64_t> rows_read{0};
    std::atomic<uint32_t> ref_count{0};
};

static table_share shares[16];
static std::atomic<uint64_t> statements_total{0};
static std::atomic<uint64_t> history_index{0};
static uint64_t history[256];

extern "C" void count_statement(unsigned table, uint64_t rows, uint64_t digest)
{
    statements_total++; // expect: atomic-seqcst-counter
    shares[table].rows_read.fetch_add(rows); // expect: atomic-seqcst-counter
    history[history_index.fetch_add(1) % 256] = digest; // expect: atomic-seqcst-counter
}

extern "C" uint64_t status_statements(void)
{
    return statements_total.load(); // expect: atomic-seqcst-counter
}

extern "C" void share_acquire(unsigned table)
{
    shares[table].ref_count.fetch_add(1);
}

extern "C" bool share_release(unsigned table)
{
    return shares[table].ref_count.fetch_sub(1) == 1;
}
