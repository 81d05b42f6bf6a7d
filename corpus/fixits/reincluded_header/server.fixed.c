/*
 * Counters declared in an include-guarded header that the TU enters twice (it includes
 * itself back through a module header). `requests` gets its relaxed fix; `in_queue` is
 * waited on in a DEBUG_WAITS arm that this configuration compiles out, so it is reported
 * without a fix.
 */
#include "stats.h"

struct server_stats stats;
atomic_long in_queue;

void handle_request(void)
{
    atomic_fetch_add_explicit(&stats.requests, 1, memory_order_relaxed);   // expect: atomic-seqcst-counter
    atomic_fetch_add(&in_queue, 1);   // expect: atomic-seqcst-counter
}

void finish_request(void)
{
    atomic_fetch_sub(&in_queue, 1);   // expect: atomic-seqcst-counter
}

long report(void)
{
    return atomic_load_explicit(&stats.requests, memory_order_relaxed);    // expect: atomic-seqcst-counter
}
