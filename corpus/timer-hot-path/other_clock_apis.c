/*
 * The less common clock APIs are clock reads too: times(), getrusage() and ftime() are
 * syscalls, timespec_get() reads the wall clock. All are called from the --hot root here.
 * Negatives: time conversion and formatting (localtime_r, strftime, mktime, difftime) in a
 * loop read no clock, and a call through a function pointer named "time" (a clock a test
 * can replace) is not a call to time().
 */
// hotscan-args: --hot sql_profile_next_status
#include <stddef.h>
#include <sys/resource.h>
#include <sys/times.h>
#include <time.h>

/* <sys/timeb.h> is gone from current glibc; older servers declared ftime() themselves. */
struct timeb {
    time_t time;
    unsigned short millitm;
    short timezone;
    short dstflag;
};
extern int ftime(struct timeb *tp);

struct profile_entry {
    struct tms cpu;
    struct rusage usage;
    struct timeb wall;
    struct timespec precise;
    time_t logged;
};

struct clock_source {
    time_t (*time)(time_t *tloc);
};

void sql_profile_next_status(struct profile_entry *e, const struct clock_source *src)
{
    e->logged = src->time(NULL);
    times(&e->cpu); // expect: timer-hot-path
    getrusage(RUSAGE_SELF, &e->usage); // expect: timer-hot-path
    ftime(&e->wall); // expect: timer-hot-path
    timespec_get(&e->precise, TIME_UTC); // expect: timer-hot-path
}

size_t log_format_times(const time_t *stamps, int n, char *out, size_t len)
{
    size_t used = 0;
    for (int i = 0; i < n && used < len; i++) {
        struct tm tm;
        localtime_r(&stamps[i], &tm);
        used += strftime(out + used, len - used, "%F %T\n", &tm);
    }
    return used;
}

double log_span_seconds(struct tm *first, struct tm *last)
{
    double total = 0;
    for (struct tm *t = first; t <= last; t++)
        total += difftime(mktime(t), mktime(first));
    return total;
}
