/*
 * Statistics counters updated atomically in some places and with a plain `++`/`+=` in
 * others, as redis's `server.stat_numcommands++` beside `atomicIncr(server.stat_numcommands,
 * 1)` and haproxy's plain counter updates beside HA_ATOMIC_INC(). Each plain update is a
 * lost-update race (atomic-mixed-access, no fix). The atomic operations are still counter
 * operations: the seq_cst ones are reported by atomic-seqcst-counter, without a fix while a
 * plain update races with them (before, the plain update made the variable "written with
 * computed values", no counter, and nothing was reported).
 * A plain update in the else arm of a statement macro whose if arm updates atomically
 * (`if (threaded) ... else (x)++`) is a single-threaded fallback: low, and the atomic add
 * keeps its fix.
 * Negatives: `stat_keyspace_hits` is only ever updated plainly; `sum.bytes` is a local
 * copy's field; `c11_hits++` on an _Atomic object is an atomic add itself.
 */
// hotscan-args: --min-confidence low
#include <stdatomic.h>
#include <stdint.h>

#define atomicIncr(var, count) __atomic_add_fetch(&var, (count), __ATOMIC_RELAXED)
#define HA_ATOMIC_INC(p) __atomic_add_fetch((p), 1, __ATOMIC_SEQ_CST)
#define STAT_INC(x)                                               \
    do {                                                          \
        if (threaded)                                             \
            __atomic_add_fetch(&(x), 1, __ATOMIC_SEQ_CST);        \
        else                                                      \
            (x)++;                                                \
    } while (0)

struct redisServer {
    long long stat_numcommands;
    long long stat_net_input_bytes;
    long long stat_keyspace_hits;
};

struct redisServer server;

struct fe_counters {
    uint64_t cum_req;
    uint64_t failed_req;
};

struct proxy {
    struct fe_counters fe_counters;
};

struct totals {
    uint64_t bytes;
};

extern int threaded;
static unsigned int conns;
static _Atomic long c11_hits;

void call(void)
{
    server.stat_numcommands++; // expect: atomic-mixed-access
    server.stat_keyspace_hits++;
}

void io_thread_read(long long n)
{
    atomicIncr(server.stat_numcommands, 1);
    atomicIncr(server.stat_net_input_bytes, n);
}

void process_input(long long n)
{
    server.stat_net_input_bytes += n; // expect: atomic-mixed-access
}

void stream_new(struct proxy *px)
{
    HA_ATOMIC_INC(&px->fe_counters.cum_req); // expect: atomic-seqcst-counter
    px->fe_counters.failed_req++;
}

void stream_abort(struct proxy *px)
{
    px->fe_counters.cum_req--; // expect: atomic-mixed-access
}

void conn_accept(void)
{
    STAT_INC(conns); // expect: atomic-seqcst-counter, atomic-mixed-access
}

uint64_t totals_add(struct totals *t, uint64_t n)
{
    struct totals sum = {0};
    __atomic_add_fetch(&t->bytes, n, __ATOMIC_RELAXED);
    sum.bytes += __atomic_load_n(&t->bytes, __ATOMIC_RELAXED);
    return sum.bytes;
}

long hits_bump(void)
{
    c11_hits++; // expect: atomic-seqcst-counter
    atomic_fetch_add_explicit(&c11_hits, 1, memory_order_relaxed);
    return atomic_load_explicit(&c11_hits, memory_order_relaxed);
}

long long info_stats(struct proxy *px)
{
    return server.stat_numcommands + server.stat_keyspace_hits + (long long)px->fe_counters.cum_req +
           __atomic_load_n(&conns, __ATOMIC_RELAXED);
}
