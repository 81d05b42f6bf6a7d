/* Operators on _Atomic objects whose value the scanned configuration (NDEBUG) discards and
 * another one uses: a fix keeps the value and type of what it rewrites wherever any
 * configuration could use it, and a statement of its own with nothing conditional around it
 * keeps the short form. The runner builds the original and the fixed file with each line's
 * flags, runs both and compares what they print:
 * run-with: -UNDEBUG
 * run-with: -DNDEBUG
 */
// hotscan-args: --extra-arg=-DNDEBUG
#include <assert.h>
#include <stdatomic.h>
#include <stdio.h>

static _Atomic int next_id;             /* a ticket: debug builds check the new value */
static _Atomic int in_use;              /* a gauge: debug builds print what is left */
static _Atomic unsigned long bytes_out;
static _Atomic unsigned char laps;      /* narrower than int: `++laps` is no `old + 1` */
static _Atomic int requests;

#ifdef NDEBUG
#define CHECK_POSITIVE(e) ((void)(e))
#else
#define CHECK_POSITIVE(e) check_positive(e)
#endif

static int check_positive(int v)
{
    printf("checked %d\n", v);
    assert(v > 0);
    return v;
}

void take_id(void)
{
#ifndef NDEBUG
    int id =
#endif
        ++next_id;                      // expect: atomic-seqcst-counter
#ifndef NDEBUG
    printf("id %d\n", id);
    assert(id >= 1);
#endif
}

void skip_id(void)
{
    ++next_id;                          // expect: atomic-seqcst-counter
}

void acquire(void)
{
    in_use++;                           // expect: atomic-seqcst-counter
}

void release(void)
{
#ifndef NDEBUG
    int left =
#endif
        --in_use;                       // expect: atomic-seqcst-counter
#ifndef NDEBUG
    printf("left %d\n", left);
#endif
}

void send(unsigned long n)
{
    bytes_out += n;                     // expect: atomic-seqcst-counter
#ifndef NDEBUG
    unsigned long total =
#endif
        bytes_out += 2;                 // expect: atomic-seqcst-counter
#ifndef NDEBUG
    printf("sent %lu\n", total);
#endif
}

void lap(void)
{
    ++laps;                             // expect: atomic-seqcst-counter
#ifndef NDEBUG
    unsigned seen =
#endif
        ++laps;                         // expect: atomic-seqcst-counter
#ifndef NDEBUG
    printf("lap %u\n", seen);
#endif
}

void request(void)
{
    CHECK_POSITIVE(++requests);         // expect: atomic-seqcst-counter
}

int main(void)
{
    for (int i = 0; i < 300; i++) {
        take_id();
        skip_id();
        acquire();
        acquire();
        release();
        send(3);
        lap();
        request();
    }
    printf("%d %d %lu %u %d\n", atomic_load_explicit(&next_id, memory_order_relaxed),
           atomic_load_explicit(&in_use, memory_order_relaxed), atomic_load_explicit(&bytes_out, memory_order_relaxed),
           (unsigned)atomic_load_explicit(&laps, memory_order_relaxed),
           atomic_load_explicit(&requests, memory_order_relaxed));
    return 0;
}
