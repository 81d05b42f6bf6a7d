/* Fix-its for C counters: the C11 generic functions, operators on _Atomic objects, GNU
 * __atomic builtins with an explicit order and legacy __sync builtins. The flag is
 * published with a non-constant store and must keep its order. */
#include <stdatomic.h>
#include <stdbool.h>

static atomic_ulong queries_total;
static _Atomic long slow_queries;
static long bytes_sent;
static unsigned long rows_read;
static atomic_bool shutdown_requested;

void query_done(bool slow, long bytes, unsigned long rows)
{
    atomic_fetch_add_explicit(&queries_total, 1, memory_order_relaxed); // expect: atomic-seqcst-counter
    if (slow)
        atomic_fetch_add_explicit(&slow_queries, 1, memory_order_relaxed); // expect: atomic-seqcst-counter
    __atomic_fetch_add(&bytes_sent, bytes, __ATOMIC_RELAXED); // expect: atomic-seqcst-counter
    __atomic_fetch_add(&rows_read, rows, __ATOMIC_RELAXED); // expect: atomic-seqcst-counter
}

long status_slow_queries(void)
{
    return atomic_load_explicit(&slow_queries, memory_order_relaxed); // expect: atomic-seqcst-counter
}

void request_shutdown(bool now)
{
    atomic_store(&shutdown_requested, now);
}

bool shutting_down(void)
{
    return atomic_load(&shutdown_requested);
}
