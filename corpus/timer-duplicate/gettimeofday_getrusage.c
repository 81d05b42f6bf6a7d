/*
 * gettimeofday() twice for one log line is a duplicate; so is getrusage() twice where the
 * first result is only formatted. Negatives: getrusage() and gettimeofday() pairs whose
 * fields are subtracted to report a slow query's CPU and wall time, and pairs with a
 * write (fprintf) between them: I/O in between makes two distinct readings plausible
 * ("flushed" after the write), so those are low confidence, hidden by default.
 */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/time.h>

struct slow_log_entry {
    struct timeval logged;
    struct timeval flushed;
    long user_us;
    long wall_us;
};

extern void run_statement(void);

void slow_log_format(struct slow_log_entry *e, char *buf, size_t len)
{
    gettimeofday(&e->logged, NULL);
    snprintf(buf, len, "# Time: %ld.%06ld\n", (long)e->logged.tv_sec, (long)e->logged.tv_usec);
    gettimeofday(&e->flushed, NULL); // expect: timer-duplicate
}

void slow_log_rusage_format(char *buf, size_t len)
{
    struct rusage before, after;
    getrusage(RUSAGE_SELF, &before);
    snprintf(buf, len, "# maxrss: %ld\n", before.ru_maxrss);
    getrusage(RUSAGE_SELF, &after); // expect: timer-duplicate
    snprintf(buf, len, "# minflt: %ld\n", after.ru_minflt);
}

void slow_log_write(struct slow_log_entry *e, FILE *out)
{
    gettimeofday(&e->logged, NULL);
    fprintf(out, "# Time: %ld.%06ld\n", (long)e->logged.tv_sec, (long)e->logged.tv_usec);
    gettimeofday(&e->flushed, NULL);
}

void slow_log_rusage(FILE *out)
{
    struct rusage before, after;
    getrusage(RUSAGE_SELF, &before);
    fprintf(out, "# maxrss: %ld\n", before.ru_maxrss);
    getrusage(RUSAGE_SELF, &after);
    fprintf(out, "# minflt: %ld\n", after.ru_minflt);
}

void rusage_self_then_children(struct rusage *self, struct rusage *children)
{
    getrusage(RUSAGE_SELF, self);
    getrusage(RUSAGE_CHILDREN, children);
}

void slow_log_measure(struct slow_log_entry *e)
{
    struct rusage ru0, ru1;
    struct timeval t0, t1;
    getrusage(RUSAGE_SELF, &ru0);
    gettimeofday(&t0, NULL);
    run_statement();
    gettimeofday(&t1, NULL);
    getrusage(RUSAGE_SELF, &ru1);
    e->user_us = (ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec) * 1000000L +
                 (ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec);
    e->wall_us = (t1.tv_sec - t0.tv_sec) * 1000000L + (t1.tv_usec - t0.tv_usec);
}
