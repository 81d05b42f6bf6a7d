/*
 * time() read twice for the same moment: log_time(time(NULL)); stamp = time(NULL); and a
 * session-expiry check that reads again to renew (the FreeBSD report: mysqld's many time()
 * calls, 6x with a dummy timecounter). Negatives: a deadline computed from the first read
 * and compared with the second, and the out-argument form combined by subtraction.
 */
#include <time.h>

struct session {
    time_t expires;
    time_t renewed;
    time_t stamp;
    long ttl;
};

extern void log_time(time_t t);
extern int net_poll_once(struct session *s);

void session_log_start(struct session *s)
{
    log_time(time(NULL));
    s->stamp = time(NULL); // expect: timer-duplicate
}

void session_maybe_renew(struct session *s)
{
    if (time(NULL) > s->expires)
        s->renewed = time(NULL); // expect: timer-duplicate
}

void session_touch_out_arg(struct session *s)
{
    time_t a, b;
    time(&a);
    log_time(a);
    time(&b); // expect: timer-duplicate
    s->stamp = b;
}

int session_wait(struct session *s)
{
    time_t deadline = time(NULL) + s->ttl;
    int ready = net_poll_once(s);
    if (!ready && time(NULL) > deadline)
        return -1;
    return ready;
}

long session_idle_seconds(struct session *s)
{
    time_t before, after;
    time(&before);
    net_poll_once(s);
    time(&after);
    return (long)(after - before);
}
