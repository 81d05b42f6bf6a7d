/*
 * Chained start-up resets, as redis's and haproxy's stats code writes them: `a = b = 0`
 * and `stats.x = stats.y = 0;`. Each assignment of the chain stores the constant the
 * innermost one does, so each is a reset like `x = 0`; before, the outer one's value (the
 * inner assignment) was taken for a computed value, and the counter was called a flag.
 * The outer store of an _Atomic chain gets a fix; the inner one's value is used (it is
 * what the outer stores), so it is reported without one.
 * Negatives: `conns_peak`/`conns_now` chain to a computed value; `shutdown_asap` is set
 * to 1 through a chain and to 0 elsewhere (two constants: a flag).
 */
// hotscan-args: --min-confidence low
#include <stdatomic.h>
#include <stdint.h>

struct server_stats {
    uint64_t numcommands;
    uint64_t numconnections;
};

static struct server_stats stats;
static _Atomic long long net_input_bytes, net_output_bytes;
static uint64_t conns_peak, conns_now;
static _Atomic int shutdown_asap, paused;

extern uint64_t count_clients(void);

void reset_server_stats(void)
{
    stats.numcommands = stats.numconnections = 0;
    net_input_bytes = net_output_bytes = 0; // expect: atomic-seqcst-counter, atomic-seqcst-counter
    conns_peak = conns_now = count_clients();
}

void call(long long in, long long out)
{
    __atomic_add_fetch(&stats.numcommands, 1, __ATOMIC_SEQ_CST); // expect: atomic-seqcst-counter
    net_input_bytes += in; // expect: atomic-seqcst-counter
    net_output_bytes += out; // expect: atomic-seqcst-counter
    __atomic_add_fetch(&conns_peak, 1, __ATOMIC_SEQ_CST);
}

void accept_conn(void)
{
    __atomic_fetch_add(&stats.numconnections, 1, __ATOMIC_SEQ_CST); // expect: atomic-seqcst-counter
    __atomic_fetch_add(&conns_now, 1, __ATOMIC_SEQ_CST);
    shutdown_asap++;
}

void prepare_shutdown(void)
{
    shutdown_asap = paused = 1;
}

void cancel_shutdown(void)
{
    shutdown_asap = 0;
}

uint64_t info_stats(void)
{
    return __atomic_load_n(&stats.numcommands, __ATOMIC_SEQ_CST) + // expect: atomic-seqcst-counter
           __atomic_load_n(&stats.numconnections, __ATOMIC_RELAXED) + (uint64_t)net_input_bytes; // expect: atomic-seqcst-counter
}
