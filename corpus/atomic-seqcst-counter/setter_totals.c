/*
 * Setters of a counter's new total in C: an _Atomic counter assigned a parameter, and an
 * __atomic_store_n of a parameter into a plain integer driven by builtins (the stats an
 * admin command restores, redis-style). Each such store is a reset when the variable is
 * otherwise only added to and read; before, it was a computed store and the counters were
 * not reported.
 * Negatives: `total_keys`, set through a wrapper (`stat_set`, whose callers pass any value,
 * here a computed one); `repl_offset`, set from a parameter but compared with a replica's
 * offset (a published value).
 */
// hotscan-args: --min-confidence low
#include <stdatomic.h>
#include <stdint.h>

static _Atomic unsigned long long stat_expired_keys;
static unsigned long long stat_evicted_keys;
static atomic_ullong total_keys;
static unsigned long long repl_offset;

extern unsigned long long scan_keys(void);

static void stat_set(atomic_ullong *p, unsigned long long v)
{
    atomic_store(p, v);
}

void restore_stats(unsigned long long expired, unsigned long long evicted)
{
    stat_expired_keys = expired; // expect: atomic-seqcst-counter
    __atomic_store_n(&stat_evicted_keys, evicted, __ATOMIC_SEQ_CST); // expect: atomic-seqcst-counter
    stat_set(&total_keys, scan_keys() + expired);
}

void expire_key(void)
{
    stat_expired_keys++; // expect: atomic-seqcst-counter
    __atomic_add_fetch(&stat_evicted_keys, 1, __ATOMIC_SEQ_CST); // expect: atomic-seqcst-counter
    atomic_fetch_add(&total_keys, 1);
}

void set_repl_offset(unsigned long long off)
{
    __atomic_store_n(&repl_offset, off, __ATOMIC_SEQ_CST);
}

void feed_replicas(unsigned long long len)
{
    __atomic_add_fetch(&repl_offset, len, __ATOMIC_SEQ_CST);
}

int replica_in_sync(unsigned long long replica_off)
{
    return __atomic_load_n(&repl_offset, __ATOMIC_SEQ_CST) >= replica_off;
}

unsigned long long info_keys(void)
{
    return stat_expired_keys + __atomic_load_n(&stat_evicted_keys, __ATOMIC_RELAXED) + // expect: atomic-seqcst-counter
           atomic_load(&total_keys);
}
