/*
 * findings.h - builds findings as schema v1 JSON objects and puts a finished list in
 * its final form: paths relative to the root, a stable order, fingerprints.
 */
#ifndef HOTSCAN_FINDINGS_H
#define HOTSCAN_FINDINGS_H

#include <jansson.h>

#include "hotscan/facts.h"

/* A finding located at `fact` (which has file, line, column, end_line, end_column). */
json_t *hs_finding_new(const char *rule, const char *severity, const char *confidence,
                       json_t *fact, const char *function, const char *message);
/* A finding located at a typed fact's site. */
json_t *hs_finding_at(const char *rule, const char *severity, const char *confidence, const hs_site *site,
                      const char *function, const char *message);
void hs_finding_add_related(json_t *finding, const char *file, unsigned line, unsigned column,
                            const char *message);
void hs_finding_add_path_step(json_t *finding, const char *function, const char *file,
                              unsigned line);
/* A fix made of edits; `edits` is an array of {file, offset, length, replacement}. */
void hs_finding_add_fix(json_t *finding, const char *description, json_t *edits);

/*
 * Makes every path relative to `root`, sorts by file, line, column and rule, and gives
 * each finding a fingerprint built from what it is (rule, file, function, code) rather
 * than where it is, so it survives unrelated edits and line shifts.
 */
void hs_findings_finalize(json_t *findings, const char *root);

/* "low" 1, "medium" 2, "high" 3; 0 for anything else. */
int hs_confidence_rank(const char *confidence);
/* Drops findings whose confidence ranks below `min_rank` (--min-confidence); returns how
 * many it dropped. A finding without a confidence counts as high. */
size_t hs_findings_drop_below(json_t *findings, int min_rank);
/* A new array of the findings `hs_findings_drop_below(findings, min_rank)` would keep (the
 * same objects, referenced again), for work only shown findings need. */
json_t *hs_findings_at_least(json_t *findings, int min_rank);

/* Drops findings whose member `key` is true ("suppressed", "baselined", "outside_diff");
 * returns how many it dropped. */
size_t hs_findings_drop_marked(json_t *findings, const char *key);

/* Severity order for comparisons: error > warning > note. */
int hs_severity_rank(const char *severity);

#endif
