/*
 * A C11 server's statistics through <stdatomic.h>: the generic functions without
 * _explicit (seq_cst), _explicit with memory_order_seq_cst, and the operators on _Atomic
 * objects (++, +=, a plain read is a seq_cst load, `= 0` a seq_cst store) are flagged on
 * counters; _explicit with memory_order_relaxed is not. A function-local static is a
 * shared counter like a global.
 * Negatives: cache_refs (`if (--e->refs == 0) free(e)`), accepting (a flag stored from a
 * computed value and polled by the accept loop), next_txn_id (allocated with fetch_add but
 * raised by a CAS loop after recovery), pending_signals (counted by a signal handler but
 * drained with atomic_exchange), shard_state (a generation bumped with += next to flag bits
 * set and cleared with |= and atomic_fetch_and).
 */
// hotscan-args: --min-confidence low
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static atomic_ulong n_requests;
static atomic_ulong n_errors;
static _Atomic uint64_t bytes_sent;
static _Atomic long n_clients;
static atomic_bool accepting;
static _Atomic uint64_t next_txn_id;
static atomic_int pending_signals;
static _Atomic unsigned shard_state;

enum { SHARD_DIRTY = 1u, SHARD_GEN_ONE = 1u << 8 };

struct cache_entry {
    _Atomic int refs;
    char *value;
};

extern int accept_one(int listen_fd);

void request_done(int ok, size_t len)
{
    if (ok)
        atomic_fetch_add(&n_requests, 1); // expect: atomic-seqcst-counter
    else
        atomic_fetch_add_explicit(&n_errors, 1, memory_order_seq_cst); // expect: atomic-seqcst-counter
    bytes_sent += len; // expect: atomic-seqcst-counter
}

void request_retry(void)
{
    atomic_fetch_sub_explicit(&n_requests, 1, memory_order_relaxed);
}

void client_connected(void)
{
    n_clients++; // expect: atomic-seqcst-counter
}

void client_gone(void)
{
    --n_clients; // expect: atomic-seqcst-counter
}

unsigned long slow_path_taken(void)
{
    static _Atomic unsigned long calls;
    return ++calls; // expect: atomic-seqcst-counter
}

void stats_print(FILE *out)
{
    fprintf(out, "requests %lu errors %lu\n", atomic_load(&n_requests), // expect: atomic-seqcst-counter
            atomic_load_explicit(&n_errors, memory_order_relaxed));
    fprintf(out, "bytes %llu clients %ld\n", (unsigned long long)bytes_sent, n_clients); // expect: atomic-seqcst-counter, atomic-seqcst-counter
    if (bytes_sent > 1000000000ULL) // expect: atomic-seqcst-counter
        fputs("more than a gigabyte served\n", out);
}

void stats_reset(void)
{
    atomic_store(&n_requests, 0); // expect: atomic-seqcst-counter
    atomic_store_explicit(&n_errors, 0, memory_order_relaxed);
    bytes_sent = 0; // expect: atomic-seqcst-counter
}

void cache_entry_release(struct cache_entry *e)
{
    if (--e->refs == 0) {
        free(e->value);
        free(e);
    }
}

void cache_entry_ref(struct cache_entry *e)
{
    e->refs++;
}

void accept_loop(int listen_fd, bool enable)
{
    atomic_store(&accepting, enable);
    while (atomic_load(&accepting)) {
        if (accept_one(listen_fd) < 0)
            break;
    }
}

uint64_t txn_assign_id(void)
{
    return atomic_fetch_add(&next_txn_id, 1);
}

void txn_recovered(uint64_t id)
{
    uint64_t cur = atomic_load(&next_txn_id);
    while (id >= cur && !atomic_compare_exchange_weak(&next_txn_id, &cur, id + 1))
        ;
}

void on_sighup(int sig)
{
    (void)sig;
    atomic_fetch_add(&pending_signals, 1);
}

int signals_to_handle(void)
{
    return atomic_exchange(&pending_signals, 0);
}

void shard_modified(void)
{
    shard_state |= SHARD_DIRTY;
}

void shard_checkpointed(void)
{
    atomic_fetch_and(&shard_state, ~SHARD_DIRTY);
    shard_state += SHARD_GEN_ONE;
}
