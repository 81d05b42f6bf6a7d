/*
 * Two reads of one clock in different functions are not duplicates: a caller and its
 * callee, two member functions, and a function and the lambda it creates (the lambda runs
 * later, on its own). Positive for contrast: two reads inside the one lambda body.
 */
#include <chrono>
#include <functional>

namespace replication {

using Clock = std::chrono::steady_clock;

struct Slave {
    Clock::time_point connected;
    Clock::time_point last_event;
    Clock::time_point acked;
    std::function<void()> on_ack;
};

static void note_event(Slave &s)
{
    s.last_event = Clock::now();
}

void slave_connect(Slave &s)
{
    s.connected = Clock::now();
    note_event(s);
    s.on_ack = [&s] { s.acked = Clock::now(); };
}

void slave_reset(Slave &s)
{
    s.on_ack = [&s] {
        s.acked = Clock::now();
        s.last_event = Clock::now(); // expect: timer-duplicate
    };
}

} // namespace replication
