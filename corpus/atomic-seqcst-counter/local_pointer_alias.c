/*
 * Operations through a local pointer that names what its declaration picks, as Open
 * vSwitch's table statistics do (`atomic_ulong *stat = rule ? &tbl->n_matched :
 * &tbl->n_missed; atomic_add(stat, n, &orig);`): the local is only another name for those
 * atomics, so the operation is on each of them, and taking their addresses for it is no
 * escape. With two targets the finding has no fix-it (relaxing the call relaxes both); with
 * one it has.
 * Negatives: a local pointer passed on (`wait_for(w)`) or assigned again may point
 * anywhere: `waiters` stays escaped; `refs` through a local is a reference count
 * (its decrement's result decides the free).
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

struct table {
    atomic_ulong n_matched;
    atomic_ulong n_missed;
};

struct object {
    atomic_uint refs;
};

struct table tables[4];
atomic_ulong hits;
atomic_int waiters;

void wait_for(atomic_int *w);

void lookup(int id, bool matched, unsigned long packets)
{
    struct table *tbl = &tables[id];
    atomic_ulong *stat = matched ? &tbl->n_matched : &tbl->n_missed;
    atomic_fetch_add_explicit(stat, packets, memory_order_seq_cst); // expect: atomic-seqcst-counter, atomic-seqcst-counter
}

unsigned long table_stats(int id)
{
    return atomic_load_explicit(&tables[id].n_matched, memory_order_relaxed) +
           atomic_load_explicit(&tables[id].n_missed, memory_order_relaxed);
}

void count_hit(void)
{
    atomic_ulong *h = &hits;
    atomic_fetch_add_explicit(h, 1, memory_order_seq_cst); // expect: atomic-seqcst-counter
}

void enter(void)
{
    atomic_int *w = &waiters;
    atomic_fetch_add_explicit(w, 1, memory_order_seq_cst);
    wait_for(w);
}

void object_unref(struct object *o)
{
    atomic_uint *r = &o->refs;
    if (atomic_fetch_sub_explicit(r, 1, memory_order_seq_cst) == 1)
        free(o);
}

void object_ref(struct object *o)
{
    atomic_fetch_add_explicit(&o->refs, 1, memory_order_seq_cst);
}
