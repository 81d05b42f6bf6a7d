/*
 * Hot roots marked in the source: __attribute__((hot)) on a definition, or only on a prior
 * prototype. What they call is hot too. Negatives: what they reach only through a cold
 * function (error reporting), a cold function's own loop, and a caller of a hot root; a
 * helper reached both through the cold function and directly is still hot.
 */
#include <stdio.h>
#include <sys/time.h>
#include <time.h>

typedef unsigned long long ulonglong;
typedef struct {
    ulonglong val;
} my_hrtime_t;

extern my_hrtime_t my_hrtime(void);

struct query {
    const char *text;
    int error;
    ulonglong start_us;
    time_t error_logged;
    struct timeval executed;
};

__attribute__((hot)) int query_execute(struct query *q);

static void query_log_error_time(struct query *q)
{
    q->error_logged = time(NULL);
}

static void query_stamp(struct query *q)
{
    q->start_us = my_hrtime().val; // expect: timer-hot-path
}

__attribute__((cold)) void query_report_error(struct query *q)
{
    query_log_error_time(q);
    query_stamp(q);
    for (int attempt = 0; attempt < 3; attempt++)
        q->error_logged = time(NULL);
    fprintf(stderr, "query failed: %s\n", q->text);
}

__attribute__((hot)) int query_dispatch(struct query *q)
{
    query_stamp(q);
    if (q->error) {
        query_report_error(q);
        return -1;
    }
    return query_execute(q);
}

/* Hot through the prototype above; the definition repeats no attribute. */
int query_execute(struct query *q)
{
    gettimeofday(&q->executed, NULL); // expect: timer-hot-path
    return q->error;
}

/* Calls a hot root; nothing hot calls it. */
int query_run_script(struct query *qs, int n)
{
    time_t started = time(NULL);
    int failed = 0;
    for (int i = 0; i < n; i++)
        failed += query_dispatch(&qs[i]) != 0;
    printf("%d queries, %d failed, started %ld\n", n, failed, (long)started);
    return failed;
}
