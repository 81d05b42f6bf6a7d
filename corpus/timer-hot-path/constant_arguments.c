// hotscan-args: --hot handle_command
/*
 * An arm decided by a parameter is dead when every hot caller passes a constant that rules
 * it out: `fresh ? time(NULL) : cached` called as stamp(0) never reads the clock on the
 * hot path (redis' AOF timestamp annotation). The same holds for a call in such an arm
 * that leads to the read (`if (refresh) return read_clock();` called with 0). Low, hidden
 * by default. The same function called with 1 from a hot caller is a clock wrapper's call,
 * flagged where it is made; called with a variable, its read is flagged in it.
 */
#include <time.h>

static time_t cached_now;

static time_t stamp_cached(int fresh)
{
    return fresh ? time(NULL) : cached_now;
}

static time_t stamp_fresh(int fresh)
{
    return fresh ? time(NULL) : cached_now;
}

static time_t stamp_either(int fresh)
{
    if (!fresh)
        return cached_now;
    return time(NULL); // expect: timer-hot-path
}

static long annotate(int force, long now)
{
    long t = now;
    if (force && now > 0)
        t = (long)clock();
    return t;
}

extern int want_fresh(void);

/* The arm decides a call, not a read: the clock is read one call further down. */
static long read_clock(void)
{
    return (long)clock();
}

static long maybe_refresh(int refresh, long now)
{
    if (refresh)
        return read_clock();
    return now;
}

long handle_command(long now)
{
    long sum = (long)stamp_cached(0);
    sum += (long)stamp_fresh(1); // expect: timer-hot-path
    sum += (long)stamp_either(want_fresh());
    sum += annotate(0, now);
    sum += maybe_refresh(0, now);
    return sum;
}

/* A cold caller passing 1 does not make stamp_cached's read hot. */
long rewrite_log(void)
{
    return (long)stamp_cached(1);
}
