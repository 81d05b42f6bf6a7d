// hotscan-args: --min-confidence low
/*
 * C++ shapes: a deadline spin on std::chrono::steady_clock (every exit test reads the
 * clock), a loop paced by a member function that writes a file two calls down, and a crash
 * macro ending a path. None is reported even at low confidence. A loop doing work per
 * element with a clock read in it is (low: no hot root).
 */
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#define ENGINE_CRASH(msg) do { std::fprintf(stderr, "%s\n", msg); std::abort(); } while (0)

using Clock = std::chrono::steady_clock;

class Journal {
public:
    void append(long stamp) { write_line(stamp); }

private:
    void write_line(long stamp) { std::fprintf(file_, "%ld\n", stamp); }
    std::FILE *file_ = nullptr;
};

void spin_for(std::chrono::microseconds budget)
{
    auto until = Clock::now() + budget;
    while (Clock::now() < until) {
    }
}

void journal_all(Journal &j, int n)
{
    for (int i = 0; i < n; i++)
        j.append(static_cast<long>(std::time(nullptr)));
}

void check_page(const int *page, int n)
{
    for (int i = 0; i < n; i++) {
        if (page[i] < 0) {
            long when = static_cast<long>(std::clock());
            std::fprintf(stderr, "corrupt at %ld\n", when);
            ENGINE_CRASH("corrupt page");
        }
    }
}

long sum_with_stamps(const long *v, int n)
{
    long s = 0;
    for (int i = 0; i < n; i++)
        s += v[i] + static_cast<long>(std::clock()); // expect: timer-hot-path
    return s;
}
