/*
 * C11 synchronization primitives that add to atomics, all negatives:
 *  - aio_pending: in-flight I/O count, incremented and decremented with the results
 *    discarded, but shutdown spins until it reaches zero (a loop-condition load): the
 *    decrement publishes the completed I/O to the waiter;
 *  - stats_seq: a C seqlock sequence, incremented by the writer and re-read by readers
 *    in a do/while condition;
 *  - init_state: a once-guard moved from 0 to 1 with a CAS, then to 2 with a store of a
 *    constant;
 *  - stats_lock: an atomic_flag spinlock (test-and-set is an exchange).
 */
// hotscan-args: --min-confidence low
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>

static atomic_uint aio_pending;
static atomic_uint stats_seq;
static uint64_t stats_rows, stats_bytes;
static atomic_int init_state;
static atomic_flag stats_lock = ATOMIC_FLAG_INIT;

extern void do_init(void);
extern void submit_io(void *buf);

void aio_submit(void *buf)
{
    atomic_fetch_add(&aio_pending, 1);
    submit_io(buf);
}

void aio_complete(void)
{
    atomic_fetch_sub(&aio_pending, 1);
}

void aio_drain(void)
{
    while (atomic_load(&aio_pending) != 0)
        sched_yield();
}

void stats_update(uint64_t rows, uint64_t bytes)
{
    atomic_fetch_add(&stats_seq, 1);
    stats_rows += rows;
    stats_bytes += bytes;
    atomic_fetch_add(&stats_seq, 1);
}

uint64_t stats_read_rows(void)
{
    unsigned s;
    uint64_t rows;
    do {
        s = atomic_load(&stats_seq);
        rows = stats_rows;
    } while ((s & 1) || s != atomic_load(&stats_seq));
    return rows;
}

void init_once(void)
{
    int expected = 0;
    if (atomic_compare_exchange_strong(&init_state, &expected, 1)) {
        do_init();
        atomic_store(&init_state, 2);
    }
}

void stats_locked_add(uint64_t rows)
{
    while (atomic_flag_test_and_set(&stats_lock))
        sched_yield();
    stats_rows += rows;
    atomic_flag_clear(&stats_lock);
}
