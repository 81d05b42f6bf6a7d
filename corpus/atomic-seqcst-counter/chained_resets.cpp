/*
 * Chained resets of std::atomic counters (`a = b = 0`): b.operator=(0) returns the value it
 * stored, 0, so the outer assignment is a reset too, not a store of a computed value.
 * A rocksdb-style per-context statistics block reset in one statement, and two globals.
 * The outer store gets a fix (a relaxed store of the same inner expression); the inner
 * one's value is used by the outer, so it has none.
 * Negatives: `state_open`, set to 1 through a chain and to 0 elsewhere (a flag);
 * `last_seqno`, chained to a computed value.
 */
// hotscan-args: --min-confidence low
#include <atomic>
#include <cstdint>

struct PerfContext {
    std::atomic<uint64_t> block_reads{0};
    std::atomic<uint64_t> block_cache_hits{0};

    void Reset()
    {
        block_reads = block_cache_hits = 0; // expect: atomic-seqcst-counter, atomic-seqcst-counter
    }
    void OnRead(bool hit)
    {
        block_reads.fetch_add(1); // expect: atomic-seqcst-counter
        if (hit)
            block_cache_hits++; // expect: atomic-seqcst-counter
    }
};

static std::atomic<long> g_compactions, g_flushes;
static std::atomic<int> state_open, state_dirty;
static std::atomic<uint64_t> last_seqno, next_seqno;

extern uint64_t recover_seqno();

void ResetStats()
{
    g_compactions = g_flushes = 0; // expect: atomic-seqcst-counter, atomic-seqcst-counter
    last_seqno = next_seqno = recover_seqno();
}

void OnCompaction()
{
    ++g_compactions; // expect: atomic-seqcst-counter
    g_flushes.fetch_add(2); // expect: atomic-seqcst-counter
    state_open++;
    next_seqno++;
    last_seqno++;
}

void Open() { state_open = state_dirty = 1; }
void Close() { state_open = 0; }

long Report(PerfContext *ctx)
{
    return g_compactions.load() + (long)ctx->block_reads.load(); // expect: atomic-seqcst-counter, atomic-seqcst-counter
}
