/*
 * An event loop named as a hot root, the shape of mosquitto's broker: the loop waits in
 * poll(), then refreshes its cached time (db.now_s) for the iteration; the packet handler
 * still reads the clock, which is what maintainers replace with db.now_s. The refresh after
 * the wait is the cache's refresh (the wait starts the iteration; it is no slow work the
 * time would stamp), and the reads before the loop, in the root or in what it calls there,
 * run once per run of the loop: all low.
 */
// hotscan-args: --hot main_loop --hot handle_packet
#include <poll.h>
#include <time.h>

struct client {
    time_t last_msg_in;
};

static struct {
    time_t now_s;
    time_t start_s;
} db;

static struct client clients[16];

void handle_packet(struct client *c)
{
    c->last_msg_in = time(NULL); // expect: timer-hot-path
}

static int mux_handle(struct pollfd *fds, int n)
{
    int events = poll(fds, (nfds_t)n, 100);
    db.now_s = time(NULL);
    return events;
}

static time_t boot_time;

static void stats_init(void)
{
    boot_time = time(NULL);
}

void main_loop(volatile int *run, struct pollfd *fds, int n)
{
    db.start_s = time(NULL);
    stats_init();
    while (*run) {
        int events = mux_handle(fds, n);
        for (int i = 0; i < events && i < 16; i++)
            handle_packet(&clients[i]);
    }
}

int main(void)
{
    int run = 1;
    struct pollfd fds[1] = {{0, POLLIN, 0}};
    main_loop(&run, fds, 1);
    return 0;
}
