// hotscan-args: --hot serve_request
/*
 * Rare arms are not per-request paths. A read, or a call that leads to one, inside an
 * error check (errno, == -1, < 0), an unlikely() branch, or a branch taken only when a
 * value exceeds a configured limit (a slow-log threshold held in a global) is low
 * confidence, hidden by default. Shapes from redis' slowlog and latency monitor,
 * memcached's accept() EMFILE handling and haproxy's unlikely() profiling.
 */
#include <errno.h>
#include <sys/time.h>
#include <time.h>

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

struct settings { long slow_us; int tracing; };
struct settings config;

struct request { int fd; long duration; long stamp; int n_items; };

extern int do_accept(int fd);
extern void record(long v);

static void slow_log_push(struct request *r)
{
    record((long)time(NULL)); /* the entry's timestamp: reached only over the threshold */
}

static void trace_event(struct request *r)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    record(ts.tv_nsec + r->fd);
}

static void listen_pause(void)
{
    struct timeval tv;
    gettimeofday(&tv, 0); /* start of a paused-listening interval, on EMFILE only */
    record(tv.tv_sec);
}

void serve_request(struct request *r)
{
    r->stamp = (long)clock(); // expect: timer-hot-path
    int fd = do_accept(r->fd);
    if (fd < 0 && errno == EMFILE)
        listen_pause();
    if (fd == -1) {
        struct timeval tv;
        gettimeofday(&tv, 0);
        record(tv.tv_usec);
    }
    if (r->duration >= config.slow_us)
        slow_log_push(r);
    if (unlikely(config.tracing))
        trace_event(r);
    if (__builtin_expect(r->n_items > 1000, 0))
        record((long)time(NULL));
    /* Not rare: likely(), and a comparison with a constant. */
    if (likely(r->n_items > 0))
        record((long)time(NULL)); // expect: timer-hot-path
    if (r->n_items > 16)
        record((long)time(NULL)); // expect: timer-hot-path
}
