/*
 * Reads through a macro are reads at the macro's use: two uses of TIMER_NOW() for the same
 * moment are a duplicate at the second use. Negatives: a macro pair whose results are
 * subtracted, and a macro that reads a different clock (CPU_NOW is clock(), not time()).
 */
#include <time.h>

#define TIMER_NOW() time(NULL)
#define CPU_NOW() clock()

struct handler_stats {
    time_t opened;
    time_t locked;
    clock_t cpu_at_open;
    long open_seconds;
};

extern void handler_lock(struct handler_stats *h);

void handler_open(struct handler_stats *h)
{
    h->opened = TIMER_NOW();
    h->cpu_at_open = CPU_NOW();
    handler_lock(h);
    h->locked = TIMER_NOW(); // expect: timer-duplicate
}

void handler_open_timed(struct handler_stats *h)
{
    time_t start = TIMER_NOW();
    handler_lock(h);
    h->open_seconds = (long)(TIMER_NOW() - start);
}
