// Three reads of one clock on one path (a connection's timeout checks, once per event):
// each later read reuses the first reading. The fixes of the second and the third read
// make the same edits, so applied together they declare the reading once.
#include <time.h>

struct conn {
    time_t last_io, last_ping, deadline;
    int state;
};

void conn_check(struct conn *c, long timeout)
{
    time_t hs_time_reading = time(NULL);
    if (hs_time_reading - c->last_io > timeout)
        c->state = 1;
    if (hs_time_reading - c->last_ping > timeout) // expect: timer-duplicate
        c->state = 2;
    if (hs_time_reading > c->deadline) // expect: timer-duplicate
        c->state = 3;
}
