// hotscan-args: --hot run_tasks
/*
 * An interval across functions through a field: the wake-up path stores a clock wrapper's
 * reading in the task (`t->wake_date = now_ns()`), the run loop subtracts it from a fresh
 * one (`now_ns() - t->wake_date`): scheduling-latency instrumentation, as haproxy's task
 * profiling does. Fields match by name: a tasklet sharing the task's first fields stores
 * its wake_date, which the run loop subtracts through the task type. Low, hidden by
 * default. A reading stored in a field nothing ever subtracts is a plain per-request read,
 * and flagged where the wrapper is called.
 */
#include <stdint.h>
#include <time.h>

struct task {
    uint64_t wake_date, created;
    uint64_t lat_total;
    struct task *next;
    void (*process)(struct task *t);
};

struct tasklet {
    uint64_t wake_date;
    struct tasklet *next;
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t stamp_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_nsec;
}

static void task_wakeup(struct task *t, struct task **queue)
{
    t->wake_date = now_ns();
    t->created = stamp_ns(); // expect: timer-hot-path
    t->next = *queue;
    *queue = t;
}

static void tasklet_wakeup(struct tasklet *tl)
{
    tl->wake_date = now_ns();
}

void run_tasks(struct task **queue)
{
    for (struct task *t = *queue; t; t = t->next) {
        t->lat_total += now_ns() - t->wake_date;
        t->process(t);
        if (t->next == NULL)
            task_wakeup(t, queue);
        else
            tasklet_wakeup((struct tasklet *)t->next);
    }
}
