/*
 * A logger that takes `...` and stamps each line two calls further down, the shape of
 * redis's _serverLog -> serverLogRaw -> gettimeofday and Open vSwitch's vlog ->
 * vlog_valist -> format_log_message -> time_wall_msec: the clock read stamps the line, it
 * is output, not per-request work. The logger called from the hot root is a weak edge. A
 * helper that takes fixed arguments and reads the clock for the reply is per request.
 */
// hotscan-args: --hot handle_request
#include <stdarg.h>
#include <stdio.h>
#include <sys/time.h>
#include <time.h>

struct conn {
    int fd;
    long long replied_at;
};

size_t put_stamp(char *buf, size_t n, long long msec);

static void format_line(char *buf, size_t n, const char *fmt, va_list ap)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    size_t off = put_stamp(buf, n, (long long)tv.tv_sec * 1000 + tv.tv_usec / 1000);
    if (off < n)
        vsnprintf(buf + off, n - off, fmt, ap);
}

static void log_valist(int level, const char *fmt, va_list ap)
{
    char line[512];
    if (level < 2)
        return;
    format_line(line, sizeof line, fmt, ap);
    fputs(line, stderr);
}

void log_msg(int level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_valist(level, fmt, ap);
    va_end(ap);
}

static void stamp_reply(struct conn *c)
{
    c->replied_at = (long long)time(NULL); // expect: timer-hot-path
}

void handle_request(struct conn *c, int level)
{
    log_msg(level, "request on fd %d", c->fd);
    stamp_reply(c);
}
