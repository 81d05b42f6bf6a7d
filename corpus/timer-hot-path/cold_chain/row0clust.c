/* Reached from the hot root in another TU: both reads here are on the hot path. */
#include <stddef.h>

#include "row0sel.h"
#include "ut0log.h"

extern ulonglong ut_time_us(ulonglong *tloc);

void row_sel_fetch_clust(row_prebuilt_t *prebuilt, rec_t *rec)
{
    rec->fetched_us = ut_time_us(NULL); // expect: timer-hot-path
    prebuilt->fetch_ms = ut_now_ms(); // expect: timer-hot-path
}
