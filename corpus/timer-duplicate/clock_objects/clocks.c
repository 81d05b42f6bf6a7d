/*
 * A clock library whose clock is chosen by an argument, the shape of Open vSwitch's
 * lib/timeval.c: clk_msec() -> clk_msec__(&mono) -> clk_timespec__(c, &ts) ->
 * clk_read(c->id, ts) -> clock_gettime(id, ts). The clock id and the clock object only say
 * which clock is read, so each call of clk_msec() elsewhere reads a clock (see
 * revalidate.c). Negatives here: the library's own reads, each judged where it is called;
 * clk_msec__(&mono) and clk_msec__(&wall) in one function read two different clocks;
 * deadline_after(ms) mixes its argument into the reading, so it is no wrapper.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "clocks.h"

struct clk {
    clockid_t id;
    bool slow;              /* time is stopped or warped: read through the cache */
    struct timespec cache, warp;
};

static struct clk mono, wall;

void clk_read(clockid_t id, struct timespec *ts)
{
    if (clock_gettime(id, ts) == -1)
        abort();
}

static void clk_init(struct clk *c, clockid_t id)
{
    c->id = id;
    c->slow = false;
    clk_read(c->id, &c->cache);
}

void clk_setup(void)
{
    clk_init(&mono, CLOCK_MONOTONIC);
    clk_init(&wall, CLOCK_REALTIME);
}

static void clk_timespec__(struct clk *c, struct timespec *ts)
{
    if (!c->slow) {
        clk_read(c->id, ts);
    } else {
        struct timespec now = c->cache;
        ts->tv_sec = now.tv_sec + c->warp.tv_sec;
        ts->tv_nsec = now.tv_nsec + c->warp.tv_nsec;
    }
}

void clk_timespec(struct timespec *ts)
{
    clk_timespec__(&mono, ts);
}

static long long clk_msec__(struct clk *c)
{
    struct timespec ts;
    clk_timespec__(c, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

long long clk_msec(void)
{
    return clk_msec__(&mono);
}

long long clk_wall_msec(void)
{
    return clk_msec__(&wall);
}

long long clk_skew_msec(void)
{
    return clk_msec__(&wall) - clk_msec__(&mono);
}

long long deadline_after(long long ms)
{
    return clk_msec() + ms; // expect: timer-hot-path
}
