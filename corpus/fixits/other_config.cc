// Counters read under one configuration and not another (issue 10, item 5). The fixes keep
// each expression's value, so the fixed file behaves the same whichever way it is built;
// the corpus runner builds and runs it so:
// run-with: -DDBUG_OFF
// run-with: -UDBUG_OFF
// run-with: -DDEBUG_DRAIN
#include <atomic>
#include <cassert>
#ifdef DBUG_OFF
#define DBUG_ASSERT(e) ((void)0)
#else
#define DBUG_ASSERT(e) assert(e)
#endif

static std::atomic<int> served;
static std::atomic<unsigned long> bytes_out;
static std::atomic<int> in_flight;           // a debug build waits on it: no fix-it
static std::atomic<unsigned char> wraps;     // narrower than int: `++wraps` is no `old + 1`

int serve(unsigned long n)
{
    int v = ++served;                        // expect: atomic-seqcst-counter
    DBUG_ASSERT(v >= 1);
    unsigned long total = bytes_out += n;    // expect: atomic-seqcst-counter
    DBUG_ASSERT(total >= n);
    in_flight++;                             // expect: atomic-seqcst-counter
    in_flight--;                             // expect: atomic-seqcst-counter
    return v;
}

int lap(void)
{
    return ++wraps;                          // expect: atomic-seqcst-counter
}

void drain(void)
{
#ifdef DEBUG_DRAIN
    while (in_flight.load() != 0) {
    }
#endif
}

int main(void)
{
    for (int i = 1; i <= 300; i++) {
        if (serve(10) != i)
            return 1;
        if (lap() != i % 256)
            return 2;
    }
    drain();
    return 0;
}
