/*
 * server.h - the cached_clock case's shared state: a redis-shaped server whose cron callback
 * refreshes a cached time, through a helper that takes the reading as a parameter.
 */
#ifndef SERVER_H
#define SERVER_H

#include <time.h>

struct server {
    long long ustime, mstime;
    time_t lastsave;
    long long stat_numcommands;
    int execution_nesting;
};
extern struct server server;

struct client {
    long long lastinteraction;
    char buf[64];
};

long long ustime(void);
long long mstime(void);
void updateCachedTime(void);
void enterExecutionUnit(int update_cached_time, long long us);
void exitExecutionUnit(void);
void processCommand(struct client *c);

#endif
