// hotscan-args: --hot execute_command
/*
 * A clock wrapper (a function that returns its reading) called at both ends of an
 * interval by the hot path (`ustime() - start`) is deliberate instrumentation: a command's
 * duration needs both reads. The same holds through a function pointer set at start-up.
 * A deadline (`mono_us() + 1000`) is no measurement: flagged, and it repeats the interval's
 * first reading, a call apart.
 * Each call of a wrapper is judged where it is made. A read as a fallback when the caller
 * passed no reading (`if (us == 0) us = ustime();`, every hot caller passing its own) is
 * low too. A wrapper of a wrapper is a wrapper (`c->ms = mstime()` stores a reading
 * untimed: flagged). A wrapper whose reading the hot caller only stores is flagged, and so
 * is a syscall clock, even for timing. A function that writes its reading through a pointer
 * parameter is a wrapper too: `elapsed_start(&c->started)` is flagged where it is called.
 */
#include <stdint.h>
#include <sys/time.h>
#include <time.h>

long long ustime(void)
{
    struct timeval tv;
    long long ust;
    gettimeofday(&tv, NULL);
    ust = ((long long)tv.tv_sec) * 1000000;
    ust += tv.tv_usec;
    return ust;
}

static uint64_t mono_us_posix(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

uint64_t (*mono_us)(void);

void clock_init(void)
{
    mono_us = mono_us_posix;
}

static long long stamp_us(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (long long)tv.tv_sec * 1000000 + tv.tv_usec;
}

static long cpu_now(void)
{
    return (long)clock();
}

long long mstime(void)
{
    return ustime() / 1000;
}

static void elapsed_start(uint64_t *start)
{
    *start = mono_us();
}

static long long cached_us;

static void enter_unit(long long us)
{
    if (us == 0)
        us = ustime();
    cached_us = us;
}

struct command {
    long long duration, mono, last_seen, ms;
    long cpu;
    uint64_t started, deadline;
    void (*proc)(void);
};

void execute_command(struct command *c)
{
    long long start = ustime();
    enter_unit(start);
    uint64_t m0 = mono_us();
    elapsed_start(&c->started); // expect: timer-hot-path
    c->deadline = mono_us() + 1000; // expect: timer-duplicate, timer-hot-path
    c->ms = mstime(); // expect: timer-hot-path
    long cpu0 = cpu_now(); // expect: timer-hot-path
    c->proc();
    c->duration = ustime() - start;
    c->mono = (long long)(mono_us() - m0);
    c->cpu = cpu_now() - cpu0; // expect: timer-hot-path
    c->last_seen = stamp_us(); // expect: timer-hot-path
}
