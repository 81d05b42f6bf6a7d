/*
 * A clock read in a loop that also blocks (sleep, a condition wait, read, poll) is paced
 * by the block: one read per wakeup costs nothing next to the wait, so InnoDB's master
 * and purge threads below are negatives. Positives: loops that spin between reads, and a
 * loop nested inside a blocking one that does not block itself (the innermost loop decides).
 */
/* Loops no hot root reaches are low confidence (hidden by default); shown here to test
 * which loops count. */
// hotscan-args: --min-confidence low
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stddef.h>
#include <time.h>
#include <unistd.h>

typedef unsigned long long ulonglong;

extern ulonglong my_interval_timer(void);

struct srv_slot {
    time_t checked_at;
    int suspended;
};

struct srv_sys {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    volatile int shutdown;
    int work_ready;
    int flush_interval;
    int n_slots;
    struct srv_slot slots[64];
};

extern void srv_flush_logs(struct srv_sys *sys);

void srv_master_thread(struct srv_sys *sys)
{
    time_t last_flush = time(NULL);
    while (!sys->shutdown) {
        sleep(1);
        time_t now = time(NULL);
        if (now - last_flush >= sys->flush_interval) {
            srv_flush_logs(sys);
            last_flush = now;
        }
    }
}

int srv_purge_wait(struct srv_sys *sys, long ms)
{
    struct timespec abstime;
    int err = 0;
    pthread_mutex_lock(&sys->mutex);
    while (!sys->work_ready && err != ETIMEDOUT) {
        clock_gettime(CLOCK_REALTIME, &abstime);
        abstime.tv_sec += ms / 1000;
        err = pthread_cond_timedwait(&sys->cond, &sys->mutex, &abstime);
    }
    pthread_mutex_unlock(&sys->mutex);
    return err;
}

long net_read_packet(int fd, char *buf, size_t len, time_t *last_active)
{
    long got;
    do {
        got = (long)read(fd, buf, len);
        *last_active = time(NULL);
    } while (got < 0 && errno == EINTR);
    return got;
}

int net_wait_readable(int fd, time_t deadline)
{
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    while (time(NULL) < deadline) {
        if (poll(&pfd, 1, 100) > 0)
            return 1;
    }
    return 0;
}

/* Spinning: nothing in the loop blocks, so the clock is read as fast as the CPU can go. */
int buf_flush_wait_spin(volatile int *flushed, ulonglong max_ns)
{
    ulonglong start = my_interval_timer();
    while (!*flushed) {
        if (my_interval_timer() - start > max_ns) // expect: timer-hot-path
            return 0;
    }
    return 1;
}

/* The outer loop blocks, but the loop around the read does not. */
void srv_monitor_thread(struct srv_sys *sys)
{
    while (!sys->shutdown) {
        pthread_mutex_lock(&sys->mutex);
        pthread_cond_wait(&sys->cond, &sys->mutex);
        pthread_mutex_unlock(&sys->mutex);
        for (int i = 0; i < sys->n_slots; i++) {
            if (!sys->slots[i].suspended)
                sys->slots[i].checked_at = time(NULL); // expect: timer-hot-path
        }
    }
}
