/*
 * judge.c - the judge stage (judge.h): hot roots from the command line and the rule data,
 * then the rule table. Each finished finding is packed as compact JSON text
 * (hs_finding_pack) while the program model is alive: as jansson trees, a synthetic
 * tree's findings took a third of the supervisor's heap at its peak, on top of the model.
 */
#include "hotscan/judge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct hs_finding_pack {
    hs_vec texts;  /* char*, one finding's JSON text each, in the order added */
    char *extra;   /* the packed report sections, or NULL */
};

/* Compact, and every string as it is (NULs escaped, read back with JSON_ALLOW_NUL); jansson
 * keeps an object's members in insertion order both ways, so a finding comes back as it was. */
#define PACK_FLAGS (JSON_COMPACT)

hs_finding_pack *hs_finding_pack_create(void)
{
    return hs_xcalloc(1, sizeof(hs_finding_pack));
}

static char *pack_text(json_t *value)
{
    char *text = json_dumps(value, PACK_FLAGS);
    if (!text) {
        /* Only when out of memory (hs_x* allocations abort then too). */
        fprintf(stderr, "hotscan: error: out of memory packing a finding\n");
        abort();
    }
    return text;
}

static json_t *unpack_text(char *text)
{
    json_error_t err;
    json_t *value = json_loads(text, JSON_ALLOW_NUL, &err);
    if (!value) {
        /* jansson read back what it wrote: this would be a jansson bug. */
        fprintf(stderr, "hotscan: error: a packed finding does not read back: %s\n", err.text);
        abort();
    }
    free(text);
    return value;
}

void hs_finding_pack_add(hs_finding_pack *k, json_t *finding)
{
    hs_vec_push(&k->texts, pack_text(finding));
    json_decref(finding);
}

size_t hs_finding_pack_count(const hs_finding_pack *k)
{
    return k->texts.len;
}

json_t *hs_finding_pack_take(hs_finding_pack *k, json_t **extra)
{
    json_t *findings = json_array();
    for (size_t i = 0; i < k->texts.len; i++) {
        json_array_append_new(findings, unpack_text(k->texts.items[i]));
        k->texts.items[i] = NULL;
    }
    hs_vec_free(&k->texts);
    json_t *sections = k->extra ? unpack_text(k->extra) : json_object();
    if (extra)
        *extra = sections;
    else
        json_decref(sections);
    free(k);
    return findings;
}

hs_finding_pack *hs_finding_pack_park(json_t *findings, bool (*keep)(json_t *finding, size_t i, void *user),
                                      void *user)
{
    hs_finding_pack *k = hs_finding_pack_create();
    for (size_t i = 0; i < json_array_size(findings); i++) {
        json_t *f = json_array_get(findings, i);
        if (keep(f, i, user)) {
            hs_vec_push(&k->texts, NULL);
            continue;
        }
        hs_vec_push(&k->texts, pack_text(f));
        json_array_set_new(findings, i, json_null());
    }
    return k;
}

void hs_finding_pack_unpark(hs_finding_pack *k, json_t *findings)
{
    for (size_t i = 0; i < k->texts.len; i++)
        if (k->texts.items[i])
            json_array_set_new(findings, i, unpack_text(k->texts.items[i]));
    hs_vec_free(&k->texts);
    free(k->extra);
    free(k);
}

void hs_judge_add_finding(hs_judge_ctx *ctx, json_t *finding)
{
    if (ctx->packed)
        hs_finding_pack_add(ctx->packed, finding);
    else
        json_array_append_new(ctx->findings, finding);
}

static bool reads_family(const hs_rule *rule, const hs_fact_family *family)
{
    for (size_t i = 0; rule->reads && rule->reads[i]; i++)
        if (rule->reads[i] == family)
            return true;
    return false;
}

/*
 * After rule `done` of the table ran: frees the stores of the families it read that no later
 * enabled rule reads (the atomics' operations, a fifth of a synthetic tree's model, are gone
 * before os-event builds its objects). Nothing is freed while a later enabled rule has not
 * declared what it reads.
 */
static void release_read_stores(hs_program *p, const hs_rule *const *rules, size_t nrules, size_t done,
                                const hs_judge_options *o)
{
    for (size_t r = done + 1; r < nrules; r++)
        if (hs_judge_rule_enabled(o, rules[r]->id) && !rules[r]->reads)
            return;
    const hs_rule *rule = rules[done];
    for (size_t i = 0; rule->reads && rule->reads[i]; i++) {
        bool later = false;
        for (size_t r = done + 1; r < nrules && !later; r++)
            later = hs_judge_rule_enabled(o, rules[r]->id) && reads_family(rules[r], rule->reads[i]);
        if (!later)
            hs_program_release_store(p, rule->reads[i]);
    }
}

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

hs_finding_pack *hs_judge_run_packed(hs_program *p, const hs_ruledata *rd, const hs_judge_options *o)
{
    /* What only the merge needed (de-duplication keys, its indexes) goes first: the rules'
     * work below reuses that memory. */
    hs_program_end_merge(p);
    /* Hot roots declared in rule data join those named on the command line. */
    size_t n_hot = o->n_hot + rd->hot_functions.len;
    char **hot = hs_xcalloc(n_hot ? n_hot : 1, sizeof *hot);
    for (size_t i = 0; i < o->n_hot; i++)
        hot[i] = o->hot[i];
    for (size_t i = 0; i < rd->hot_functions.len; i++)
        hot[o->n_hot + i] = rd->hot_functions.items[i];
    hs_program_compute_hotness(p, hot, n_hot);
    free(hot);

    hs_finding_pack *pack = hs_finding_pack_create();
    json_t *extra = json_object();
    /* The report's summary gains how many functions are hot (roots included). */
    size_t hot_functions = 0;
    for (size_t i = 0; i < p->function_list.len; i++)
        hot_functions += ((const hs_function *)p->function_list.items[i])->hot_depth >= 0;
    json_object_set_new(extra, "summary", json_pack("{s:I}", "hot_functions", (json_int_t)hot_functions));
    /* A --hot name that names no function makes the scan look for nothing hot: say so. */
    json_t *unmatched = json_array();
    for (size_t i = 0; i < o->n_hot; i++)
        if (!hs_program_names_function(p, o->hot[i]))
            json_array_append_new(unmatched, json_string(o->hot[i]));
    if (json_array_size(unmatched))
        json_object_set(json_object_get(extra, "summary"), "hot_roots_unmatched", unmatched);
    json_decref(unmatched);
    size_t nrules;
    const hs_rule *const *rules = hs_rules_all(&nrules);
    for (size_t r = 0; r < nrules; r++) {
        if (!hs_judge_rule_enabled(o, rules[r]->id))
            continue;
        hs_judge_ctx ctx = {.program = p, .rd = rd, .fix_level = o->fix_level,
                            .tus_left_out = o->tus_left_out, .tus_in_database = o->tus_in_database,
                            .extra = extra, .packed = pack};
        rules[r]->judge(&ctx);
        if (o->release_stores)
            release_read_stores(p, rules, nrules, r, o);
    }
    pack->extra = pack_text(extra);
    json_decref(extra);
    return pack;
}

json_t *hs_judge_run(hs_program *p, const hs_ruledata *rd, const hs_judge_options *o, json_t **extra)
{
    return hs_finding_pack_take(hs_judge_run_packed(p, rd, o), extra);
}
