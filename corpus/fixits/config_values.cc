// Operators whose value the scanned configuration (NDEBUG) discards and another one uses: a
// fix keeps the value and type of what it rewrites wherever any configuration could use
// it, and a statement of its own with nothing conditional around it keeps the short form.
// The runner builds the original and the fixed file with each line's flags, runs both and
// compares what they print:
// run-with: -UNDEBUG
// run-with: -DNDEBUG
// run-with: -DNDEBUG -DBIG_RETRIES
// hotscan-args: --extra-arg=-DNDEBUG --min-confidence=low
#include <atomic>
#include <cassert>
#include <cstdio>

static std::atomic<int> next_id;         // a ticket: debug builds check the new value
static std::atomic<int> in_use;          // a gauge: debug builds print what is left
static std::atomic<long> bytes_out;
static std::atomic<unsigned char> laps;  // narrower than int: `++laps` is no `old + 1`
static std::atomic<int> requests;
static std::atomic<int> retries;
static std::atomic<int> window{2147483000};

#ifdef NDEBUG
#define CHECK_POSITIVE(e) ((void)(e))
#else
#define CHECK_POSITIVE(e) check_positive(e)
#endif

static int check_positive(int v)
{
    std::printf("checked %d\n", v);
    assert(v > 0);
    return v;
}

void take_id(void)
{
#ifndef NDEBUG
    int id =
#endif
        ++next_id;                       // expect: atomic-seqcst-counter
#ifndef NDEBUG
    std::printf("id %d\n", id);
    assert(id >= 1);
#endif
}

void skip_id(void)
{
    ++next_id;                           // expect: atomic-seqcst-counter
}

void acquire(void)
{
    in_use++;                            // expect: atomic-seqcst-counter
}

void release(void)
{
#ifndef NDEBUG
    int left =
#endif
        --in_use;                        // expect: atomic-seqcst-counter
#ifndef NDEBUG
    std::printf("left %d\n", left);
#endif
}

void send(void)
{
#ifndef NDEBUG
    long total =
#endif
        bytes_out += 2;                  // expect: atomic-seqcst-counter
#ifndef NDEBUG
    std::printf("sent %ld\n", total);
#endif
}

void lap(void)
{
    ++laps;                              // expect: atomic-seqcst-counter
#ifndef NDEBUG
    unsigned seen =
#endif
        ++laps;                          // expect: atomic-seqcst-counter
#ifndef NDEBUG
    std::printf("lap %u\n", seen);
#endif
}

void request(void)
{
    CHECK_POSITIVE(++requests);          // expect: atomic-seqcst-counter
#ifndef NDEBUG
    int before =
#endif
        requests++;                      // expect: atomic-seqcst-counter
#ifndef NDEBUG
    std::printf("before %d\n", before);
#endif
}

void retry(void)
{
    retries +=                           // expect: atomic-seqcst-counter
#ifdef BIG_RETRIES
        4 +
#endif
        1;
}

void forget_retries(void)
{
#ifndef NDEBUG
    int was =
#endif
        retries = 0;                     // expect: atomic-seqcst-counter
#ifndef NDEBUG
    std::printf("was %d\n", was);
#endif
}

long widen(long n)
{
    return window += n;                  // expect: atomic-seqcst-counter
}

int main(void)
{
    for (int i = 0; i < 300; i++) {
        take_id();
        skip_id();
        acquire();
        acquire();
        release();
        send();
        lap();
        request();
        retry();
    }
    std::printf("widened %ld\n", widen(1000));
    std::printf("%d %d %ld %u %d %d\n", next_id.load(std::memory_order_relaxed), in_use.load(std::memory_order_relaxed),
                bytes_out.load(std::memory_order_relaxed), (unsigned)laps.load(std::memory_order_relaxed),
                requests.load(std::memory_order_relaxed), retries.load(std::memory_order_relaxed));
    forget_retries();
    return 0;
}
