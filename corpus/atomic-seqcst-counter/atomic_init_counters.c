/*
 * C11 counters set up with atomic_init() in a module's init function, then bumped with
 * seq_cst atomic_fetch_add on the request path. atomic_init is a (non-atomic) store of a
 * constant, the same as a reset, so it does not stop the variables from being counters:
 * the seq_cst adds and loads are flagged, the atomic_init lines are not (they have no
 * memory order to relax).
 * Negative: open_conns, initialized and incremented the same way, but also resynced by
 * storing a computed value (the count of open sockets): not only a counter.
 */
// hotscan-args: --min-confidence low
#include <stdatomic.h>

struct listener_stats {
    atomic_ulong accepted;
    atomic_ulong rejected;
};

static struct listener_stats lstats;
static atomic_ulong open_conns;

extern unsigned long count_open_sockets(void);

void listener_stats_init(void)
{
    atomic_init(&lstats.accepted, 0);
    atomic_init(&lstats.rejected, 0);
    atomic_init(&open_conns, 0);
}

void on_accept(int ok)
{
    if (ok)
        atomic_fetch_add(&lstats.accepted, 1); // expect: atomic-seqcst-counter
    else
        atomic_fetch_add(&lstats.rejected, 1); // expect: atomic-seqcst-counter
    atomic_fetch_add(&open_conns, 1);
}

unsigned long accepted_total(void)
{
    return atomic_load(&lstats.accepted); // expect: atomic-seqcst-counter
}

void resync_open_conns(void)
{
    atomic_store(&open_conns, count_open_sockets());
}
