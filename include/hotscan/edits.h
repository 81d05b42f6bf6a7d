/*
 * edits.h - turns a report's verified fixes into per-file edit lists, safely.
 *
 * Shared by `hotscan apply`, `scan --fix`, the patch writer and the YAML writer, so all
 * of them agree on which edits are applied: identical edits reached through several
 * TUs or through symlinked paths count once; two different edits that overlap are both
 * refused (and reported); a file that changed since the scan (content hash in the
 * report's "files" map) is refused; nothing outside the root is touched.
 *
 * A finding's fixes are alternatives (as SARIF's result.fixes are): the plan takes the
 * first verified one. A fix is all or nothing: when one of its edits is refused, none of
 * them is applied, since half a fix rarely compiles.
 */
#ifndef HOTSCAN_EDITS_H
#define HOTSCAN_EDITS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include "hotscan/common.h"

typedef struct {
    size_t offset, length;
    char *replacement;
    const char *finding;   /* fingerprint of the finding it fixes (borrowed from the report) */
    size_t finding_index;  /* that finding's index in report["findings"] (the first one
                              whose fix is applied, when several fixes hold the edit) */
} hs_edit;

typedef struct {
    char *path;            /* relative to the root, symlinks resolved (a/ b/ names in a patch) */
    char *real_path;       /* resolved, absolute, under the root */
    char *content;         /* the file as read now */
    size_t size;
    bool digest;           /* the report's "files" map holds its hash: the plan knows the
                              content the offsets were computed on */
    hs_vec edits;          /* hs_edit*, sorted by offset (an insertion before a replacement at
                              the same offset), no duplicates, no overlaps */
} hs_file_edits;

typedef struct {
    char *root;            /* realpath of report["root"], or of the confining folder */
    hs_vec files;          /* hs_file_edits*, sorted by path */
    hs_vec problems;       /* char*: "file: why an edit or a file was refused" */
    size_t refused;        /* distinct edits of verified fixes that the plan leaves out */
    hs_vec stale;          /* char*: files (as the report names them) that changed since
                              the scan; their edits are refused */
    bool trust_until_set;  /* set by the caller (apply --trust-offsets): a file without a */
    struct timespec trust_until; /* digest is written only when it was last modified
                              before this (the report's modification time) */
} hs_edit_plan;

/*
 * Builds the plan for every verified fix in `report` (root: report["root"]).
 * Returns false only for an unusable report (err set); refused edits go to problems.
 */
bool hs_edit_plan_build(json_t *report, hs_edit_plan *plan, char **err);
/* The same, with edits confined to `confine` (its real path becomes plan.root) instead of
 * the report's root; relative paths in the report still resolve against the report's root.
 * `hotscan apply` confines to --root or the current directory: a report's own "root" is
 * not trusted to say where writing is allowed. NULL: the report's root. */
bool hs_edit_plan_build_confined(json_t *report, const char *confine, hs_edit_plan *plan,
                                 char **err);
void hs_edit_plan_free(hs_edit_plan *plan);

/* hs_edit_plan_build for writers that must not emit edits for files changed since the
 * scan: false with *err naming them ("rescan first") and nothing to free. */
bool hs_edit_plan_build_fresh(json_t *report, hs_edit_plan *plan, char **err);

/* The file's content with its edits applied (caller frees). */
char *hs_file_edits_apply(const hs_file_edits *fe, size_t *size_out);

/* What hs_apply_plan did. */
typedef struct {
    size_t files_written;  /* (with dry_run: that would be) */
    size_t edits_applied;
    size_t edits_refused;  /* edits of the plan left out while writing: their file, or
                              another file their fix edits, could not be written */
    hs_vec written;        /* hs_file_edits* of the plan that were written (borrowed) */
} hs_apply_result;

/*
 * Writes the plan (for `hotscan apply` and `scan --fix`), whole fixes only:
 *  1. locks the folder of every file (flock, in path order), so that two hotscan runs never
 *     interleave their checks and renames on one file, and removes temporary files killed
 *     runs left in those folders;
 *  2. checks every file: it still resolves to the same real path under the root, is a
 *     regular file with a write permission bit (checked on the mode, since root ignores
 *     permissions) that access(W_OK) allows, and its content is still what the plan read;
 *     with trust_until_set, a file without a digest must also have been last modified
 *     before trust_until (a run that wrote it since, or an edit, refuses it);
 *  3. writes each file's new content to a temporary file beside it (owner, group, then mode
 *     of the original; fsynced); a fix with an edit in a file that failed 2 or 3 loses its
 *     edits in every file (they are removed from the plan), and this repeats until nothing
 *     more fails;
 *  4. renames every temporary file over its original and syncs the folders.
 * So a fix is applied in every file it edits or in none, and nothing is written before every
 * file was checked. With dry_run, only the checks run. Says why on `log` (when not NULL).
 * Returns the number of files of the plan not written (0: everything was applied); `res`,
 * when not NULL, gets the counts (free it with hs_apply_result_free).
 */
int hs_apply_plan(hs_edit_plan *plan, bool dry_run, FILE *log, hs_apply_result *res);
void hs_apply_result_free(hs_apply_result *res);

/* hs_apply_plan for one file; true when it was written (would be, with dry_run). */
bool hs_file_edits_write(hs_file_edits *fe, bool dry_run, FILE *log);

/*
 * The plan as a unified diff (`--- a/PATH`, `+++ b/PATH`, 3 lines of context), hunks built
 * from the edit positions. hs_emit_patch is this over a freshly built plan. (emit_patch.c)
 */
bool hs_edit_plan_write_patch(FILE *out, const hs_edit_plan *plan);

/* FNV-1a 64 of a file's bytes as 16 hex digits: the hash the report's "files" map holds. */
char *hs_content_hash(const char *data, size_t size);

#endif
