/*
 * The request path: a fresh mstime() per command, and a MONITOR line stamped with
 * gettimeofday(). The program keeps the wall clock cached (server.c), so both are the reads
 * maintainers replace with it: the printed one is not lowered as output. The stamp of the
 * last save is compared, not read.
 */
#include <stdio.h>
#include <sys/time.h>

#include "server.h"

static void feedMonitors(struct client *c)
{
    struct timeval tv;
    gettimeofday(&tv, NULL); // expect: timer-hot-path
    snprintf(c->buf, sizeof c->buf, "%ld.%06ld", (long)tv.tv_sec, (long)tv.tv_usec);
}

void processCommand(struct client *c)
{
    enterExecutionUnit(1, 0);
    c->lastinteraction = mstime(); // expect: timer-hot-path
    server.stat_numcommands++;
    if (server.mstime / 1000 - server.lastsave > 3600)
        c->buf[0] = '!';
    feedMonitors(c);
    exitExecutionUnit();
}
