#include <time.h>

#include "plugin.h"

long stamp_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts); // expect: timer-hot-path
    return ts.tv_sec;
}
