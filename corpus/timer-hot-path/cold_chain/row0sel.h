/*
 * row0sel.h - the attributes live only on these prototypes: row_search_mvcc is a hot root,
 * row_sel_report_corruption is cold. The definitions in other files repeat neither.
 */
#ifndef ROW0SEL_H
#define ROW0SEL_H

typedef unsigned long long ulonglong;

typedef struct rec {
    struct rec *next;
    int corrupted;
    int n_fields;
    ulonglong fetched_us;
} rec_t;

typedef struct {
    rec_t *first;
    ulonglong fetch_ms;
} row_prebuilt_t;

__attribute__((hot)) int row_search_mvcc(row_prebuilt_t *prebuilt);
__attribute__((cold)) void row_sel_report_corruption(const rec_t *rec);
void row_sel_fetch_clust(row_prebuilt_t *prebuilt, rec_t *rec);

#endif
