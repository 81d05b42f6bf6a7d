/*
 * A clock read inside a loop is on a hot path even when no hot root is named: the
 * row_search loop below reads ut_time_us() once per record. Negatives: a read in a for
 * init runs once; reads before and after a loop run once per call; a loop comparing
 * against a precomputed deadline reads no clock; a cold function's loops are not hot.
 */
/* Loops no hot root reaches are low confidence (hidden by default); shown here to test
 * which loops count. */
// hotscan-args: --min-confidence low
#include <stddef.h>
#include <sys/time.h>
#include <time.h>

typedef unsigned long long ulonglong;

extern ulonglong ut_time_us(ulonglong *tloc);
extern ulonglong my_interval_timer(void);

typedef struct rec {
    struct rec *next;
    int deleted;
    ulonglong visited_us;
} rec_t;

typedef struct {
    rec_t *first;
    ulonglong search_us;
    volatile int *pending_io;
} row_prebuilt_t;

int row_search_mvcc(row_prebuilt_t *prebuilt, ulonglong budget_us)
{
    ulonglong started = ut_time_us(NULL);
    int n_found = 0;
    for (rec_t *rec = prebuilt->first; rec != NULL; rec = rec->next) {
        if (rec->deleted)
            continue;
        rec->visited_us = ut_time_us(NULL); // expect: timer-hot-path
        if (rec->visited_us - started > budget_us)
            break;
        n_found++;
    }
    prebuilt->search_us = ut_time_us(NULL) - started;
    return n_found;
}

/* The same search with the deadline checked against a counter: no clock in the loop. */
int row_search_mvcc_fixed(row_prebuilt_t *prebuilt, int max_rows)
{
    ulonglong started = ut_time_us(NULL);
    int n_found = 0;
    for (rec_t *rec = prebuilt->first; rec != NULL && n_found < max_rows; rec = rec->next)
        n_found += !rec->deleted;
    prebuilt->search_us = ut_time_us(NULL) - started;
    return n_found;
}

/* A while condition is evaluated once per iteration. */
int row_wait_for_io(row_prebuilt_t *prebuilt, time_t deadline)
{
    unsigned long spins = 0;
    while (*prebuilt->pending_io && time(NULL) < deadline) // expect: timer-hot-path
        spins++;
    return spins > 0;
}

/* for (init; condition; increment): the init runs once, the condition every iteration. */
ulonglong row_merge_drain(rec_t **queue, ulonglong budget_ns)
{
    ulonglong done = 0;
    for (ulonglong t0 = my_interval_timer();
         my_interval_timer() - t0 < budget_ns; // expect: timer-hot-path
         done++) {
        if (*queue == NULL)
            break;
        *queue = (*queue)->next;
    }
    return done;
}

/* The increment runs every iteration too. */
int row_log_apply_batches(rec_t *rec, struct timeval *applied_at)
{
    int n = 0;
    for (gettimeofday(applied_at, NULL); rec != NULL;
         gettimeofday(applied_at, NULL)) { // expect: timer-hot-path
        rec = rec->next;
        n++;
    }
    return n;
}

/* A do-while body. */
void row_sel_wait_visible(volatile int *visible, struct timespec *now)
{
    do {
        clock_gettime(CLOCK_MONOTONIC, now); // expect: timer-hot-path
    } while (!*visible);
}

/* A read in an outer loop body is flagged, though it is not the innermost loop. */
void row_scan_pages(rec_t **pages, int n_pages, ulonglong *page_started_ns)
{
    for (int p = 0; p < n_pages; p++) {
        page_started_ns[p] = my_interval_timer(); // expect: timer-hot-path
        for (rec_t *rec = pages[p]; rec != NULL; rec = rec->next)
            rec->deleted = 0;
    }
}

/* Cold code is not hot, loops or not: this dumps diagnostics after a corruption. */
__attribute__((cold)) void row_dump_corrupted(rec_t *rec)
{
    while (rec != NULL) {
        rec->visited_us = ut_time_us(NULL);
        rec = rec->next;
    }
}

/* Straight-line code outside any loop, reached from no hot root: not flagged. */
time_t row_search_stats_snapshot(ulonglong *search_us)
{
    *search_us = 0;
    return time(NULL);
}
