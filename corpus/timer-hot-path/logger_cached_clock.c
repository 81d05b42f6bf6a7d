/*
 * A logger that stamps its lines with time() in a broker whose event loop keeps the time
 * cached, the shape of mosquitto's log__vprintf before its maintainers made it take
 * db.now_real_s: a cheaper source is at hand, so the logger's read is reported on the hot
 * path, naming the cache. Without such a cache the same read is output (logger_chain.c).
 */
// hotscan-args: --hot handle_packet
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

struct broker {
    time_t now_real_s;
};

static struct broker db;
int wait_events(int timeout_ms);
void handle_packet(int fd);

static void log_vprintf(const char *fmt, va_list ap)
{
    char line[256];
    time_t now = time(NULL); // expect: timer-hot-path
    int off = (int)strftime(line, sizeof line, "%s ", gmtime(&now));
    vsnprintf(line + off, sizeof line - (size_t)off, fmt, ap);
    fputs(line, stderr);
}

void log_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_vprintf(fmt, ap);
    va_end(ap);
}

void handle_packet(int fd)
{
    log_printf("packet on %d", fd);
}

void main_loop(void)
{
    for (;;) {
        int fd = wait_events(1000);
        db.now_real_s = time(NULL);
        if (fd >= 0)
            handle_packet(fd);
    }
}
