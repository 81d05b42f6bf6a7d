/*
 * suppress.h - inline suppressions in clang-tidy's spelling: `// NOLINT`, `// NOLINT(rule,...)`,
 * `// NOLINTNEXTLINE(...)`, `// NOLINTBEGIN(...)` ... `// NOLINTEND(...)`, with hotscan's rule
 * ids or `hotscan-<rule>` as the check names (globs with `*` as in clang-tidy).
 *
 * A finding is suppressed by a comment on the line it is reported at (for code inside a macro
 * expansion that is the macro's use), on the line before with NOLINTNEXTLINE, or inside a
 * NOLINTBEGIN/NOLINTEND region. Only comments count: NOLINT inside a string literal does not.
 */
#ifndef HOTSCAN_SUPPRESS_H
#define HOTSCAN_SUPPRESS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct hs_suppressions hs_suppressions;

/* Files are read when first asked about; `root` resolves relative finding paths. */
hs_suppressions *hs_suppressions_create(const char *root);
void hs_suppressions_delete(hs_suppressions *s);

/* Parses `text` as the contents of `file` (replacing what was known of it); tests call this
 * directly, the scan reads files through hs_suppressions_matches. */
void hs_suppressions_add_text(hs_suppressions *s, const char *file, const char *text, size_t size);

/* True when `rule` is suppressed at `file`:`line`; the suppression that matched is marked
 * used. An unreadable file suppresses nothing. */
bool hs_suppressions_matches(hs_suppressions *s, const char *file, unsigned line, const char *rule);

/* Sets "suppressed": true on each finding (schema v1 objects) a suppression covers; returns
 * how many. */
size_t hs_suppressions_mark(hs_suppressions *s, json_t *findings);

/* Reads `file` (if not read yet), so hs_suppressions_unused can see its suppressions. */
void hs_suppressions_load(hs_suppressions *s, const char *file);

/* The suppressions that name a hotscan rule explicitly (not bare NOLINT or `*`, which other
 * tools' checks share) and suppressed nothing, and NOLINTBEGIN/NOLINTEND (bare or naming a
 * hotscan rule) that do not pair up: a new array of {file, line, column, text, message}, sorted by file and line, with files
 * relative to the root. */
json_t *hs_suppressions_unused(hs_suppressions *s);

/* True when `pattern` (a check name, `*` matching any run of characters) names `rule`, as
 * itself or as `hotscan-<rule>`. */
bool hs_suppression_names_rule(const char *pattern, const char *rule);

#endif
