/*
 * A reading the caller already holds: the main loop reads the clock and then calls
 * bridge_check, which reads it again to rate-limit itself (mosquitto's shape, before it kept
 * a cached time). The rate limit does not lower the read: the caller's reading is at hand,
 * and the message says to pass it down. Not so after a poll between the two (the caller's
 * reading is stale by then: sys_update stays a low rate limit), nor for a finer read than the
 * caller's (a time() reading cannot stand for gettimeofday's microseconds).
 */
// hotscan-args: --hot main_loop
#include <poll.h>
#include <sys/time.h>
#include <time.h>

static time_t last_check, last_sys;
static struct timeval last_stamp;

static void bridge_check(void)
{
    time_t now = time(NULL); // expect: timer-hot-path
    if (now <= last_check)
        return;
    last_check = now;
}

static void sys_update(void)
{
    time_t now = time(NULL);
    if (now - last_sys < 10)
        return;
    last_sys = now;
}

static void stamp_fine(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    if (tv.tv_sec == last_stamp.tv_sec)
        return;
    last_stamp = tv;
}

void main_loop(volatile int *run)
{
    while (*run) {
        time_t now = time(NULL);
        (void)now;
        bridge_check();
        stamp_fine();
        poll(0, 0, 100);
        sys_update();
    }
}
