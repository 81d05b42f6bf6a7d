/*
 * MySQL 5.7's my_atomic API, declared here as the extern prototypes a TU sees (the
 * definitions live in a header hotscan does not need): my_atomic_add64/add32 are seq_cst
 * fetch-adds on plain integers, listed as wrappers in rules/atomics.json. The query id is
 * a ticket (`my_atomic_add64(&global_query_id, 1) + 1`), the binlog byte count a statistic;
 * both are counters. The _explicit form with MY_MEMORY_ORDER_RELAXED is not flagged.
 * Negatives: connection_count, whose add of -1 decides whether the last connection woke
 * the waiter (`== 1`); thread_lock_state, a waiter count sharing its word with a lock bit
 * that is compared-and-swapped; pending_kills, counted up by KILL but taken with
 * my_atomic_fas32; refresh_version, bumped by FLUSH but also stored from a computed value.
 */
// hotscan-args: --min-confidence low
#include <stdint.h>

typedef int64_t int64;
typedef int32_t int32;
typedef int64 query_id_t;

enum my_memory_order { MY_MEMORY_ORDER_RELAXED, MY_MEMORY_ORDER_CONSUME, MY_MEMORY_ORDER_ACQUIRE,
                       MY_MEMORY_ORDER_RELEASE, MY_MEMORY_ORDER_ACQ_REL, MY_MEMORY_ORDER_SEQ_CST };

extern int32 my_atomic_add32(int32 volatile *a, int32 v);
extern int64 my_atomic_add64(int64 volatile *a, int64 v);
extern int64 my_atomic_load64(int64 volatile *a);
extern void my_atomic_store64(int64 volatile *a, int64 v);
extern void my_atomic_store32(int32 volatile *a, int32 v);
extern int64 my_atomic_add64_explicit(int64 volatile *a, int64 v, enum my_memory_order o);
extern int my_atomic_cas32(int32 volatile *a, int32 *cmp, int32 set);
extern int32 my_atomic_fas32(int32 volatile *a, int32 v);

static int64 volatile global_query_id;
static int64 volatile binlog_bytes_written;
static int64 volatile binlog_cache_use;
static int32 volatile connection_count;
static int32 volatile thread_lock_state;
static int32 volatile pending_kills;
static int32 volatile refresh_version;

enum { THREAD_LOCK_WAITER = 0x100 };

extern void wake_shutdown_waiter(void);
extern int32 max_version_in_table_cache(void);

query_id_t next_query_id(void)
{
    return my_atomic_add64(&global_query_id, 1) + 1; // expect: atomic-seqcst-counter
}

query_id_t get_query_id(void)
{
    return my_atomic_load64(&global_query_id); // expect: atomic-seqcst-counter
}

void binlog_written(int64 len)
{
    my_atomic_add64(&binlog_bytes_written, len); // expect: atomic-seqcst-counter
    my_atomic_add64_explicit(&binlog_cache_use, 1, MY_MEMORY_ORDER_RELAXED);
}

void binlog_reset_stats(void)
{
    my_atomic_store64(&binlog_bytes_written, 0); // expect: atomic-seqcst-counter
    my_atomic_store64(&binlog_cache_use, 0); // expect: atomic-seqcst-counter
}

void connection_opened(void)
{
    my_atomic_add32(&connection_count, 1);
}

void connection_closed(void)
{
    if (my_atomic_add32(&connection_count, -1) == 1)
        wake_shutdown_waiter();
}

void thread_lock_add_waiter(void)
{
    my_atomic_add32(&thread_lock_state, THREAD_LOCK_WAITER);
}

int thread_lock_try(void)
{
    int32 unlocked = 0;
    return my_atomic_cas32(&thread_lock_state, &unlocked, 1);
}

void kill_requested(void)
{
    my_atomic_add32(&pending_kills, 1);
}

int32 kills_to_process(void)
{
    return my_atomic_fas32(&pending_kills, 0);
}

void flush_tables(void)
{
    my_atomic_add32(&refresh_version, 1);
}

void table_cache_recovered(void)
{
    my_atomic_store32(&refresh_version, max_version_in_table_cache());
}
