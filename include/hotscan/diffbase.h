/*
 * diffbase.h - --diff-base REF: the lines a change touched (git diff REF, plus untracked
 * files), and which findings lie on them, as clang-tidy-diff does; a hot-path finding also
 * counts when its hot path passes through a function the change touched.
 */
#ifndef HOTSCAN_DIFFBASE_H
#define HOTSCAN_DIFFBASE_H

#include <jansson.h>
#include <stdbool.h>

#include "hotscan/program.h"

typedef struct hs_changed_lines hs_changed_lines;

/* Runs git in `root`'s repository: `git diff -U0 REF` (the working tree against REF,
 * uncommitted changes included) and the untracked files (all their lines are new). REF is
 * only ever read as a revision (never as an option of git's) and must name a commit. NULL
 * with *err saying why (not a repository, REF not a commit). */
hs_changed_lines *hs_changed_lines_from_git(const char *root, const char *ref, char **err);

/* From unified diff text whose paths are relative to `toplevel` (for tests). */
hs_changed_lines *hs_changed_lines_from_diff(const char *toplevel, const char *diff);
/* Every line of `file` (absolute) counts as changed. */
void hs_changed_lines_add_file(hs_changed_lines *c, const char *file);
void hs_changed_lines_delete(hs_changed_lines *c);

/* Whether a line in [first, last] of `file` (absolute) changed. */
bool hs_changed_lines_any(const hs_changed_lines *c, const char *file, unsigned first, unsigned last);
/* How many files have changed lines. */
size_t hs_changed_lines_files(const hs_changed_lines *c);

/* Sets "outside_diff": true on each finding (absolute paths, before finalize) that touches no
 * changed line: not its own range, not a related place, not a call its hot path takes, and
 * (with `p`) not the first line of a function on its hot path. Returns how many. */
size_t hs_changed_lines_mark(const hs_changed_lines *c, json_t *findings, const hs_program *p);

#endif
