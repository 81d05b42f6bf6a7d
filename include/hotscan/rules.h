/*
 * rules.h - the uniform interface every rule implements, and the rule table.
 *
 * A rule is one file under rules/: it reads the program model and the rule data and
 * appends findings (schema v1 objects, see docs/json-schema.md) through findings.h. Adding a
 * rule touches only its own file, its doc page, its corpus and the table in
 * rules/registry.c.
 */
#ifndef HOTSCAN_RULES_H
#define HOTSCAN_RULES_H

#include <jansson.h>

#include "hotscan/program.h"
#include "hotscan/ruledata.h"

typedef enum { HS_FIX_SAFE = 0, HS_FIX_AGGRESSIVE = 1 } hs_fix_level;

typedef struct {
    const hs_program *program;
    const hs_ruledata *rd;
    hs_fix_level fix_level;
    /* A partial scan: PATHs left out this many of the compile database's TUs. Whole-program
     * verdicts ("only ever used as a counter") then cover the scanned TUs only. */
    size_t tus_left_out, tus_in_database;
    json_t *findings;         /* where hs_judge_add_finding puts a finding when `packed` is NULL */
    json_t *extra;            /* report-level additions (e.g. os-event's "objects") */
    struct hs_finding_pack *packed; /* set by hs_judge_run: finished findings kept as JSON text */
} hs_judge_ctx;

/*
 * A rule hands over each finding here once it is finished (the rule gives up its
 * reference and never touches it again): packed as JSON text while the program model is
 * alive (hs_judge_run_packed), else appended to ctx->findings.
 */
void hs_judge_add_finding(hs_judge_ctx *ctx, json_t *finding);

typedef struct hs_rule {
    const char *id;
    const char *summary;      /* one line, for `hotscan rules` and SARIF shortDescription */
    const char *description;  /* a paragraph, for SARIF fullDescription */
    const char *doc;          /* doc page, relative to the repository */
    /* SARIF's defaultConfiguration.level: "error", "warning" or "note" (a finding may say
     * otherwise: timer-hot-path's severity follows the clock's cost). */
    const char *default_severity;
    /* How often a finding is right, in CodeQL's words: "very-high", "high", "medium" or
     * "low" (SARIF's properties.precision); why, in the rule's doc page. */
    const char *precision;
    /* The rule-data sections it reads (docs/rule-data.md: "timers", "clock_ids", ...),
     * NULL-terminated; `hotscan rules --format json` lists them per rule. */
    const char *const *data_sections;
    void (*judge)(hs_judge_ctx *ctx);
    /* The fact families whose stores `judge` reads, NULL-terminated: once no later rule of
     * the table reads a family, the judge may free its store (hs_judge_options.release_stores).
     * NULL when not declared: then no store is freed before this rule has run. */
    const hs_fact_family *const *reads;
} hs_rule;

/* The table, in a fixed order. */
const hs_rule *const *hs_rules_all(size_t *count);
const hs_rule *hs_rule_find(const char *id);
/* A rule's friendly name, TimerHotPath for timer-hot-path (SARIF's rule "name"); malloc'd. */
char *hs_rule_pascal_name(const char *id);

/* A doc page built into the binary: its file name under docs/rules/ and its text. */
typedef struct {
    const char *name;
    const char *text;
} hs_doc_page;
/* The pages, generated at build time from the .md files of docs/rules/ (cmake/EmbedRuleDocs.cmake). */
extern const hs_doc_page hs_rule_doc_pages[];
extern const size_t hs_rule_doc_page_count;
/* The text of the rule's doc page (rule->doc) as built in, or NULL when there is none. */
const char *hs_rule_doc_page(const hs_rule *rule);

#endif
