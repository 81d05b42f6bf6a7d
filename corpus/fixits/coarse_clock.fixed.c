// hotscan-args: --hot conn_touch --fix-level aggressive
/* With --fix-level aggressive, a CLOCK_MONOTONIC or CLOCK_REALTIME read on a hot path is
 * offered the Linux coarse clock (tick resolution, a memory load). A CPU-time clock has no
 * coarse twin and gets no fix. */
#include <time.h>

struct conn { struct timespec last_io; struct timespec cpu; };

void conn_touch(struct conn *c)
{
    clock_gettime(CLOCK_MONOTONIC_COARSE, &c->last_io); // expect: timer-hot-path
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c->cpu); // expect: timer-hot-path
}
