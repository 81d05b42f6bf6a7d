/*
 * Gauges held to a limit (issue 10; haproxy's pipes_used). A pipe is taken while
 * `pipes_used < max_pipes` and the gauge goes up and down with __atomic builtins; nothing
 * is freed or published on its value, so it is a counter. Negatives: `conn_users`, whose
 * decrement is followed by `if (!conn_users)` freeing the pool, and `active_tasks`,
 * tested with `<= 0` before a release: tests of reaching zero, a reference count's.
 */
// hotscan-args: --min-confidence low
#include <stdlib.h>

static int pipes_used;
static int max_pipes = 1024;
static int conn_users;
static int active_tasks;
static void *conn_pool;

int pipe_get(void)
{
    if (pipes_used < max_pipes) {
        __atomic_add_fetch(&pipes_used, 1, __ATOMIC_SEQ_CST); // expect: atomic-seqcst-counter
        return 1;
    }
    return 0;
}

void pipe_put(void)
{
    __atomic_sub_fetch(&pipes_used, 1, __ATOMIC_SEQ_CST); // expect: atomic-seqcst-counter
}

void conn_take(void)
{
    __atomic_add_fetch(&conn_users, 1, __ATOMIC_SEQ_CST);
}

void conn_drop(void)
{
    __atomic_sub_fetch(&conn_users, 1, __ATOMIC_SEQ_CST);
    if (!conn_users)
        free(conn_pool);
}

void task_start(void)
{
    __atomic_add_fetch(&active_tasks, 1, __ATOMIC_SEQ_CST);
}

void task_end(void)
{
    __atomic_sub_fetch(&active_tasks, 1, __ATOMIC_SEQ_CST);
    if (active_tasks <= 0)
        free(conn_pool);
}
