/*
 * judge.h - the judge stage: hotness over the merged program, then every enabled rule of
 * the table (rules/registry.c) in table order, each appending findings.
 */
#ifndef HOTSCAN_JUDGE_H
#define HOTSCAN_JUDGE_H

#include <jansson.h>

#include "hotscan/program.h"
#include "hotscan/ruledata.h"
#include "hotscan/rules.h"

typedef struct {
    char **hot;              /* --hot names; rule data's hot_functions join them */
    size_t n_hot;
    char **enable;           /* when n_enable > 0, only these rule ids run */
    size_t n_enable;
    char **disable;          /* these rule ids never run */
    size_t n_disable;
    hs_fix_level fix_level;
    size_t tus_left_out;     /* compile-database TUs the PATHs left out (hs_discovery) */
    size_t tus_in_database;
    bool release_stores;     /* free each fact family's store once no later enabled rule reads
                                it (hs_rule.reads): the scan's judge peak is lower; the caller
                                then reads no store after the judge */
} hs_judge_options;

/* True when the options let rule `id` run. */
bool hs_judge_rule_enabled(const hs_judge_options *o, const char *id);

/*
 * Computes hotness, runs the enabled rules, and returns their findings (schema v1
 * objects, not yet finalized); report-level sections rules add (os-event's "objects")
 * go into *extra, a new object.
 */
json_t *hs_judge_run(hs_program *p, const hs_ruledata *rd, const hs_judge_options *o, json_t **extra);

/*
 * Findings and report sections packed as compact JSON text (a few hundred bytes a finding
 * instead of the few KB a jansson tree takes), so that they need not sit as jansson
 * objects beside the program model: the judge's peak memory is the model plus the packed
 * text, and the trees come back (hs_finding_pack_take) once the model is deleted.
 */
typedef struct hs_finding_pack hs_finding_pack;

hs_finding_pack *hs_finding_pack_create(void);
/* Packs `finding` (its reference is taken). */
void hs_finding_pack_add(hs_finding_pack *k, json_t *finding);
size_t hs_finding_pack_count(const hs_finding_pack *k);
/* The findings, in the order added, as a new array; *extra gets the packed report sections
 * (an object). Deletes the pack. */
json_t *hs_finding_pack_take(hs_finding_pack *k, json_t **extra);

/*
 * Parks the findings `keep` refuses (called with each finding and its index): each is packed
 * and its slot in `findings` holds null until hs_finding_pack_unpark puts it back as it was
 * (which deletes the pack). The fix stage keeps as trees only the findings whose fixes it
 * verifies, so its reparsing workers, forked from the supervisor, do not inherit the rest.
 */
hs_finding_pack *hs_finding_pack_park(json_t *findings, bool (*keep)(json_t *finding, size_t i, void *user),
                                      void *user);
void hs_finding_pack_unpark(hs_finding_pack *k, json_t *findings);

/* hs_judge_run with the findings and *extra left packed: the caller may delete the program
 * model before taking them (hs_finding_pack_take gives what hs_judge_run would return). */
hs_finding_pack *hs_judge_run_packed(hs_program *p, const hs_ruledata *rd, const hs_judge_options *o);

#endif
