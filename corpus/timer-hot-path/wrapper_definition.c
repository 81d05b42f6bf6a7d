/*
 * A project's own timer wrappers, defined here the way MariaDB's mysys defines them: the
 * reads inside the definitions of listed wrappers (my_interval_timer, my_hrtime, the
 * my_timer_* family) are not flagged; the calls to them from the --hot root are. now_us()
 * is not listed, but it returns its reading: the program makes it a clock wrapper, and its
 * call from the hot root is flagged where it is made.
 */
// hotscan-args: --hot dispatch_command
#include <stddef.h>
#include <sys/time.h>
#include <time.h>

typedef unsigned long long ulonglong;
typedef struct {
    ulonglong val;
} my_hrtime_t;

ulonglong my_interval_timer(void)
{
    struct timespec tp;
    clock_gettime(CLOCK_MONOTONIC, &tp);
    return (ulonglong)tp.tv_sec * 1000000000ULL + (ulonglong)tp.tv_nsec;
}

my_hrtime_t my_hrtime(void)
{
    my_hrtime_t hrtime;
    struct timespec tp;
    clock_gettime(CLOCK_REALTIME, &tp);
    hrtime.val = (ulonglong)tp.tv_sec * 1000000ULL + (ulonglong)tp.tv_nsec / 1000ULL;
    return hrtime;
}

ulonglong my_timer_microseconds(void)
{
    static ulonglong last_value;
    struct timeval tv;
    if (gettimeofday(&tv, NULL) == 0)
        last_value = (ulonglong)tv.tv_sec * 1000000ULL + (ulonglong)tv.tv_usec;
    else
        last_value++;
    return last_value;
}

static ulonglong now_us(void)
{
    struct timespec tp;
    clock_gettime(CLOCK_MONOTONIC, &tp);
    return (ulonglong)tp.tv_sec * 1000000ULL + (ulonglong)tp.tv_nsec / 1000ULL;
}

struct thd {
    ulonglong start_utime;
    ulonglong query_start_ns;
    ulonglong utime_after_lock;
};

void dispatch_command(struct thd *thd)
{
    thd->start_utime = my_hrtime().val; // expect: timer-hot-path
    thd->query_start_ns = my_interval_timer(); // expect: timer-hot-path
    thd->utime_after_lock = now_us(); // expect: timer-hot-path
}
