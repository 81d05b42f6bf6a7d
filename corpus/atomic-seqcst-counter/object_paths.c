/*
 * Object paths in C (issue 10): one padding struct for several globals, arrays of it, and
 * a static inline wrapper hotscan is not told about. `hits.v` and `per_cpu[i].v` are
 * counters; `state.v` of the same struct type stores computed values (a published state;
 * a setter storing `s` as given would be a reset), which makes only that object no
 * counter. pc_add() only adds to its parameter, so its call is an add on `misses.v`.
 */
// hotscan-args: --min-confidence low
#include <stdatomic.h>

struct padded_counter {
    _Atomic unsigned long v;
    char pad[64 - sizeof(unsigned long)];
};

static struct padded_counter hits, misses, state;
static struct padded_counter per_cpu[8];

static inline void pc_add(_Atomic unsigned long *p, unsigned long n)
{
    atomic_fetch_add(p, n);
}

void cache_hit(int cpu)
{
    atomic_fetch_add(&hits.v, 1); // expect: atomic-seqcst-counter
    per_cpu[cpu & 7].v++; // expect: atomic-seqcst-counter
}

void cache_miss(void)
{
    pc_add(&misses.v, 1); // expect: atomic-seqcst-counter
}

void set_state(unsigned long s)
{
    atomic_store(&state.v, s << 1);
}

void bump_state(void)
{
    atomic_fetch_add(&state.v, 1);
}

unsigned long cache_hits(void)
{
    return atomic_load(&hits.v); // expect: atomic-seqcst-counter
}
