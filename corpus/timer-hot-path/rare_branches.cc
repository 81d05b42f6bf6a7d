// hotscan-args: --hot Session::handle
/*
 * C++ shapes of rare arms and constant-argument guards: a slow-query threshold held in a
 * static member, an errno check, a method called with a constant that makes its clock arm
 * dead. All low, hidden by default; the per-request read is flagged.
 */
#include <cerrno>
#include <chrono>
#include <ctime>

struct Limits {
    static long slow_query_us;
};

class Session {
public:
    void handle(long duration_us, int rc);

private:
    long stamp(bool fresh) { return fresh ? static_cast<long>(std::time(nullptr)) : cached_; }
    void log_slow(long duration_us);
    long cached_ = 0;
    long last_ = 0;
};

void Session::log_slow(long duration_us)
{
    last_ = duration_us + static_cast<long>(std::time(nullptr));
}

void Session::handle(long duration_us, int rc)
{
    auto t0 = std::chrono::steady_clock::now(); // expect: timer-hot-path
    (void)t0;
    if (duration_us > Limits::slow_query_us)
        log_slow(duration_us);
    if (rc < 0 && errno == EAGAIN)
        last_ = static_cast<long>(std::clock());
    last_ += stamp(false);
}
