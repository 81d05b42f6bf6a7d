/* C11 counters read under one configuration and not another (issue 10, item 5); the fixed
 * file is built and run so:
 * run-with: -DNDEBUG
 * run-with: -UNDEBUG
 * run-with: -DDEBUG_DRAIN
 */
#include <assert.h>
#include <stdatomic.h>

static _Atomic int served;
static _Atomic unsigned long bytes_out;
static _Atomic int in_flight;        /* a debug build waits on it: no fix-it */
static _Atomic unsigned short laps;  /* narrower than int: `++laps` is no `old + 1` */

int serve(unsigned long n)
{
    int v = (atomic_fetch_add_explicit(&served, 1, memory_order_relaxed) + 1);                        // expect: atomic-seqcst-counter
    assert(v >= 1);
    unsigned long total = (atomic_fetch_add_explicit(&bytes_out, n, memory_order_relaxed) + n);    // expect: atomic-seqcst-counter
    assert(total >= n);
    in_flight++;                             // expect: atomic-seqcst-counter
    in_flight--;                             // expect: atomic-seqcst-counter
    return v;
}

int lap(void)
{
    return ++laps;                           // expect: atomic-seqcst-counter
}

void drain(void)
{
#ifdef DEBUG_DRAIN
    while (atomic_load(&in_flight) != 0) {
    }
#endif
}

int main(void)
{
    for (int i = 1; i <= 300; i++) {
        if (serve(10) != i)
            return 1;
        if (lap() != i)
            return 2;
    }
    drain();
    return 0;
}
