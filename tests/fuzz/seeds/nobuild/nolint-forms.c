#include <time.h>
static const char *note = "// NOLINT(timer-hot-path) is text here";
long f(void)
{
    long a = time(0); /* NOLINT */
    long b = time(0); // NOLINT(*)
    long c = time(0); // NOLINT(timer-*, hotscan-atomic-seqcst-counter)
    // NOLINTBEGIN
    long d = time(0);
    // NOLINTEND(timer-duplicate)
    // NOLINTNEXTLINE(unknown-rule)
    long e = time(0);
    // NOLINTBEGIN(timer-hot-path
    return a + b + c + d + e + note[0];
}
