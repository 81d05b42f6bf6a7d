/*
 * Offsets and block copies of std::atomic counters (issue 10): the per-frame counters of a
 * QUIC listener are found by offset for an aggregated view, and the block is cleared with
 * memset and copied out with memcpy. None of that is an escape. Negative: `conn_closed`,
 * bound to a reference handed to a metrics sink.
 */
// hotscan-args: --min-confidence low
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

struct Quic_counters {
    std::atomic<uint64_t> retry_sent;
    std::atomic<uint64_t> hdshk_fail;
    std::atomic<uint64_t> conn_closed;
};

static Quic_counters quic_ctrs;
static unsigned char snapshot[sizeof(Quic_counters)];

extern void metrics_sink(const char *name, std::atomic<uint64_t> &value);

void on_retry()
{
    quic_ctrs.retry_sent.fetch_add(1, std::memory_order_relaxed); // expect: atomic-seqcst-counter
}

void on_handshake_failure()
{
    quic_ctrs.hdshk_fail.fetch_add(1, std::memory_order_relaxed); // expect: atomic-seqcst-counter
}

void on_close()
{
    quic_ctrs.conn_closed++;
}

void quic_metrics()
{
    metrics_sink("closed", quic_ctrs.conn_closed);
}

size_t retry_offset()
{
    return reinterpret_cast<char *>(&quic_ctrs.retry_sent) - reinterpret_cast<char *>(&quic_ctrs);
}

size_t hdshk_offset()
{
    return offsetof(Quic_counters, hdshk_fail);
}

void quic_snapshot_and_clear()
{
    std::memcpy(snapshot, static_cast<void *>(&quic_ctrs), sizeof quic_ctrs);
    std::memset(static_cast<void *>(&quic_ctrs), 0, sizeof quic_ctrs);
}
