#include <time.h>
int d(int c)
{
    long a = clock(); // NOLINT(timer-hot-path)
    // NOLINTNEXTLINE(timer-hot-path)
    long b = clock();
    // NOLINTBEGIN(hotscan-timer-hot-path)
    long e = clock();
    long f = clock();
    // NOLINTEND(hotscan-timer-hot-path)
    return c + (int)(a + b + e + f);
}
