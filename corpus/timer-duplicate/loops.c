/*
 * Duplicates and loops. One read before a loop and one inside it are not duplicates (the
 * inner one runs many times; it is a timer-hot-path finding when the loop does not block).
 * Two reads in one iteration are: in a paced loop that is only timer-duplicate, in a
 * spinning loop both rules.
 */
/* Loops no hot root reaches are low confidence (hidden by default); shown here to test
 * which loops count. */
// hotscan-args: --min-confidence low
#include <time.h>
#include <unistd.h>

struct purge_stats {
    time_t sampled_at;
    time_t uptime_at;
    time_t started;
    long rows;
};

struct undo_rec {
    struct undo_rec *next;
    clock_t first_seen;
    clock_t last_seen;
    time_t purged_at;
};

void purge_batch(struct purge_stats *st, struct undo_rec *rec)
{
    st->started = time(NULL);
    for (; rec != NULL; rec = rec->next) {
        rec->purged_at = time(NULL); // expect: timer-hot-path
        st->rows++;
    }
}

void purge_sampler(struct purge_stats *st, volatile int *stop)
{
    st->started = time(NULL);
    while (!*stop) {
        sleep(1);
        st->sampled_at = time(NULL);
        st->uptime_at = time(NULL); // expect: timer-duplicate
    }
}

void purge_scan(struct undo_rec *rec)
{
    for (; rec != NULL; rec = rec->next) {
        rec->first_seen = clock(); // expect: timer-hot-path
        rec->last_seen = clock(); // expect: timer-duplicate, timer-hot-path
    }
}
