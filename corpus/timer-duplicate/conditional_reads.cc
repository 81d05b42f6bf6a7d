// C++: a steady_clock read on the right of || runs only when the left side is false, so
// the read after it is not a second read of it. A read that dominates (before an if) is.
#include <chrono>

struct lease {
    std::chrono::steady_clock::time_point granted, renewed;
    bool forever = false;
};

bool lease_expired(lease &l)
{
    bool expired = !l.forever && std::chrono::steady_clock::now() - l.granted > std::chrono::seconds(5);
    l.renewed = std::chrono::steady_clock::now();
    return expired;
}

void lease_renew(lease &l, bool force)
{
    auto now = std::chrono::steady_clock::now();
    if (force || now - l.renewed > std::chrono::seconds(1))
        l.renewed = std::chrono::steady_clock::now(); // expect: timer-duplicate
}
