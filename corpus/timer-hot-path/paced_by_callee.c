// hotscan-args: --min-confidence low
/*
 * A loop is paced by what it calls: a helper that writes a file or sleeps makes a clock
 * read beside it cost nothing that matters. Blocking is interprocedural: the write can be
 * two calls down. A loop whose reading decides when it ends (a deadline spin, a retry
 * while time() fails) reads the clock on purpose. An unpaced loop is still reported (low
 * here: no hot root reaches it).
 */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static FILE *log_file;

static void write_line(const char *s, long t)
{
    fprintf(log_file, "%ld %s\n", t, s);
}

static void log_event(const char *s, long t)
{
    write_line(s, t);
}

static void nap(void)
{
    usleep(1000);
}

void drain_events(const char **events, int n)
{
    for (int i = 0; i < n; i++)
        log_event(events[i], (long)time(NULL));
}

void poll_until_idle(int *busy)
{
    while (*busy) {
        long t = (long)clock();
        if (t > 1000)
            nap();
        nap();
    }
}

long spin_until(long deadline_us)
{
    struct timespec ts;
    long now;
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &ts);
        now = ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
        if (now >= deadline_us)
            break;
    }
    return now;
}

/* while (1): the constant condition never ends the loop; both real exits read the clock. */
int busy_clock_check(long budget_us)
{
    struct timespec ts;
    long start = 0;
    while (1) {
        unsigned long long d;
        if (clock_gettime(CLOCK_MONOTONIC, &ts) < 0)
            return 0;
        d = (unsigned long long)(ts.tv_sec * 1000000 + ts.tv_nsec / 1000 - start);
        if (d >= (unsigned long long)budget_us)
            break;
    }
    return 1;
}

time_t retry_time(void)
{
    time_t t;
    while (time(&t) == (time_t)-1)
        ;
    return t;
}

long sum_stamps(const long *v, int n)
{
    long s = 0;
    for (int i = 0; i < n; i++)
        s += v[i] + (long)clock(); // expect: timer-hot-path
    return s;
}
