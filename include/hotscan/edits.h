/*
 * edits.h - turns a report's verified fixes into per-file edit lists, safely.
 *
 * Shared by `hotscan apply`, `scan --fix`, the patch writer and the YAML writer, so all
 * of them agree on which edits are applied: identical edits reached through several
 * TUs or through symlinked paths count once; two different edits that overlap are both
 * refused (and reported); a file that changed since the scan (content hash in the
 * report's "files" map) is refused; nothing outside the root is touched.
 */
#ifndef HOTSCAN_EDITS_H
#define HOTSCAN_EDITS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "hotscan/common.h"

typedef struct {
    size_t offset, length;
    char *replacement;
    const char *finding;   /* fingerprint of the finding it fixes (borrowed from the report) */
} hs_edit;

typedef struct {
    char *path;            /* as written in the report, relative to the root */
    char *real_path;       /* resolved, absolute, under the root */
    char *content;         /* the file as read now */
    size_t size;
    hs_vec edits;          /* hs_edit*, sorted by offset, no duplicates, no overlaps */
} hs_file_edits;

typedef struct {
    hs_vec files;          /* hs_file_edits* */
    hs_vec problems;       /* char*: "file: why an edit or a file was refused" */
} hs_edit_plan;

/*
 * Builds the plan for every verified fix in `report` (root: report["root"]).
 * Returns false only for an unusable report (err set); refused edits go to problems.
 */
bool hs_edit_plan_build(json_t *report, hs_edit_plan *plan, char **err);
void hs_edit_plan_free(hs_edit_plan *plan);

/* The file's content with its edits applied (caller frees). */
char *hs_file_edits_apply(const hs_file_edits *fe, size_t *size_out);

/* FNV-1a 64 of a file's bytes as 16 hex digits: the hash the report's "files" map holds. */
char *hs_content_hash(const char *data, size_t size);

#endif
