/*
 * A general-log ring buffer. push() is [[gnu::hot]], so its system_clock read is flagged,
 * as is the read in the lambda touch() runs. The consumers block in
 * condition_variable::wait or this_thread::sleep_for once per iteration, so their reads are
 * paced (negatives); drain_now() spins without blocking, so its read is flagged.
 */
/* Loops no hot root reaches are low confidence (hidden by default); shown here to test
 * which loops count. */
// hotscan-args: --min-confidence low
#include <array>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

struct LogRecord {
    std::chrono::system_clock::time_point at;
    std::string text;
};

class LogRing {
public:
    [[gnu::hot]] bool push(std::string text);
    [[gnu::hot]] void touch();
    void consume(const volatile bool &stop);
    void flush_periodically(const volatile bool &stop);
    std::size_t drain_now();

private:
    void write_out(const LogRecord &r, std::chrono::steady_clock::time_point when);

    std::array<LogRecord, 1024> slots_;
    std::size_t head_ = 0;
    std::size_t tail_ = 0;
    std::mutex mu_;
    std::condition_variable cv_;
    std::chrono::steady_clock::time_point last_touch_;
    std::chrono::steady_clock::time_point last_flush_;
};

bool LogRing::push(std::string text)
{
    std::lock_guard<std::mutex> guard(mu_);
    if (head_ - tail_ == slots_.size())
        return false;
    LogRecord &r = slots_[head_++ % slots_.size()];
    r.at = std::chrono::system_clock::now(); // expect: timer-hot-path
    r.text = std::move(text);
    cv_.notify_one();
    return true;
}

void LogRing::touch()
{
    auto stamp = [this] { last_touch_ = std::chrono::steady_clock::now(); }; // expect: timer-hot-path
    stamp();
}

void LogRing::write_out(const LogRecord &r, std::chrono::steady_clock::time_point when)
{
    last_flush_ = when;
    (void)r;
}

void LogRing::consume(const volatile bool &stop)
{
    std::unique_lock<std::mutex> lock(mu_);
    while (!stop) {
        cv_.wait(lock, [this] { return head_ != tail_; });
        auto now = std::chrono::steady_clock::now();
        write_out(slots_[tail_++ % slots_.size()], now);
    }
}

void LogRing::flush_periodically(const volatile bool &stop)
{
    while (!stop) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        last_flush_ = std::chrono::steady_clock::now();
    }
}

std::size_t LogRing::drain_now()
{
    std::size_t n = 0;
    std::lock_guard<std::mutex> guard(mu_);
    while (tail_ != head_) {
        write_out(slots_[tail_++ % slots_.size()], std::chrono::steady_clock::now()); // expect: timer-hot-path
        n++;
    }
    return n;
}
