/*
 * libevent, not InnoDB: event_base, struct event, event_new/event_add/event_del, the
 * deprecated event_set and the evtimer_add macro. The names contain "event" and even
 * "event_set", but none is an os_event API or an event type, so nothing is flagged.
 */
#include <stddef.h>

struct timeval {
    long tv_sec;
    long tv_usec;
};
struct event_base;
struct event {
    int ev_fd;
    short ev_events;
    void (*ev_callback)(int, short, void *);
};
typedef void (*event_callback_fn)(int, short, void *);

struct event_base *event_base_new(void);
struct event *event_new(struct event_base *base, int fd, short events, event_callback_fn cb, void *arg);
int event_add(struct event *ev, const struct timeval *timeout);
int event_del(struct event *ev);
void event_free(struct event *ev);
int event_base_dispatch(struct event_base *base);
int event_base_loopbreak(struct event_base *base);
void event_set(struct event *ev, int fd, short events, event_callback_fn cb, void *arg);
int event_base_set(struct event_base *base, struct event *ev);

#define EV_READ 0x02
#define EV_PERSIST 0x10
#define evtimer_add(ev, tv) event_add((ev), (tv))

struct conn {
    struct event read_event;
    struct event *timer_event;
    struct event_base *base;
};

static struct event_base *main_base;
static struct event signal_event;

static void on_read(int fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct conn *c = arg;
    struct timeval tv = {5, 0};
    evtimer_add(c->timer_event, &tv);
}

int serve(int listen_fd, struct conn *c)
{
    main_base = event_base_new();
    c->base = main_base;
    c->timer_event = event_new(main_base, -1, 0, on_read, c);
    event_set(&c->read_event, listen_fd, EV_READ | EV_PERSIST, on_read, c);
    event_base_set(main_base, &c->read_event);
    event_add(&c->read_event, NULL);
    event_set(&signal_event, 2, EV_READ, on_read, NULL);
    event_add(&signal_event, NULL);
    int rc = event_base_dispatch(main_base);
    event_del(&c->read_event);
    event_free(c->timer_event);
    return rc;
}
