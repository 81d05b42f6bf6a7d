// hotscan-args: --hot dispatch_command
/* The statement loop: dispatch_command is the hot root named on the command line. Its two
 * now_us() calls time the statement (start and elapsed): deliberate instrumentation, the
 * statement's start time that trx_start_low should reuse; low, hidden by default. */
#include <poll.h>
#include <stddef.h>
#include "minidb.h"

uint64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

int dispatch_command(struct session *s, int nrows)
{
    s->start_utime = now_us();
    trx_start_low(&s->trx);
    int found = row_search(s, nrows);
    uint64_t elapsed = now_us() - s->start_utime;
    if (elapsed > 1000000)
        log_slow_query(s, elapsed);
    return found;
}

/* The event loop waits in poll(): its clock read is paced by the wait, not hot. */
void serve(struct session *s)
{
    struct pollfd p = {.fd = s->fd, .events = POLLIN};
    for (;;) {
        time_t idle_since = time(NULL);
        if (poll(&p, 1, 1000) <= 0)
            continue;
        (void)idle_since;
        dispatch_command(s, 10);
    }
}
