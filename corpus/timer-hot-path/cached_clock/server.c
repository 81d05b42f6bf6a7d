/*
 * The cron: nothing in the program calls serverCron (it is registered by address), so it runs
 * over and over, and updateCachedTime, which it calls every time, refreshes the cached time:
 * server.ustime from the parameter updateCachedTimeWithUs is given, server.mstime computed
 * from it. enterExecutionUnit refreshes it for each command (a snapshot the command's code
 * reads): the cache's source, not a read to replace with it. saveDb's stamp comes after writing a file: an event's time, no cache. The start-up
 * stamp is made once.
 */
// hotscan-args: --hot processCommand
#include <stdio.h>
#include <sys/time.h>

#include "server.h"

struct server server;

long long ustime(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (long long)tv.tv_sec * 1000000 + tv.tv_usec;
}

long long mstime(void)
{
    return ustime() / 1000;
}

static void updateCachedTimeWithUs(int daylight, long long us)
{
    server.ustime = us;
    server.mstime = server.ustime / 1000;
    (void)daylight;
}

void updateCachedTime(void)
{
    long long us = ustime();
    updateCachedTimeWithUs(0, us);
}

/* Entering a command takes a fresh snapshot for it, unless one is running already: the
 * cache's source, on the hot path on purpose (low, "refresh"; not shown by default). */
void enterExecutionUnit(int update_cached_time, long long us)
{
    if (server.execution_nesting++ == 0 && update_cached_time) {
        if (us == 0)
            us = ustime();
        updateCachedTimeWithUs(0, us);
    }
}

void exitExecutionUnit(void)
{
    --server.execution_nesting;
}

static void saveDb(void)
{
    FILE *f = fopen("dump.rdb", "w");
    if (f)
        fclose(f);
    server.lastsave = time(NULL);
}

static int serverCron(void)
{
    updateCachedTime();
    saveDb();
    return 100;
}

int (*registered_cron)(void) = serverCron;

int main(void)
{
    server.lastsave = time(NULL);
    return 0;
}
