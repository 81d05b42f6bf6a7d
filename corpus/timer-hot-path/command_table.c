/*
 * A redis-shaped command dispatcher: call() runs every command through the table's
 * function pointer (c->cmd->proc), so each command stored in the table is hot. getCommand
 * reads the clock through a global function pointer (getMonotonicUs), initialized to a
 * clock_gettime wrapper: flagged at the call. Negatives: a command in no table, a
 * function stored nowhere, a slot whose stored functions read no clock, and a slot that is
 * never called (its target reads the clock but nothing calls through it). A callback
 * stored only by startup code (server.propagate, set in initServer) is still reached when
 * hot code calls through its slot: flagged.
 */
// hotscan-args: --hot call
#include <stddef.h>
#include <string.h>
#include <time.h>

struct client;
typedef void redisCommandProc(struct client *c);

struct redisCommand {
    const char *name;
    redisCommandProc *proc;
    int arity;
    long long microseconds, calls;
};

struct client {
    int argc;
    char **argv;
    struct redisCommand *cmd;
    long long last_get_us;
    long long lastinteraction;
};

static long long monotonic_clock_gettime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static long long wall_clock_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* monotonic.c: the clock source is chosen once, at startup. */
long long (*getMonotonicUs)(void) = monotonic_clock_gettime;

/* A slot for a debugging clock: assigned, never called through. */
long long (*debugClockUs)(void) = NULL;

void monotonicInit(void)
{
    debugClockUs = &wall_clock_us;
}

void addReplyBulk(struct client *c, const char *s);

void getCommand(struct client *c)
{
    c->last_get_us = getMonotonicUs(); // expect: timer-hot-path
    addReplyBulk(c, c->argv[1]);
}

void setCommand(struct client *c)
{
    addReplyBulk(c, c->argv[2]);
}

/* A command in no table: nothing dispatches to it. */
void debugSleepCommand(struct client *c)
{
    c->lastinteraction = time(NULL);
}

/* A helper stored nowhere and called by nobody. */
long long unusedTimestamp(void)
{
    return (long long)time(NULL);
}

struct redisCommand redisCommandTable[] = {
    {"get", getCommand, 2, 0, 0},
    {.name = "set", .proc = setCommand, .arity = -3},
};

/* Keyspace notifications: the stored hooks read no clock. */
typedef void notifyHook(struct client *c, const char *event);
static void notifyNone(struct client *c, const char *event)
{
    (void)c;
    (void)event;
}
static void notifyCount(struct client *c, const char *event)
{
    c->argc += (int)strlen(event);
}
static notifyHook *notifyHooks[] = {notifyNone, notifyCount};

struct redisCommand *lookupCommand(const char *name)
{
    for (size_t i = 0; i < sizeof redisCommandTable / sizeof redisCommandTable[0]; i++)
        if (strcmp(redisCommandTable[i].name, name) == 0)
            return &redisCommandTable[i];
    return NULL;
}

struct redisServer {
    void (*propagate)(struct client *c);
    long long stat_numcommands;
} server;

static void propagateNow(struct client *c)
{
    c->lastinteraction = time(NULL); // expect: timer-hot-path
}

void initServer(void)
{
    server.propagate = propagateNow;
}

void call(struct client *c, int flags)
{
    c->cmd->proc(c);
    if (server.propagate)
        server.propagate(c);
    notifyHooks[flags & 1](c, c->cmd->name);
    c->cmd->calls++;
}
