/*
 * A wait through an accessor in C (issue 10): aio_pending is incremented when a request
 * is queued, decremented when it completes, and read only through pending(); shutdown
 * waits with `while (pending())`. Not a counter. io_submitted has an accessor too, but
 * its calls only print: a counter.
 */
// hotscan-args: --min-confidence low
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_ulong aio_pending;
static atomic_ulong io_submitted;

static inline unsigned long pending(void)
{
    return atomic_load(&aio_pending);
}

static inline unsigned long submitted(void)
{
    return atomic_load(&io_submitted); // expect: atomic-seqcst-counter
}

void aio_queue(void)
{
    atomic_fetch_add(&aio_pending, 1);
    atomic_fetch_add(&io_submitted, 1); // expect: atomic-seqcst-counter
}

void aio_complete(void)
{
    atomic_fetch_sub(&aio_pending, 1);
}

void aio_shutdown(void)
{
    while (pending())
        sched_yield();
    printf("%lu submitted\n", submitted());
}
