// hotscan-args: --hot dispatch
/*
 * Reads whose reading is the output, or that the code is already built around, are low
 * confidence, hidden by default:
 *  - the reading is printed (a MONITOR line, a `stats` reply field): formatting costs more
 *    than the read, and the value is what is printed;
 *  - the read is inside a variadic logger: the record needs its own timestamp;
 *  - the reading is compared with a stored earlier reading: a rate limit (log at most once
 *    a minute) or a cache refreshed when the second changes;
 *  - the read is in an arm that returns an error code (`return -1`).
 * A reading kept for the request's own use is flagged.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>

struct client { int fd; char buf[256]; long started; };

extern void reply(struct client *c, const char *fmt, ...);

static void feed_monitors(struct client *c)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    reply(c, "%ld.%06ld", (long)tv.tv_sec, (long)tv.tv_usec);
}

static void stats_reply(struct client *c)
{
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    reply(c, "rusage_user %ld", (long)usage.ru_utime.tv_sec);
}

static void log_event(struct client *c, const char *fmt, ...)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->buf, sizeof c->buf, fmt, ap);
    va_end(ap);
    c->started = tv.tv_sec;
}

static void warn_rate_limited(struct client *c)
{
    static time_t logged_time;
    time_t now = time(NULL);
    if (now - logged_time > 60) {
        log_event(c, "suspicious client %d", c->fd);
        logged_time = now;
    }
}

static time_t cached_second;
static char date_text[32];

static const char *date_header(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    if (tv.tv_sec != cached_second) {
        snprintf(date_text, sizeof date_text, "%ld", (long)tv.tv_sec);
        cached_second = tv.tv_sec;
    }
    return date_text;
}

static int reject(struct client *c)
{
    warn_rate_limited(c);
    return -1;
}

int dispatch(struct client *c, const char *cmd)
{
    if (strcmp(cmd, "monitor") == 0)
        feed_monitors(c);
    if (strcmp(cmd, "stats") == 0)
        stats_reply(c);
    if (strcmp(cmd, "post") == 0) {
        c->started = (long)clock();
        return -1;
    }
    if (strcmp(cmd, "host:") == 0)
        return reject(c);
    reply(c, "%s", date_header());
    c->started = (long)clock(); // expect: timer-hot-path
    return 0;
}
