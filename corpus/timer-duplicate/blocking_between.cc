// hotscan-args: --hot Flusher::flush --hot Flusher::count --disable timer-hot-path
/*
 * C++: two readings of one clock with a callee between them that sleeps (two calls down)
 * are different instants on purpose: never a duplicate. With only a plain call between
 * them they are one.
 */
#include <chrono>
#include <thread>

using Clock = std::chrono::steady_clock;

class Flusher {
public:
    long flush();
    long count();

private:
    void back_off() { nap(); }
    void nap() { std::this_thread::sleep_for(std::chrono::milliseconds(1)); }
    int pending() const { return n_; }
    int n_ = 0;
    Clock::time_point started_, retried_, a_, b_;
};

long Flusher::flush()
{
    started_ = Clock::now();
    back_off();
    retried_ = Clock::now();
    return retried_.time_since_epoch().count() + started_.time_since_epoch().count();
}

long Flusher::count()
{
    a_ = Clock::now();
    int p = pending();
    b_ = Clock::now(); // expect: timer-duplicate
    return p + b_.time_since_epoch().count();
}
