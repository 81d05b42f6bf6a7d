/*
 * C++ code that looks like counting atomics but gives hotscan nothing to relax, all
 * negatives: a class named atomic_counter holding a plain integer; volatile integers;
 * a std::atomic that is a local (not shared, not judged); std::shared_ptr copies (the
 * reference count's atomics live in the standard library, not in the project); and a
 * project wrapper, not listed in rule data, whose std::atomic member is only ever used
 * with explicit relaxed orders (already relaxed: never flagged).
 */
// hotscan-args: --min-confidence low
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

class atomic_counter {
public:
    void inc() { ++m_value; }
    uint64_t get() const { return m_value; }

private:
    uint64_t m_value = 0;
};

template <typename T> class Stat_counter {
public:
    void add(T n) { m_v.fetch_add(n, std::memory_order_relaxed); }
    T get() const { return m_v.load(std::memory_order_relaxed); }
    void reset() { m_v.store(0, std::memory_order_relaxed); }

private:
    std::atomic<T> m_v{0};
};

struct Cache {
    std::shared_ptr<std::vector<int>> snapshot;
};

static atomic_counter lookups;
static volatile uint32_t irq_seen;
static Stat_counter<uint64_t> cache_hits;

std::shared_ptr<std::vector<int>> cache_get(const Cache &c)
{
    lookups.inc();
    irq_seen = irq_seen + 1;
    cache_hits.add(1);
    std::shared_ptr<std::vector<int>> copy = c.snapshot;
    return copy;
}

uint64_t count_matches(const std::vector<int> &v, int key)
{
    std::atomic<uint64_t> matches{0};
    for (int x : v)
        if (x == key)
            matches++;
    return matches.load() + lookups.get() + cache_hits.get();
}
