/*
 * The cold reporter: cold through its prototype in row0sel.h, so neither its own loop nor
 * ut_log_timestamp(), which only it calls, is on a hot path. ut_now_ms() is also called
 * from the hot fetch in row0clust.c, so it stays hot.
 */
#include <stdio.h>

#include "row0sel.h"
#include "ut0log.h"

void row_sel_report_corruption(const rec_t *rec)
{
    time_t at = ut_log_timestamp();
    unsigned long long ms = ut_now_ms();
    for (int i = 0; i < rec->n_fields; i++)
        fprintf(stderr, "[%ld] field %d corrupted, now %ld\n", (long)at, i, (long)time(NULL));
    fprintf(stderr, "report took %llu ms\n", ut_now_ms() - ms);
}
