/*
 * Reachability through recursion and cycles: the --hot root row_sel_step reaches
 * que_thr_step through the mutually recursive que_run_threads, so its read is flagged
 * (and the analysis must terminate). Negative: a self-recursive statistics walk that no
 * hot root reaches; recursion alone is not a loop.
 */
// hotscan-args: --hot row_sel_step
#include <stddef.h>
#include <time.h>

typedef unsigned long long ulonglong;

extern ulonglong ut_time_ms(void);

typedef struct que_thr {
    struct que_thr *child;
    ulonglong stepped_ms;
    int state;
} que_thr_t;

typedef struct dict_node {
    struct dict_node *left, *right;
    time_t stats_at;
} dict_node_t;

static que_thr_t *que_thr_step(que_thr_t *thr);

static void que_run_threads(que_thr_t *thr)
{
    while (thr != NULL && thr->state != 0)
        thr = que_thr_step(thr);
}

static que_thr_t *que_thr_step(que_thr_t *thr)
{
    thr->stepped_ms = ut_time_ms(); // expect: timer-hot-path
    if (thr->child != NULL)
        que_run_threads(thr->child);
    thr->state = 0;
    return thr;
}

que_thr_t *row_sel_step(que_thr_t *thr)
{
    que_run_threads(thr);
    return thr;
}

void dict_stats_recalc(dict_node_t *node)
{
    if (node == NULL)
        return;
    node->stats_at = time(NULL);
    dict_stats_recalc(node->left);
    dict_stats_recalc(node->right);
}
