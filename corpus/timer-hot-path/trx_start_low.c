/*
 * MDEV-12345: the clock() call in trx_start_low cost a 3x drop in point-select qps. With
 * trx_start_low named by --hot, its own read and the read in the function it calls are
 * flagged. Negatives: startup and reporting code that no hot root reaches, a caller of
 * the hot root (being a caller does not make it hot), and the fix that reuses start_utime.
 */
// hotscan-args: --hot trx_start_low
#include <stddef.h>
#include <stdio.h>
#include <time.h>

typedef unsigned long long ulonglong;
typedef unsigned long trx_id_t;

extern ulonglong my_interval_timer(void);
extern ulonglong ut_time_us(ulonglong *tloc);

struct thd {
    ulonglong start_utime;
};

typedef struct trx {
    trx_id_t id;
    int state;
    int read_only;
    clock_t start_time_clock;
    ulonglong start_time_micro;
    struct thd *mysql_thd;
} trx_t;

static trx_id_t trx_sys_max_trx_id;
static ulonglong trx_sys_started_ns;

static trx_id_t trx_sys_get_new_trx_id(trx_t *trx)
{
    trx->start_time_micro = ut_time_us(NULL); // expect: timer-hot-path
    return ++trx_sys_max_trx_id;
}

void trx_start_low(trx_t *trx, int read_write)
{
    trx->read_only = !read_write;
    if (!trx->read_only)
        trx->id = trx_sys_get_new_trx_id(trx);
    trx->start_time_clock = clock(); // expect: timer-hot-path
    trx->state = 1;
}

/* The fix from MDEV-12345: the statement start time the server has already taken. */
void trx_start_low_fixed(trx_t *trx, int read_write)
{
    trx->read_only = !read_write;
    trx->start_time_micro = trx->mysql_thd->start_utime;
    trx->state = 1;
}

/* Calls the hot root but is not called by it: its own read is not on the hot path. */
ulonglong trx_start_if_not_started_timed(trx_t *trx)
{
    ulonglong t0 = my_interval_timer();
    if (trx->state == 0)
        trx_start_low(trx, 1);
    return my_interval_timer() - t0;
}

/* Startup and monitoring: run once, reached from no hot root. */
void trx_sys_create(void)
{
    trx_sys_started_ns = my_interval_timer();
}

int trx_print_age(const trx_t *trx, char *buf, size_t len)
{
    time_t now = time(NULL);
    return snprintf(buf, len, "trx %lu active at %ld, started %llu us",
                    trx->id, (long)now, trx->start_time_micro);
}
