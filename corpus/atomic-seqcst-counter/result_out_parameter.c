/*
 * Atomic macros that hand the old value back through an out-parameter, as Open vSwitch's
 * ovs-atomic.h does: `#define atomic_sub(RMW, ARG, ORIG) (*(ORIG) = atomic_fetch_sub_explicit(
 * RMW, ARG, memory_order_seq_cst), (void) 0)`. A counter's add or subtract whose old value
 * goes to a local nothing reads (`&junk`, `&orig` never used) is a counter update:
 * netflow_count is reported. The macros also serve the reference count, so their definition
 * cannot be edited for the counter alone; the fix-it is at the call, through the
 * `_explicit` form the header defines beside each.
 * Negatives: `refs`, whose subtract's old value is tested (`if (orig == 1)`), is a reference
 * count; `next_id`'s old value is returned, an id generator the subtract-free verdict keeps
 * (reported: ids need no order).
 */
#include <stdatomic.h>
#include <stdlib.h>

#define atomic_read(SRC, DST) atomic_read_explicit(SRC, DST, memory_order_seq_cst)
#define atomic_read_explicit(SRC, DST, ORDER) (*(DST) = atomic_load_explicit(SRC, ORDER), (void) 0)
#define atomic_add(RMW, ARG, ORIG) atomic_add_explicit(RMW, ARG, ORIG, memory_order_seq_cst)
#define atomic_add_explicit(RMW, ARG, ORIG, ORDER) (*(ORIG) = atomic_fetch_add_explicit(RMW, ARG, ORDER), (void) 0)
#define atomic_sub(RMW, ARG, ORIG) atomic_sub_explicit(RMW, ARG, ORIG, memory_order_seq_cst)
#define atomic_sub_explicit(RMW, ARG, ORIG, ORDER) (*(ORIG) = atomic_fetch_sub_explicit(RMW, ARG, ORDER), (void) 0)

struct netflow {
    atomic_uint refs;
    int engine_id;
};

static atomic_uint netflow_count;
static atomic_uint next_id;

struct netflow *netflow_create(void)
{
    struct netflow *nf = calloc(1, sizeof *nf);
    unsigned int junk;
    if (!nf)
        return NULL;
    atomic_add(&nf->refs, 1, &junk);
    atomic_add(&netflow_count, 1, &junk); // expect: atomic-seqcst-counter
    return nf;
}

void netflow_unref(struct netflow *nf)
{
    unsigned int orig;
    atomic_sub(&nf->refs, 1, &orig);
    if (orig == 1) {
        unsigned int gone;
        atomic_sub(&netflow_count, 1, &gone); // expect: atomic-seqcst-counter
        free(nf);
    }
}

unsigned int netflow_count_get(void)
{
    unsigned int n;
    atomic_read(&netflow_count, &n); // expect: atomic-seqcst-counter
    return n;
}

unsigned int new_id(void)
{
    unsigned int id;
    atomic_add(&next_id, 1, &id); // expect: atomic-seqcst-counter
    return id;
}
