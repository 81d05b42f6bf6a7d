/*
 * A spin-then-yield wait that times its own yields (rocksdb's WriteThread::AwaitState
 * shape, found reviewing rocksdb): each pass calls std::this_thread::yield(), a system call
 * (sched_yield) dearer than the clock read beside it, which measures whether yielding is
 * slow. The loop is paced by the yield, so its clock reads are not a per-request cost.
 * Positive: the same clock read in a loop that only spins. No hot root: the loops decide.
 */
// hotscan-args: --min-confidence low
#include <atomic>
#include <chrono>
#include <thread>

using Clock = std::chrono::steady_clock;

struct Writer {
    std::atomic<unsigned> state{0};
};

static long slow_yields;

unsigned await_state(Writer *w, unsigned goal)
{
    auto begin = Clock::now();
    auto last = begin;
    while (last - begin <= std::chrono::microseconds(100)) {
        std::this_thread::yield();
        unsigned s = w->state.load(std::memory_order_acquire);
        if (s & goal)
            return s;
        auto now = Clock::now();
        if (now - last >= std::chrono::microseconds(3))
            slow_yields++;
        last = now;
    }
    long spins = 0;
    for (int i = 0; i < 64; i++) {
        if (w->state.load(std::memory_order_acquire) & goal)
            break;
        spins += Clock::now().time_since_epoch().count() & 1; // expect: timer-hot-path
    }
    return (unsigned)spins;
}
