/*
 * Lazy initialisation on a hot path, the shape of Open vSwitch's vlog_init() (reached from
 * every log call) and of many servers' first-use set-up: an arm that sets the static its
 * condition tests runs once per run of the program, not per request. Its clock read is no
 * per-request cost. Positives: an arm that tests a per-connection field runs once per
 * connection, which is per request here, and an arm whose flag is a local runs every call.
 */
// hotscan-args: --hot handle_request
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

struct once_flag {
    bool done;
};

bool once_start(struct once_flag *o);
void once_done(struct once_flag *o);
void log_line(const char *what, long long t);

static bool tables_ready;
static long long boot_stamp;
static time_t log_epoch;

static void log_init(void)
{
    static struct once_flag once;
    if (once_start(&once)) {
        log_epoch = time(NULL);
        once_done(&once);
    }
}

static void tables_init(void)
{
    if (!tables_ready) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        boot_stamp = (long long)ts.tv_sec;
        tables_ready = true;
    }
}

static void stamp_init(void)
{
    if (boot_stamp == 0)
        boot_stamp = (long long)time(NULL);
}

struct conn {
    bool greeted;
    time_t greeted_at;
};

void handle_request(struct conn *c, int n)
{
    log_init();
    tables_init();
    stamp_init();
    if (!c->greeted) {
        c->greeted_at = time(NULL); // expect: timer-hot-path
        c->greeted = true;
    }
    bool first = n == 0;
    if (!first) {
        log_line("request", (long long)time(NULL)); // expect: timer-hot-path
        first = true;
    }
}
