/*
 * std::chrono: system_clock::now() twice for one statement start is a duplicate.
 * Negatives: steady_clock next to system_clock (different clocks), end - start in
 * duration_cast, a deadline computed from the first now() and compared with the second,
 * and a pair passed together to one reporting call.
 */
#include <chrono>
#include <string>

namespace net {

using SteadyClock = std::chrono::steady_clock;
using WallClock = std::chrono::system_clock;

struct LogEntry {
    WallClock::time_point at;
    std::string text;
};

extern int poll_once(int fd);
extern void run(const std::string &sql);
extern void report_latency(SteadyClock::time_point start, SteadyClock::time_point end);

class Statement {
public:
    void start(const std::string &sql);
    void start_both_clocks();
    long long execute_us(const std::string &sql);
    bool wait_readable(int fd, std::chrono::milliseconds timeout);
    void execute_reported(const std::string &sql);

private:
    WallClock::time_point start_wall_;
    SteadyClock::time_point start_mono_;
    LogEntry log_entry_;
};

void Statement::start(const std::string &sql)
{
    start_wall_ = WallClock::now();
    log_entry_.text = sql;
    log_entry_.at = WallClock::now(); // expect: timer-duplicate
}

void Statement::start_both_clocks()
{
    start_wall_ = WallClock::now();
    start_mono_ = SteadyClock::now();
}

long long Statement::execute_us(const std::string &sql)
{
    auto start = SteadyClock::now();
    run(sql);
    auto end = SteadyClock::now();
    return std::chrono::duration_cast<std::chrono::microseconds>(end - start).count();
}

bool Statement::wait_readable(int fd, std::chrono::milliseconds timeout)
{
    const auto deadline = SteadyClock::now() + timeout;
    int ready = poll_once(fd);
    return ready > 0 || SteadyClock::now() < deadline;
}

void Statement::execute_reported(const std::string &sql)
{
    auto t0 = SteadyClock::now();
    run(sql);
    auto t1 = SteadyClock::now();
    report_latency(t0, t1);
}

} // namespace net
