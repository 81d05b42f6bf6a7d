/* trx_start_low as in MariaDB 10.2 before MDEV-12345: clock() per transaction, twice. */
#include <sys/time.h>
#include "minidb.h"

static uint64_t next_trx_id;

/* Same name as server.c's: static functions of one name, told apart by file in a profile. */
static unsigned checksum(const unsigned char *p, size_t n)
{
    unsigned h = 7;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 16777619u;
    return h;
}

void trx_start_low(struct trx *trx)
{
    trx->id = ++next_trx_id;
    trx->start_time_micro = clock(); // expect: timer-hot-path
    trx->start_time = time(NULL); // expect: timer-hot-path
    trx->last_active = clock(); // expect: timer-hot-path, timer-duplicate
}

int row_search(struct session *s, int nrows)
{
    int found = 0;
    for (int i = 0; i < nrows; i++) {
        struct timeval tv;
        gettimeofday(&tv, NULL); // expect: timer-hot-path
        found += (checksum((const unsigned char *)&tv, sizeof tv) & 1) == 0;
    }
    (void)s;
    return found;
}

/* Cold: slow-query logging runs rarely; its clock reads are not on the hot path. */
__attribute__((cold)) void log_slow_query(struct session *s, uint64_t elapsed_us)
{
    time_t when = time(NULL);
    (void)s;
    (void)elapsed_us;
    (void)when;
}
