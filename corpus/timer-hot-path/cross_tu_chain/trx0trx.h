/* trx0trx.h - the transaction object and the entry point sql_execute.c calls. */
#ifndef TRX0TRX_H
#define TRX0TRX_H

#include <time.h>

typedef struct trx {
    int started;
    clock_t start_clock;
    unsigned long long printed_us;
} trx_t;

void trx_start_if_not_started(trx_t *trx);
void trx_sys_print(trx_t *trx);

#endif
