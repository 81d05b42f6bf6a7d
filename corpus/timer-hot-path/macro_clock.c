/*
 * Clock reads hidden in macros count where the macro is used, never at the #define: NOW()
 * in a loop is flagged at that line. Negatives: the same macros used outside loops in
 * functions no hot root reaches, and a do { } while (0) statement macro, which runs its
 * body exactly once and so is not a loop.
 */
/* Loops no hot root reaches are low confidence (hidden by default); shown here to test
 * which loops count. */
// hotscan-args: --min-confidence low
#include <stddef.h>
#include <sys/time.h>
#include <time.h>

#define NOW() clock()
#define TIMEVAL_NOW(tv) gettimeofday(&(tv), NULL)
#define EVENT_STAMP(ev)            \
    do {                           \
        (ev)->at = time(NULL);     \
    } while (0)

struct event {
    time_t at;
    clock_t cpu;
};

extern void run_query(const char *sql);

void events_charge_cpu(struct event *ev, int n)
{
    for (int i = 0; i < n; i++)
        ev[i].cpu = NOW(); // expect: timer-hot-path
}

void events_stamp(struct event *ev, int n)
{
    int i = 0;
    while (i < n) {
        EVENT_STAMP(&ev[i]); // expect: timer-hot-path
        i++;
    }
}

void event_init(struct event *ev)
{
    ev->cpu = NOW();
    EVENT_STAMP(ev);
}

long slow_log_query_ms(const char *sql)
{
    struct timeval a, b;
    TIMEVAL_NOW(a);
    run_query(sql);
    TIMEVAL_NOW(b);
    return (b.tv_sec - a.tv_sec) * 1000L + (b.tv_usec - a.tv_usec) / 1000L;
}
