/*
 * Counters whose address escapes to code hotscan cannot see, all negatives: once
 * `&counter` is handed to another function (a status-variable registry, a thread-start
 * argument, a helper that keeps the pointer), hotscan cannot know every use of it, so it
 * cannot prove the variable is only a counter. This holds for _Atomic objects and for plain
 * integers driven by __sync/__atomic builtins alike. A project helper whose body only
 * operates on its pointer parameter (stat_inc) is a wrapper: its calls are operations on
 * the object passed (issue 10), so `stalls` is a counter, reported at the call.
 */
// hotscan-args: --min-confidence low
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

typedef enum { SHOW_LONG, SHOW_LONGLONG } show_type;

extern void register_status_var(const char *name, void *value, show_type type);

static atomic_long threads_created;
static _Atomic uint64_t rows_sent;
static atomic_ulong stalls;
static unsigned long plain_queries;
static uint64_t plain_bytes;

extern void *stall_watcher(void *arg);

static atomic_ulong retries;
static atomic_ulong *last_bumped;

static void stat_inc(atomic_ulong *c)
{
    atomic_fetch_add(c, 1);
}

/* Keeps the pointer: not a wrapper hotscan can follow, so `retries` escapes. */
static void stat_inc_and_remember(atomic_ulong *c)
{
    atomic_fetch_add(c, 1);
    last_bumped = c;
}

void status_init(void)
{
    register_status_var("Threads_created", &threads_created, SHOW_LONG);
    register_status_var("Queries", &plain_queries, SHOW_LONG);
}

void thread_created(void)
{
    atomic_fetch_add(&threads_created, 1);
    __sync_fetch_and_add(&plain_queries, 1);
}

void rows_out(uint64_t n)
{
    rows_sent += n;
    __atomic_fetch_add(&plain_bytes, n * 64, __ATOMIC_SEQ_CST);
}

int start_stall_watcher(pthread_t *tid)
{
    stat_inc(&stalls); // expect: atomic-seqcst-counter
    stat_inc_and_remember(&retries);
    pthread_create(tid, 0, stall_watcher, (void *)&plain_bytes);
    return pthread_create(tid, 0, stall_watcher, (void *)&rows_sent);
}

void stall_seen(void)
{
    atomic_fetch_add(&stalls, 1); // expect: atomic-seqcst-counter
    atomic_fetch_add(&retries, 1);
}
