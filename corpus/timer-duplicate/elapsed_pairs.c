/*
 * Start/end pairs that measure elapsed time are not duplicates however they are combined:
 * subtracted (directly or field by field), passed together to difftime(), timersub() or a
 * project's diff helper. Positive: a third read of the same clock after the measured pair,
 * where the end reading would have served.
 */
#include <sys/time.h>
#include <time.h>

struct query_stats {
    double wall_seconds;
    long exec_us;
    long sort_us;
    long long cpu_ticks;
    struct timeval finished;
};

extern void run_filesort(struct query_stats *s);
extern void run_join(struct query_stats *s);
extern long tv_diff_us(const struct timeval *start, const struct timeval *end);

void stats_wall(struct query_stats *s)
{
    time_t t0 = time(NULL);
    run_join(s);
    time_t t1 = time(NULL);
    s->wall_seconds = difftime(t1, t0);
}

void stats_exec(struct query_stats *s)
{
    struct timeval start, end, diff;
    gettimeofday(&start, NULL);
    run_join(s);
    gettimeofday(&end, NULL);
    timersub(&end, &start, &diff);
    s->exec_us = diff.tv_sec * 1000000L + diff.tv_usec;
}

void stats_sort(struct query_stats *s)
{
    struct timeval start, end;
    gettimeofday(&start, NULL);
    run_filesort(s);
    gettimeofday(&end, NULL);
    s->sort_us = tv_diff_us(&start, &end);
}

void stats_cpu(struct query_stats *s)
{
    clock_t start = clock();
    run_join(s);
    s->cpu_ticks = (long long)(clock() - start);
}

void stats_exec_and_finish(struct query_stats *s)
{
    struct timeval start, end;
    gettimeofday(&start, NULL);
    run_join(s);
    gettimeofday(&end, NULL);
    s->exec_us = (end.tv_sec - start.tv_sec) * 1000000L + (end.tv_usec - start.tv_usec);
    gettimeofday(&s->finished, NULL); // expect: timer-duplicate
}
