/*
 * The hot paths that call clocks.c's wrappers: a revalidator pass that reads clk_msec()
 * twice per flow (the second read is the first's value), and an expiry loop that reads it
 * once per rule. Negatives: a monotonic and a wall reading are two clocks, and a deadline
 * computed from an argument is no second reading.
 */
// hotscan-args: --hot revalidator_main --hot expire_run
#include <stddef.h>

#include "clocks.h"

struct flow {
    struct flow *next;
    long long used, last_seen, wall_seen, deadline;
};

struct rule {
    struct rule *next;
    long long idle_timeout, last_used;
};

void flow_delete(struct flow *f);
void rule_remove(struct rule *r);

static void revalidate(struct flow *flows)
{
    for (struct flow *f = flows; f; f = f->next) {
        long long now = clk_msec(); /* low: one end of the age check below */
        if (now - f->used > 10000) {
            flow_delete(f);
            continue;
        }
        f->wall_seen = clk_wall_msec(); // expect: timer-hot-path
        f->deadline = deadline_after(f->used);
        f->last_seen = clk_msec(); // expect: timer-duplicate, timer-hot-path
    }
}

void revalidator_main(struct flow *flows)
{
    revalidate(flows);
}

static void rule_expire(struct rule *r)
{
    if (clk_msec() > r->last_used + r->idle_timeout) // expect: timer-hot-path
        rule_remove(r);
}

void expire_run(struct rule *rules)
{
    for (struct rule *r = rules; r; r = r->next)
        rule_expire(r);
}
