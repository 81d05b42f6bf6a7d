/*
 * A proxy's event loop (haproxy/ProxySQL style). The loops that block in epoll_wait or
 * accept read the clock once per wakeup: paced, not flagged. The loop over the ready
 * events does not block, so a clock read per event is flagged. tv_update_date() is called
 * from a loop, but no hot root reaches it, so its own read is not on a hot path. A coarse
 * clock read (a memory load) is the cheap read the rule recommends: never flagged.
 */
/* Loops no hot root reaches are low confidence (hidden by default); shown here to test
 * which loops count. */
// hotscan-args: --min-confidence low
#include <stddef.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>

struct conn {
    int fd;
    struct timespec last_active;
    struct timespec last_seen;
    unsigned long requests;
};

static struct timeval now_tv;
static struct timespec now_mono;

extern void conn_process(struct conn *c);
extern void conn_accepted(int fd, time_t when);

static void tv_update_date(void)
{
    gettimeofday(&now_tv, NULL);
}

void run_poll_loop(int epfd, volatile int *stopping)
{
    struct epoll_event ev[64];
    while (!*stopping) {
        int n = epoll_wait(epfd, ev, 64, 1000);
        tv_update_date();
        clock_gettime(CLOCK_MONOTONIC, &now_mono);
        for (int i = 0; i < n; i++) {
            struct conn *c = ev[i].data.ptr;
            clock_gettime(CLOCK_MONOTONIC, &c->last_active); // expect: timer-hot-path
            clock_gettime(CLOCK_MONOTONIC_COARSE, &c->last_seen);
            conn_process(c);
        }
    }
}

/* The blocking call sits in the loop condition: still paced. */
void run_accept_loop(int listen_fd)
{
    int fd;
    while ((fd = accept(listen_fd, NULL, NULL)) >= 0)
        conn_accepted(fd, time(NULL));
}

/* The fix for run_poll_loop: stamp events with the time read once per wakeup. */
void run_poll_loop_fixed(int epfd, volatile int *stopping)
{
    struct epoll_event ev[64];
    while (!*stopping) {
        int n = epoll_wait(epfd, ev, 64, 1000);
        clock_gettime(CLOCK_MONOTONIC_COARSE, &now_mono);
        for (int i = 0; i < n; i++) {
            struct conn *c = ev[i].data.ptr;
            c->last_active = now_mono;
            conn_process(c);
        }
    }
}
