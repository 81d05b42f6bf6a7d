/*
 * emit.h - writers for a finished report (the schema v1 JSON document).
 *
 * Every writer takes the same report object, so formats cannot disagree about what
 * was found: JSON is the report itself; text is compiler-style diagnostics; SARIF,
 * clang-tidy YAML and unified diffs are derived from it.
 */
#ifndef HOTSCAN_EMIT_H
#define HOTSCAN_EMIT_H

#include <jansson.h>
#include <stdio.h>
#include <stdbool.h>

bool hs_emit_json(FILE *out, json_t *report);
/* SARIF 2.1.0 for GitHub code scanning; fixes become result.fixes (emit_sarif.c). */
bool hs_emit_sarif(FILE *out, json_t *report);
/*
 * clang-tidy's export-fixes YAML (MainSourceFile, Diagnostics[...Replacements]), written
 * with libyaml, for clang-apply-replacements. Only verified fixes. (emit_yaml.c)
 */
bool hs_emit_export_fixes(FILE *out, json_t *report, char **err);
/*
 * A unified diff (a/ and b/ prefixes, paths relative to the report's root) of every
 * verified fix, for `git apply` and `patch -p1`. Files are read from the root; a file
 * whose content no longer matches the report's hash is an error. (emit_patch.c)
 */
bool hs_emit_patch(FILE *out, json_t *report, char **err);
/* file:line:col: severity: message [rule], with the hot path and related places as notes. */
bool hs_emit_text(FILE *out, json_t *report, bool color);

#endif
