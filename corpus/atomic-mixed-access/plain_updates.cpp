/*
 * C++: a plain integer field bumped with __atomic builtins in one member function and with
 * a plain `+=` in another races (atomic-mixed-access). A std::atomic's `++` is the atomic
 * operator itself, seq_cst (atomic-seqcst-counter), never a plain update.
 * Negatives: `Histogram::count_` (std::atomic, `count_++` and fetch_add);
 * `Histogram::max_` (only plain writes).
 */
// hotscan-args: --min-confidence low
#include <atomic>
#include <cstdint>

class Histogram {
public:
    void Add(uint64_t value)
    {
        count_++; // expect: atomic-seqcst-counter
        __atomic_fetch_add(&sum_, value, __ATOMIC_RELAXED);
        if (value > max_)
            max_ = value;
    }
    void Merge(const Histogram &other)
    {
        count_.fetch_add(other.count_.load(std::memory_order_relaxed), std::memory_order_relaxed);
        sum_ += other.sum_; // expect: atomic-mixed-access
    }
    uint64_t Average() const
    {
        return __atomic_load_n(&sum_, __ATOMIC_RELAXED) / (count_.load(std::memory_order_relaxed) + 1);
    }

private:
    std::atomic<uint64_t> count_{0};
    uint64_t sum_ = 0;
    uint64_t max_ = 0;
};
