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
    hs_vec edits;          /* hs_edit*, sorted by offset (an insertion before a replacement at
                              the same offset), no duplicates, no overlaps */
} hs_file_edits;

typedef struct {
    char *root;            /* realpath of report["root"] */
    hs_vec files;          /* hs_file_edits*, sorted by path */
    hs_vec problems;       /* char*: "file: why an edit or a file was refused" */
    size_t refused;        /* distinct edits of verified fixes that the plan leaves out */
    hs_vec stale;          /* char*: files (as the report names them) that changed since
                              the scan; their edits are refused */
} hs_edit_plan;

/*
 * Builds the plan for every verified fix in `report` (root: report["root"]).
 * Returns false only for an unusable report (err set); refused edits go to problems.
 */
bool hs_edit_plan_build(json_t *report, hs_edit_plan *plan, char **err);
void hs_edit_plan_free(hs_edit_plan *plan);

/* hs_edit_plan_build for writers that must not emit edits for files changed since the
 * scan: false with *err naming them ("rescan first") and nothing to free. */
bool hs_edit_plan_build_fresh(json_t *report, hs_edit_plan *plan, char **err);

/* The file's content with its edits applied (caller frees). */
char *hs_file_edits_apply(const hs_file_edits *fe, size_t *size_out);

/*
 * Writes one file's edits: re-reads the file and refuses it if it changed since the plan
 * was built, refuses a file without any write permission bit (checked on the mode, since
 * root ignores permissions) or one whose path no longer resolves to the same place under
 * the root, then writes a temporary file in the same folder, gives it the original mode
 * (and owner, when allowed), fsyncs it and renames it over the original. On any failure the
 * original is untouched and the temporary file removed. With dry_run, only the checks run.
 * Says why on `log` (when not NULL) and returns false when the file was not (or would not
 * be) written.
 */
bool hs_file_edits_write(const hs_file_edits *fe, bool dry_run, FILE *log);

/*
 * Writes every file of the plan with hs_file_edits_write (for `hotscan apply` and
 * `scan --fix`). Returns the number of files it could not write (with dry_run: would not);
 * 0 means every edit in the plan was applied. The plan's own problems are not printed.
 */
int hs_apply_plan(const hs_edit_plan *plan, bool dry_run, FILE *log);

/*
 * The plan as a unified diff (`--- a/PATH`, `+++ b/PATH`, 3 lines of context), hunks built
 * from the edit positions. hs_emit_patch is this over a freshly built plan. (emit_patch.c)
 */
bool hs_edit_plan_write_patch(FILE *out, const hs_edit_plan *plan);

/* FNV-1a 64 of a file's bytes as 16 hex digits: the hash the report's "files" map holds. */
char *hs_content_hash(const char *data, size_t size);

#endif
