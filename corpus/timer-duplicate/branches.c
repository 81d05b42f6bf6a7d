/*
 * Reads on exclusive branches are never both executed: if/else arms, switch cases that
 * end in break or return, the arms of ?:, and an early-returning arm followed by a read
 * after the if. Positives: a read before an if and another inside its arm, and a switch
 * case that falls through into another case's read, lie on one path.
 */
#include <time.h>

typedef unsigned long long ulonglong;
typedef int myf;

extern time_t my_time(myf flags);

struct binlog_event {
    time_t when;
    time_t checksum_time;
    time_t detail_time;
    long age;
    int recovered;
};

enum log_level { LOG_VERBOSE, LOG_NORMAL, LOG_QUIET };
enum stamp_kind { STAMP_SECONDS, STAMP_MINUTES, STAMP_NONE };

void event_set_start(struct binlog_event *e)
{
    if (e->recovered)
        e->when = time(NULL) - e->age;
    else
        e->when = time(NULL);
}

long event_stamp(enum stamp_kind kind)
{
    switch (kind) {
    case STAMP_SECONDS:
        return (long)time(NULL);
    case STAMP_MINUTES:
        return (long)(time(NULL) / 60);
    case STAMP_NONE:
        break;
    }
    return 0;
}

void event_stamp_level(struct binlog_event *e, enum log_level level)
{
    switch (level) {
    case LOG_VERBOSE:
        e->detail_time = time(NULL);
        break;
    case LOG_NORMAL:
        e->when = time(NULL);
        break;
    default:
        break;
    }
}

long event_rounded_time(int coarse)
{
    return coarse ? (long)time(NULL) / 60 * 60 : (long)time(NULL);
}

time_t event_touch(struct binlog_event *e)
{
    if (e->when == 0) {
        e->when = time(NULL);
        return e->when;
    }
    e->detail_time = time(NULL);
    return e->detail_time;
}

void event_init(struct binlog_event *e, int with_checksum)
{
    e->when = my_time(0);
    if (with_checksum)
        e->checksum_time = my_time(0); // expect: timer-duplicate
}

void event_stamp_fallthrough(struct binlog_event *e, enum log_level level)
{
    switch (level) {
    case LOG_VERBOSE:
        e->detail_time = time(NULL);
        /* fall through */
    case LOG_NORMAL:
        e->when = time(NULL); // expect: timer-duplicate
        break;
    case LOG_QUIET:
        break;
    }
}
