/* minidb: a tiny database server in the shape of MariaDB's query path, bundled as
 * hotscan's example (README) and as a multi-TU corpus case. */
#ifndef MINIDB_H
#define MINIDB_H
#include <time.h>
#include <stdint.h>

struct trx {
    clock_t start_time_micro;
    clock_t last_active;
    time_t start_time;
    uint64_t id;
};

struct session {
    struct trx trx;
    uint64_t start_utime;   /* set once per statement, like THD::start_utime */
    int fd;
};

void trx_start_low(struct trx *trx);
int row_search(struct session *s, int nrows);
void log_slow_query(struct session *s, uint64_t elapsed_us);
uint64_t now_us(void);
#endif
