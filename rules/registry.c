/*
 * registry.c - the rule table and the fact-family table: the one place a new rule, or a
 * new family of facts with its collector, is registered.
 */
#include "hotscan/facts.h"
#include "hotscan/rules.h"

#include <string.h>

extern const hs_rule hs_rule_timer_hot_path;
extern const hs_rule hs_rule_timer_duplicate;
extern const hs_rule hs_rule_atomic_seqcst_counter;
extern const hs_rule hs_rule_os_event;

extern const hs_fact_family hs_family_timers;
extern const hs_fact_family hs_family_atomics;
extern const hs_fact_family hs_family_events;

/* The families whose facts the merge reads into typed stores, in merge order. */
static const hs_fact_family *const all_families[] = {
    &hs_family_timers,
    &hs_family_atomics,
    &hs_family_events,
};

const hs_fact_family *const *hs_fact_families(size_t *count)
{
    *count = sizeof all_families / sizeof all_families[0];
    return all_families;
}

static const hs_rule *const all_rules[] = {
    &hs_rule_timer_hot_path,
    &hs_rule_timer_duplicate,
    &hs_rule_atomic_seqcst_counter,
    &hs_rule_os_event,
};

const hs_rule *const *hs_rules_all(size_t *count)
{
    *count = sizeof all_rules / sizeof all_rules[0];
    return all_rules;
}

const hs_rule *hs_rule_find(const char *id)
{
    size_t n;
    const hs_rule *const *rules = hs_rules_all(&n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(rules[i]->id, id) == 0)
            return rules[i];
    return NULL;
}
