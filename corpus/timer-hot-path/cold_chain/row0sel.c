/*
 * The hot root (hot by its prototype in row0sel.h) calls the clustered-index fetch, which
 * reads clocks (flagged in row0clust.c, one through ut0log.c's wrapper), and on corruption the cold reporter,
 * whose whole chain is not hot: its timestamp helper and its own loop are negatives.
 */
#include "row0sel.h"

int row_search_mvcc(row_prebuilt_t *prebuilt)
{
    int n = 0;
    for (rec_t *rec = prebuilt->first; rec != 0; rec = rec->next) {
        if (rec->corrupted) {
            row_sel_report_corruption(rec);
            return -1;
        }
        row_sel_fetch_clust(prebuilt, rec);
        n++;
    }
    return n;
}
