/*
 * registry.c - the registration tables: rules, and each rule family's collector (what the
 * walk calls while it parses a TU) and fact family (what the merge reads the collector's
 * facts into). The one place a new rule, or a new family, is registered.
 */
#include "hotscan/facts.h"
#include "hotscan/rules.h"
#include "hotscan/walk.h"

#include "hotscan/common.h"

#include <string.h>

extern const hs_rule hs_rule_timer_hot_path;
extern const hs_rule hs_rule_timer_duplicate;
extern const hs_rule hs_rule_atomic_seqcst_counter;
extern const hs_rule hs_rule_os_event;

extern const hs_collector hs_collector_timers;
extern const hs_collector hs_collector_atomics;
extern const hs_collector hs_collector_events;

/*
 * The walk (analyzer/extract/extract.c) calls the hooks of every collector in this order,
 * and each family's lists appear in the facts document in this order too: clock_reads,
 * atomics, events, event_objects (after functions and calls). Keep the order: the facts
 * document is a wire format.
 */
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

const char *hs_rule_doc_page(const hs_rule *rule)
{
    const char *slash = rule && rule->doc ? strrchr(rule->doc, '/') : NULL;
    const char *name = slash ? slash + 1 : rule ? rule->doc : NULL;
    for (size_t i = 0; name && i < hs_rule_doc_page_count; i++)
        if (strcmp(hs_rule_doc_pages[i].name, name) == 0)
            return hs_rule_doc_pages[i].text;
    return NULL;
}

char *hs_rule_pascal_name(const char *id)
{
    char *name = hs_xmalloc(strlen(id) + 1);
    size_t n = 0;
    bool upper = true;
    for (const char *p = id; *p; p++) {
        if (*p == '-' || *p == '_' || *p == ' ') {
            upper = true;
            continue;
        }
        name[n++] = upper && *p >= 'a' && *p <= 'z' ? (char)(*p - 'a' + 'A') : *p;
        upper = false;
    }
    name[n] = '\0';
    return name;
}
