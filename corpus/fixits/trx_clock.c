/* Fix-its for timer-duplicate (MDEV-12345: clock() done twice in trx_start_low): reuse
 * the reading kept in a field, copy an out-parameter reading, and hold a reading used
 * twice directly in one local. */
#include <stdio.h>
#include <time.h>

struct trx {
    clock_t start_time_micro;
    clock_t last_active;
    clock_t start_ms;
    clock_t last_ms;
    struct timespec started;
    struct timespec seen;
};

void trx_start_low(struct trx *trx)
{
    trx->start_time_micro = clock();
    trx->last_active = clock(); // expect: timer-duplicate
}

void trx_mark(struct trx *trx)
{
    clock_gettime(CLOCK_MONOTONIC, &trx->started);
    clock_gettime(CLOCK_MONOTONIC, &trx->seen); // expect: timer-duplicate
}

void log_statement(char *buf, size_t len, const char *sql)
{
    snprintf(buf, len, "%ld %s", (long)time(NULL), sql);
    snprintf(buf, len, "%ld", (long)time(NULL)); // expect: timer-duplicate
}

/* The earlier reading is stored divided, so the name does not hold the reading: the
 * duplicate is reported, but no reuse is offered (it would divide twice). */
void trx_stamp_ms(struct trx *trx)
{
    trx->start_ms = clock() / 1000;
    trx->last_ms = clock() / 1000; // expect: timer-duplicate
}
