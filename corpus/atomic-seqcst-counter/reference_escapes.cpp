/*
 * C++ counters whose object escapes, all negatives: a std::atomic bound to a reference
 * that is handed to a metrics registry, passed by pointer to a project function that
 * keeps the pointer, or captured into a lambda by reference and stored away. hotscan sees
 * only some of the uses, so it cannot call them counters. A function whose body only
 * operates on its pointer parameter (count) is a wrapper: `pool_stats.created` is a
 * counter, reported at the call (issue 10).
 */
// hotscan-args: --min-confidence low
#include <atomic>
#include <cstdint>
#include <functional>

class Metrics_registry {
public:
    void add_counter(const char *name, std::atomic<uint64_t> &value);
    void add_gauge(const char *name, std::function<uint64_t()> read);
};

extern Metrics_registry *metrics;

struct Pool_stats {
    std::atomic<uint64_t> acquired;
    std::atomic<uint64_t> created;
    std::atomic<uint64_t> timeouts;
};

static Pool_stats pool_stats;

static void count(std::atomic<uint64_t> *c)
{
    c->fetch_add(1);
}

static std::atomic<uint64_t> *last_counted;
static std::atomic<uint64_t> evictions;

static void count_and_keep(std::atomic<uint64_t> *c)
{
    c->fetch_add(1);
    last_counted = c;
}

void pool_evict()
{
    count_and_keep(&evictions);
    evictions.fetch_add(1);
}

void pool_register_metrics()
{
    metrics->add_counter("pool_acquired", pool_stats.acquired);
    metrics->add_gauge("pool_timeouts", [] { return pool_stats.timeouts.load(); });
}

void pool_acquire(bool fresh)
{
    pool_stats.acquired++;
    if (fresh)
        count(&pool_stats.created); // expect: atomic-seqcst-counter
}

void pool_created_directly()
{
    pool_stats.created.fetch_add(1); // expect: atomic-seqcst-counter
}
