/*
 * Names that look like clocks but are not clock reads, all inside loops: a member function
 * called time(), a project function named clock() in its own namespace, a steady_clock of
 * the project's own, and conversions of a time_point already read. None is flagged; the
 * one real std::chrono read inside a loop is.
 */
/* Loops no hot root reaches are low confidence (hidden by default); shown here to test
 * which loops count. */
// hotscan-args: --min-confidence low
#include <chrono>
#include <cstdint>
#include <vector>

namespace stats {

struct Counter {
    std::int64_t value;
    std::int64_t time() const { return value; }
};

std::int64_t clock(const Counter &c) { return c.value * 2; }

struct steady_clock {
    static std::int64_t now() { return 42; }
};

std::int64_t sum_times(const std::vector<Counter> &counters)
{
    std::int64_t total = 0;
    for (const Counter &c : counters) {
        total += c.time();
        total += clock(c);
        total += steady_clock::now();
    }
    return total;
}

std::int64_t to_epoch_ms(const std::vector<std::chrono::system_clock::time_point> &points)
{
    std::int64_t total = 0;
    for (const auto &p : points)
        total += std::chrono::duration_cast<std::chrono::milliseconds>(p.time_since_epoch()).count();
    return total;
}

std::int64_t age_ms(const std::vector<std::chrono::steady_clock::time_point> &points)
{
    std::int64_t total = 0;
    for (const auto &p : points)
        total += std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - p).count(); // expect: timer-hot-path
    return total;
}

} // namespace stats
