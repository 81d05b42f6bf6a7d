/*
 * judge.c - the judge stage (judge.h): hot roots from the command line and the rule data,
 * then the rule table.
 */
#include "hotscan/judge.h"

#include <stdlib.h>
#include <string.h>

static bool listed(char **names, size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], id) == 0)
            return true;
    return false;
}

bool hs_judge_rule_enabled(const hs_judge_options *o, const char *id)
{
    if (o->n_enable && !listed(o->enable, o->n_enable, id))
        return false;
    return !listed(o->disable, o->n_disable, id);
}

json_t *hs_judge_run(hs_program *p, const hs_ruledata *rd, const hs_judge_options *o, json_t **extra)
{
    /* Hot roots declared in rule data join those named on the command line. */
    size_t n_hot = o->n_hot + rd->hot_functions.len;
    char **hot = hs_xcalloc(n_hot ? n_hot : 1, sizeof *hot);
    for (size_t i = 0; i < o->n_hot; i++)
        hot[i] = o->hot[i];
    for (size_t i = 0; i < rd->hot_functions.len; i++)
        hot[o->n_hot + i] = rd->hot_functions.items[i];
    hs_program_compute_hotness(p, hot, n_hot);
    free(hot);

    json_t *findings = json_array();
    *extra = json_object();
    /* The report's summary gains how many functions are hot (roots included). */
    size_t hot_functions = 0;
    for (size_t i = 0; i < p->function_list.len; i++)
        hot_functions += ((const hs_function *)p->function_list.items[i])->hot_depth >= 0;
    json_object_set_new(*extra, "summary", json_pack("{s:I}", "hot_functions", (json_int_t)hot_functions));
    size_t nrules;
    const hs_rule *const *rules = hs_rules_all(&nrules);
    for (size_t r = 0; r < nrules; r++) {
        if (!hs_judge_rule_enabled(o, rules[r]->id))
            continue;
        hs_judge_ctx ctx = {.program = p, .rd = rd, .fix_level = o->fix_level,
                            .tus_left_out = o->tus_left_out, .tus_in_database = o->tus_in_database,
                            .findings = findings, .extra = *extra};
        rules[r]->judge(&ctx);
    }
    return findings;
}
