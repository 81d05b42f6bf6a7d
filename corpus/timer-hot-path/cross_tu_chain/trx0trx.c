/*
 * The end of the chain: trx_start_low's clock() is reached from dispatch_command in
 * another TU. trx_sys_print() and this file's own static log_now() are reached from no
 * hot root: negatives, even though they share names and a header with the hot code.
 */
#include <stdio.h>
#include <time.h>

#include "thd.h"
#include "trx0trx.h"

extern ulonglong ut_time_us(ulonglong *tloc);

static void trx_start_low(trx_t *trx)
{
    trx->start_clock = clock(); // expect: timer-hot-path
    trx->started = 1;
}

void trx_start_if_not_started(trx_t *trx)
{
    if (!trx->started)
        trx_start_low(trx);
}

static ulonglong log_now(void)
{
    return ut_time_us(NULL);
}

void trx_sys_print(trx_t *trx)
{
    trx->printed_us = log_now();
    printf("trx started=%d at %ld, session clock %llu\n", trx->started, (long)time(NULL),
           thd_now_us());
}
