/*
 * An atomic add in an arm of an if/else inside a statement macro (haproxy's and redis's
 * stats macros: `do { if (shared) __atomic_add_fetch(...); else ...; } while (0)`). The
 * add sits in an arm; its result decides nothing. Before, a whole if/else written in one
 * macro expansion was read as if it had no else: the then arm was walked as part of the
 * condition, and the counter was taken for a reference count ("an add/sub result decides
 * a condition"). COUNT_REQ is expanded only on counters, so its definition gets the fix.
 * Negatives: `first_use`, whose add's result really decides the macro's condition; `refs`,
 * whose decrement decides whether the object is freed (both in macros with an else).
 */
// hotscan-args: --min-confidence low
#include <stdint.h>
#include <stdlib.h>

extern int stats_shared;
static __thread uint64_t local_reqs;

#define COUNT_REQ(ctr)                                        \
    do {                                                      \
        if (stats_shared)                                     \
            __atomic_add_fetch(&(ctr), 1, __ATOMIC_SEQ_CST);  \
        else                                                  \
            local_reqs++;                                     \
    } while (0)

#define ONCE(ctr, init)                                            \
    do {                                                           \
        if (__atomic_add_fetch(&(ctr), 1, __ATOMIC_SEQ_CST) == 1)  \
            init();                                                \
        else                                                       \
            local_reqs++;                                          \
    } while (0)

#define PUT(obj)                                                    \
    do {                                                            \
        if (__atomic_sub_fetch(&(obj)->refs, 1, __ATOMIC_SEQ_CST))  \
            local_reqs++;                                           \
        else                                                        \
            free(obj);                                              \
    } while (0)

struct session {
    unsigned refs;
};

static uint64_t cum_req, cum_sess;
static unsigned first_use;

extern void pool_init(void);

void stream_new(struct session *s)
{
    COUNT_REQ(cum_req); // expect: atomic-seqcst-counter
    COUNT_REQ(cum_sess); // expect: atomic-seqcst-counter
    ONCE(first_use, pool_init);
    PUT(s);
}

uint64_t stats_total(void)
{
    return __atomic_load_n(&cum_req, __ATOMIC_RELAXED) + __atomic_load_n(&cum_sess, __ATOMIC_RELAXED) + local_reqs;
}
