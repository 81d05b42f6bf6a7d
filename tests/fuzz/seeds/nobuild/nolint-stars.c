#include <time.h>
long f(void)
{
    long a = clock(); // NOLINT(hot****************************************x)
    return a; // NOLINTEND(****************************************y)
}
