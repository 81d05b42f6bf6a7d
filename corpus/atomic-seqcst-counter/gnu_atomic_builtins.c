/*
 * GCC/Clang __atomic builtins on plain integers, as haproxy and redis use them: the order
 * argument is decoded. __ATOMIC_SEQ_CST operations on a counter are flagged, including
 * through a statement macro (HA_ATOMIC_INC, reported where the macro is used); the same
 * counter's __ATOMIC_RELAXED and __ATOMIC_ACQUIRE operations are not (only seq_cst is).
 * Negatives: srv_cur_sess is bumped relaxed but its decrement decides when the server
 * is drained (refcount-like); task_wakeups is counted but drained by __atomic_exchange_n;
 * listener_state holds a pause nesting count above a PAUSED bit (__atomic_or_fetch);
 * max_sess_rate is a high-water mark raised by __atomic_compare_exchange_n and never added
 * to; total_ops is a counter but relaxed everywhere.
 */
// hotscan-args: --min-confidence low
#include <stdbool.h>
#include <stdint.h>

#define HA_ATOMIC_INC(val) __atomic_add_fetch((val), 1, __ATOMIC_SEQ_CST)
#define HA_ATOMIC_ADD(val, i) __atomic_add_fetch((val), (i), __ATOMIC_SEQ_CST)
#define HA_ATOMIC_LOAD(val) __atomic_load_n((val), __ATOMIC_SEQ_CST)
#define _HA_ATOMIC_INC(val) __atomic_add_fetch((val), 1, __ATOMIC_RELAXED)

struct proxy_counters {
    uint64_t cum_req;
    uint64_t failed_req;
    uint64_t bytes_out;
};

static struct proxy_counters fe_counters;
static unsigned int srv_cur_sess;
static unsigned int task_wakeups;
static unsigned int listener_state;
static unsigned int max_sess_rate;
static unsigned long total_ops;

extern void server_drained(void);
extern void run_tasks(unsigned int n);

void stream_new(void)
{
    __atomic_fetch_add(&fe_counters.cum_req, 1, __ATOMIC_SEQ_CST); // expect: atomic-seqcst-counter
    __atomic_fetch_add(&srv_cur_sess, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&total_ops, 1, __ATOMIC_RELAXED);
}

void stream_failed(void)
{
    HA_ATOMIC_INC(&fe_counters.failed_req); // expect: atomic-seqcst-counter
}

void stream_end(uint64_t bytes)
{
    HA_ATOMIC_ADD(&fe_counters.bytes_out, bytes); // expect: atomic-seqcst-counter
    _HA_ATOMIC_INC(&fe_counters.cum_req);
    if (__atomic_sub_fetch(&srv_cur_sess, 1, __ATOMIC_SEQ_CST) == 0)
        server_drained();
}

uint64_t stats_fill_fe(uint64_t *out)
{
    out[0] = __atomic_load_n(&fe_counters.cum_req, __ATOMIC_SEQ_CST); // expect: atomic-seqcst-counter
    out[1] = HA_ATOMIC_LOAD(&fe_counters.failed_req); // expect: atomic-seqcst-counter
    out[2] = __atomic_load_n(&fe_counters.bytes_out, __ATOMIC_ACQUIRE);
    return __atomic_load_n(&total_ops, __ATOMIC_RELAXED);
}

void stats_clear_fe(void)
{
    __atomic_store_n(&fe_counters.cum_req, 0, __ATOMIC_SEQ_CST); // expect: atomic-seqcst-counter
    __atomic_store_n(&fe_counters.failed_req, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&total_ops, 0, __ATOMIC_RELAXED);
}

void task_wakeup(void)
{
    __atomic_add_fetch(&task_wakeups, 1, __ATOMIC_SEQ_CST);
}

void process_runnable_tasks(void)
{
    run_tasks(__atomic_exchange_n(&task_wakeups, 0, __ATOMIC_SEQ_CST));
}

enum { LI_PAUSED = 1u, LI_PAUSE_ONE = 1u << 16 };

void listener_pause(void)
{
    __atomic_add_fetch(&listener_state, LI_PAUSE_ONE, __ATOMIC_SEQ_CST);
    __atomic_or_fetch(&listener_state, LI_PAUSED, __ATOMIC_SEQ_CST);
}

void update_max_sess_rate(unsigned int rate)
{
    unsigned int cur = __atomic_load_n(&max_sess_rate, __ATOMIC_SEQ_CST);
    while (rate > cur && !__atomic_compare_exchange_n(&max_sess_rate, &cur, rate, false, __ATOMIC_SEQ_CST,
                                                      __ATOMIC_SEQ_CST))
        ;
}
