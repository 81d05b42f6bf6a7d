/*
 * [[gnu::cold]] and [[gnu::hot]] in C++. A cold function is not hot even inside its own
 * loops, and what a hot function reaches only through a cold one (here the deadlock
 * reporter's timestamp helper) is not hot either. The helper the hot function calls
 * directly is, and so is a lock-wait loop in the hot function itself.
 */
#include <chrono>
#include <cstdio>
#include <ctime>
#include <vector>

namespace lock_sys {

struct Lock {
    int trx_id;
    bool granted;
    std::chrono::steady_clock::time_point requested;
};

static std::time_t report_timestamp()
{
    return std::time(nullptr);
}

static void lock_set_requested(Lock &lock)
{
    lock.requested = std::chrono::steady_clock::now(); // expect: timer-hot-path
}

[[gnu::cold]] void report_deadlock(const std::vector<Lock> &cycle)
{
    std::time_t at = report_timestamp();
    for (const Lock &l : cycle) {
        auto waited = std::chrono::steady_clock::now() - l.requested;
        std::printf("%ld trx %d waited %lld ns\n", static_cast<long>(at), l.trx_id,
                    static_cast<long long>(waited.count()));
    }
}

[[gnu::hot]] bool lock_rec_lock(Lock &lock, std::vector<Lock> &queue, int max_spins)
{
    lock_set_requested(lock);
    for (int spin = 0; spin < max_spins && !lock.granted; spin++) {
        if (std::chrono::steady_clock::now() - lock.requested > std::chrono::milliseconds(50)) { // expect: timer-hot-path
            report_deadlock(queue);
            return false;
        }
    }
    queue.push_back(lock);
    return true;
}

} // namespace lock_sys
