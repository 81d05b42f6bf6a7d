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

typedef enum { HS_FORMAT_TEXT, HS_FORMAT_JSON, HS_FORMAT_SARIF } hs_report_format;

/*
 * The report: schema v1 with `findings`, `errors` and the `files` map (all taken), and the
 * members of `extra` (taken) merged in with their "file" paths made relative to the root.
 */
/* Where hotscan's docs are on this machine (`hotscan rules --format json`): the installed
 * copy (PREFIX/share/doc/hotscan beside the binary's PREFIX/bin), else the source tree's
 * docs/; an absolute path, or NULL when neither is there. */
char *hs_docs_dir(void);

json_t *hs_report_new(const char *root, size_t translation_units, json_t *findings, json_t *errors,
                      json_t *files_map, json_t *extra, double seconds);
/* Writes the report as text, JSON or SARIF. (report.c) */
bool hs_emit_report(FILE *out, json_t *report, hs_report_format format, bool color);
/*
 * --patch FILE, --export-fixes FILE ("-" is standard output) and, with `apply`, --fix: all
 * from the report's verified fixes. Problems go to `log`; false when any output failed.
 */
bool hs_emit_fix_outputs(json_t *report, const char *patch, const char *export_fixes, bool apply, FILE *log);

#endif
