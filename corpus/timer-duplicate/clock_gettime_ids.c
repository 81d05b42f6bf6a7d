/*
 * clock_gettime() reads the clock its first argument names: two reads of CLOCK_MONOTONIC
 * whose results are never combined are a duplicate. Negatives: MONOTONIC next to REALTIME
 * or MONOTONIC_COARSE (different clocks), and pairs combined to measure elapsed time.
 */
#include <time.h>

struct stmt_timing {
    struct timespec prepared;
    struct timespec bound;
    struct timespec wall;
    long long exec_ns;
};

extern void stmt_bind(struct stmt_timing *t);
extern void stmt_execute(struct stmt_timing *t);
extern long long timespec_diff_ns(const struct timespec *from, const struct timespec *to);

void stmt_prepare(struct stmt_timing *t)
{
    clock_gettime(CLOCK_MONOTONIC, &t->prepared);
    stmt_bind(t);
    clock_gettime(CLOCK_MONOTONIC, &t->bound); // expect: timer-duplicate
}

void stmt_prepare_wall(struct stmt_timing *t)
{
    clock_gettime(CLOCK_MONOTONIC, &t->prepared);
    clock_gettime(CLOCK_REALTIME, &t->wall);
    clock_gettime(CLOCK_MONOTONIC_COARSE, &t->bound);
}

void stmt_run(struct stmt_timing *t)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    stmt_execute(t);
    clock_gettime(CLOCK_MONOTONIC, &b);
    t->exec_ns = (b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec);
}

void stmt_run_helper(struct stmt_timing *t)
{
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    stmt_execute(t);
    clock_gettime(CLOCK_MONOTONIC, &end);
    t->exec_ns = timespec_diff_ns(&start, &end);
}
