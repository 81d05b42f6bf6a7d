/*
 * Arrays of counters and counter fields in C11: a per-command array (like MySQL's
 * com_stat[SQLCOM_END]), a per-worker array of structs, and fields reached through
 * pointers. The array (or the field, for every element and instance) is one variable:
 * its seq_cst adds, loads and resets are flagged.
 * Negatives: shard_refs[], an array of refcounts whose decrement result is tested;
 * worker_stats.state, a field stored from computed values (a state, not a count).
 */
// hotscan-args: --min-confidence low
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

enum sql_command { SQLCOM_SELECT, SQLCOM_INSERT, SQLCOM_UPDATE, SQLCOM_DELETE, SQLCOM_END };

#define MAX_WORKERS 64

struct worker_stats {
    _Atomic uint64_t jobs_done;
    _Atomic uint64_t busy_ns;
    _Atomic int state;
};

static _Atomic uint64_t com_stat[SQLCOM_END];
static struct worker_stats workers[MAX_WORKERS];
static atomic_int shard_refs[16];

extern void shard_unload(int shard);

void dispatch_command(enum sql_command cmd)
{
    atomic_fetch_add(&com_stat[cmd], 1); // expect: atomic-seqcst-counter
}

void job_finished(int worker, uint64_t ns)
{
    struct worker_stats *ws = &workers[worker];
    ws->jobs_done++; // expect: atomic-seqcst-counter
    atomic_fetch_add(&ws->busy_ns, ns); // expect: atomic-seqcst-counter
    atomic_store(&ws->state, (int)(ns > 1000));
}

uint64_t show_com_status(enum sql_command cmd)
{
    return atomic_load(&com_stat[cmd]); // expect: atomic-seqcst-counter
}

uint64_t total_jobs(void)
{
    uint64_t sum = 0;
    for (int i = 0; i < MAX_WORKERS; i++)
        sum += workers[i].jobs_done; // expect: atomic-seqcst-counter
    return sum;
}

void flush_status(void)
{
    for (int c = 0; c < SQLCOM_END; c++)
        com_stat[c] = 0; // expect: atomic-seqcst-counter
    for (int i = 0; i < MAX_WORKERS; i++) {
        atomic_store_explicit(&workers[i].jobs_done, 0, memory_order_relaxed);
        atomic_store(&workers[i].busy_ns, 0); // expect: atomic-seqcst-counter
    }
}

void shard_pin(int shard)
{
    shard_refs[shard]++;
}

void shard_unpin(int shard)
{
    if (atomic_fetch_sub(&shard_refs[shard], 1) == 1)
        shard_unload(shard);
}

void worker_set_busy(int worker)
{
    workers[worker].state++;
}
