/*
 * collectors.c - the collector table: the one place a rule family's collector (its
 * rules/<family>/collect_<family>.c) is registered.
 *
 * The walk (analyzer/extract/extract.c) calls the hooks of every entry in this order, and
 * each family's lists appear in the facts document in this order too: clock_reads,
 * atomics, events, event_objects (after functions and calls). Keep the order: the facts
 * document is a wire format.
 */
#include "hotscan/walk.h"

extern const hs_collector hs_collector_timers;
extern const hs_collector hs_collector_atomics;
extern const hs_collector hs_collector_events;

static const hs_collector *const all_collectors[] = {
    &hs_collector_timers,
    &hs_collector_atomics,
    &hs_collector_events,
};

const hs_collector *const *hs_collectors_all(size_t *count)
{
    *count = sizeof all_collectors / sizeof all_collectors[0];
    return all_collectors;
}
