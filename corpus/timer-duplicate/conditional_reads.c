/*
 * A read that runs only on some passes is no reading a later read can reuse: the right
 * side of && and ||, and an if arm the later read is not in. A replication cron's timeout
 * checks test time() only in the state they are about, so at most one of them runs.
 * Positives: a read on the left of && (it always runs) and the read on its right; a read
 * before an if and one inside it.
 */
#include <time.h>

enum repl_state { REPL_CONNECTING, REPL_TRANSFER, REPL_CONNECTED };

struct replica {
    enum repl_state state;
    time_t last_io, last_interaction, stamp;
    long timeout;
};

extern void cancel_handshake(struct replica *r);
extern void abort_transfer(struct replica *r);
extern void drop_master(struct replica *r);

void replica_cron(struct replica *r)
{
    if (r->state == REPL_CONNECTING && time(NULL) - r->last_io > r->timeout)
        cancel_handshake(r);
    if (r->state == REPL_TRANSFER && time(NULL) - r->last_io > r->timeout)
        abort_transfer(r);
    if (r->state == REPL_CONNECTED && time(NULL) - r->last_interaction > r->timeout)
        drop_master(r);
}

void replica_touch(struct replica *r, int io)
{
    if (io)
        r->last_io = time(NULL);
    r->stamp = time(NULL);
}

int replica_stale(struct replica *r)
{
    return r->timeout > 0 || time(NULL) - r->last_io > 60;
}

int replica_window(struct replica *r)
{
    /* The left side always runs: the right side's read is a second read of it. */
    return time(NULL) > r->last_io && time(NULL) - r->last_io < r->timeout; // expect: timer-duplicate
}

void replica_refresh(struct replica *r)
{
    time_t now = time(NULL);
    if (now - r->last_io > r->timeout)
        r->last_interaction = time(NULL); // expect: timer-duplicate
}
