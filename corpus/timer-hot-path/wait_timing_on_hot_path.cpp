/*
 * A hot root that, on some calls, waits for another thread with a spin-then-yield loop
 * timing its own yields (rocksdb's DBImpl::WriteImpl -> JoinBatchGroup -> AwaitState,
 * found reviewing rocksdb). The wait's clock reads are reached from the hot root, but they
 * time a wait: a caller that gets here is waiting anyway. Reported low, not high (hidden by
 * default). Positive: the same root's own per-request clock read, and a helper on the path
 * whose loop blocks only on an error branch (that loop does not wait).
 */
// hotscan-args: --hot submit
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

using Clock = std::chrono::steady_clock;

struct Writer {
    std::atomic<unsigned> state{0};
};

static long slow_yields;
static long max_yield_usec = 100;

static unsigned await_state(Writer *w, unsigned goal)
{
    unsigned s = w->state.load(std::memory_order_acquire);
    if (max_yield_usec > 0) {
        auto begin = Clock::now();
        auto last = begin;
        while (last - begin <= std::chrono::microseconds(max_yield_usec)) {
            std::this_thread::yield();
            s = w->state.load(std::memory_order_acquire);
            if (s & goal)
                break;
            auto now = Clock::now();
            if (now - last >= std::chrono::microseconds(3))
                slow_yields++;
            last = now;
        }
    }
    return s;
}

static long checksum(const char *p, long n)
{
    long sum = Clock::now().time_since_epoch().count(); // expect: timer-hot-path
    for (long i = 0; i < n; i++) {
        if (p[i] == 0)
            fprintf(stderr, "zero byte at %ld\n", i);
        sum += p[i];
    }
    return sum;
}

long submit(Writer *w, const char *p, long n, bool leader)
{
    long started = Clock::now().time_since_epoch().count(); // expect: timer-hot-path
    if (!leader)
        await_state(w, 1);
    return checksum(p, n) + started;
}
