/* Operations written through project macros: STAT_INC is used only on counters, so its
 * definition gets the relaxed order (one edit, however many findings point at it).
 * ATOMIC_ADD is also used on a variable that is not a counter (its result decides a
 * condition), so its uses are reported but the macro is left for a person to change. */
#define STAT_INC(p) __atomic_add_fetch((p), 1, __ATOMIC_RELAXED)
#define ATOMIC_ADD(p, n) __atomic_add_fetch((p), (n), __ATOMIC_SEQ_CST)

static unsigned long cache_hits, cache_misses;
static long bytes_sent;
static long in_flight;

void cache_hit(void)
{
    STAT_INC(&cache_hits); // expect: atomic-seqcst-counter
}

void cache_miss(void)
{
    STAT_INC(&cache_misses); // expect: atomic-seqcst-counter
}

void sent(long n)
{
    ATOMIC_ADD(&bytes_sent, n); // expect: atomic-seqcst-counter
}

int request_done(void)
{
    return ATOMIC_ADD(&in_flight, -1) == 0;
}
