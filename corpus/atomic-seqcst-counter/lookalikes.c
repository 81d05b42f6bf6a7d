/*
 * Things that look like counters but are not atomic operations, all negatives: plain and
 * volatile integers incremented with ++ (no atomic operation, nothing to relax), a struct
 * named like an atomic with plain fields, a project function named atomic_inc that is a
 * plain increment, a project helper atomic_fetch_add_relaxed64 that is relaxed inside
 * (its name is not the C11 generic function, and the counter's address is passed to a
 * function), and a local _Atomic counter (locals are not shared objects: the rule judges
 * globals, statics and fields only).
 */
// hotscan-args: --min-confidence low
#include <stdatomic.h>
#include <stdint.h>

struct atomic_stats {
    long atomic_adds;
    long atomic_loads;
};

static long counter;
static volatile unsigned long irq_count;
static struct atomic_stats astats;
static long seq_no;
static uint64_t page_faults;

static inline void atomic_inc(long *p)
{
    (*p)++;
}

static inline uint64_t atomic_fetch_add_relaxed64(uint64_t *p, uint64_t v)
{
    return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}

void on_page_fault(void)
{
    atomic_fetch_add_relaxed64(&page_faults, 1);
}

long count_event(void)
{
    counter++;
    irq_count += 1;
    astats.atomic_adds++;
    atomic_inc(&seq_no);
    return counter + astats.atomic_loads;
}

long count_locally(const int *v, int n)
{
    _Atomic long hits = 0;
    for (int i = 0; i < n; i++)
        if (v[i])
            hits++;
    return atomic_load(&hits);
}
