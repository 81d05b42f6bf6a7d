/*
 * MDEV-12345: in 10.2, trx_start_low did clock() twice; the second read is the duplicate.
 * Negatives: the fixed version reading once, a start/end pair subtracted to measure the
 * commit, and clock() next to time(), which read different clocks.
 */
#include <time.h>

typedef struct trx {
    int state;
    clock_t start_time_clock;
    clock_t lock_wait_clock;
    clock_t commit_cpu;
    time_t start_time;
} trx_t;

extern void trx_assign_rseg(trx_t *trx);
extern void trx_write_commit_record(trx_t *trx);

void trx_start_low(trx_t *trx)
{
    trx->start_time_clock = clock();
    trx_assign_rseg(trx);
    trx->lock_wait_clock = clock(); // expect: timer-duplicate
    trx->state = 1;
}

void trx_start_low_fixed(trx_t *trx)
{
    trx->start_time_clock = clock();
    trx_assign_rseg(trx);
    trx->lock_wait_clock = trx->start_time_clock;
    trx->state = 1;
}

void trx_commit_low(trx_t *trx)
{
    clock_t start = clock();
    trx_write_commit_record(trx);
    trx->commit_cpu = clock() - start;
}

void trx_start_wall_and_cpu(trx_t *trx)
{
    trx->start_time = time(NULL);
    trx->start_time_clock = clock();
}
