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

/* server.c and trx.c each have a static checksum(): a profile with source lines tells them
 * apart (hotscan scan --profile). */
static unsigned last_checksum;

static unsigned checksum(const unsigned char *p, size_t n)
{
    unsigned h = 0;
    for (size_t i = 0; i < n; i++)
        h = h * 31 + p[i];
    return h;
}

int dispatch_command(struct session *s, int nrows)
{
    s->start_utime = now_us();
    trx_start_low(&s->trx);
    int found = row_search(s, nrows);
    last_checksum = checksum((const unsigned char *)s, sizeof *s);
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
