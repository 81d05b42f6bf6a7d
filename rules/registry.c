/*
 * registry.c - the rule table: the one place a new rule is registered.
 */
#include "hotscan/rules.h"

#include <string.h>

extern const hs_rule hs_rule_timer_hot_path;
extern const hs_rule hs_rule_timer_duplicate;
extern const hs_rule hs_rule_atomic_seqcst_counter;
extern const hs_rule hs_rule_os_event;

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
