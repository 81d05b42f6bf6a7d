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
/* file:line:col: severity: message [rule], with the hot path and related places as notes. */
bool hs_emit_text(FILE *out, json_t *report, bool color);

#endif
