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
} hs_judge_options;

/* True when the options let rule `id` run. */
bool hs_judge_rule_enabled(const hs_judge_options *o, const char *id);

/*
 * Computes hotness, runs the enabled rules, and returns their findings (schema v1
 * objects, not yet finalized); report-level sections rules add (os-event's "objects")
 * go into *extra, a new object.
 */
json_t *hs_judge_run(hs_program *p, const hs_ruledata *rd, const hs_judge_options *o, json_t **extra);

#endif
