/*
 * report.c - the emit stage's front: assembles the schema v1 report from the stages'
 * results, and writes it in the format asked for, with the fix outputs (--patch,
 * --export-fixes, --fix) derived from the same report.
 */
#define _GNU_SOURCE
#include "hotscan/emit.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "hotscan/common.h"
#include "hotscan/edits.h"
#include "hotscan/tempfiles.h"

/* Report-level sections rules add (os-event's "objects"): every "file" under the root
 * becomes relative to it, as in findings. */
static void relativize_files(json_t *v, const char *root)
{
    if (json_is_array(v)) {
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e) relativize_files(e, root);
    } else if (json_is_object(v)) {
        const char *key;
        json_t *val;
        json_object_foreach(v, key, val) {
            if (strcmp(key, "file") == 0 && json_is_string(val) && json_string_value(val)[0] == '/') {
                char *rel = hs_path_relative(root, json_string_value(val));
                json_object_set_new(v, key, json_string(rel));
                free(rel);
            } else {
                relativize_files(val, root);
            }
        }
    }
}

json_t *hs_report_new(const char *root, size_t translation_units, json_t *findings, json_t *errors,
                      json_t *files_map, json_t *extra, double seconds)
{
    json_t *report = json_object();
    json_object_set_new(report, "schema_version", json_integer(1));
    json_object_set_new(report, "tool", json_pack("{s:s, s:s}", "name", "hotscan", "version", HOTSCAN_VERSION));
    json_object_set_new(report, "root", json_string(root));
    json_object_set_new(report, "summary",
                        json_pack("{s:i, s:i, s:i, s:f}", "translation_units", (json_int_t)translation_units,
                                  "findings", (json_int_t)json_array_size(findings), "errors",
                                  (json_int_t)json_array_size(errors), "seconds", seconds));
    json_object_set_new(report, "findings", findings);
    json_object_set_new(report, "errors", errors);
    json_object_set_new(report, "files", files_map);
    /* A judge-level "summary" object adds to the summary rather than replacing it. */
    json_t *more = json_object_get(extra, "summary");
    if (json_is_object(more)) {
        json_object_update(json_object_get(report, "summary"), more);
        json_object_del(extra, "summary");
    }
    relativize_files(extra, root);
    json_object_update(report, extra);
    json_decref(extra);
    return report;
}

char *hs_docs_dir(void)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *dir = hs_dirname(exe);
        char *installed = hs_path_join(dir, "../share/doc/hotscan");
        free(dir);
        char *real = hs_realpath(installed);
        free(installed);
        char *rules = real ? hs_path_join(real, "rules") : NULL;
        bool ok = rules && access(rules, R_OK) == 0;
        free(rules);
        if (ok)
            return real;
        free(real);
    }
#ifdef HOTSCAN_SOURCE_DOCS_DIR
    return access(HOTSCAN_SOURCE_DOCS_DIR, R_OK) == 0 ? hs_xstrdup(HOTSCAN_SOURCE_DOCS_DIR) : NULL;
#else
    return NULL;
#endif
}

bool hs_emit_report(FILE *out, json_t *report, hs_report_format format, bool color)
{
    switch (format) {
    case HS_FORMAT_JSON:
        return hs_emit_json(out, report);
    case HS_FORMAT_SARIF:
        return hs_emit_sarif(out, report);
    case HS_FORMAT_TEXT:
        break;
    }
    return hs_emit_text(out, report, color);
}

/* A fix output: FILE written through `writer` into memory, then to FILE through a temporary
 * file and a rename (or to standard output for "-"), so a reader never sees half of it. */
static bool write_with(const char *path, const char *what, json_t *report,
                       bool (*writer)(FILE *, json_t *, char **), FILE *log)
{
    char *data = NULL;
    size_t size = 0;
    FILE *mem = open_memstream(&data, &size);
    if (!mem) {
        fprintf(log, "hotscan: error: %s %s: %s\n", what, path, strerror(errno));
        return false;
    }
    char *err = NULL;
    bool ok = writer(mem, report, &err);
    if (fclose(mem) != 0)
        ok = false;
    if (ok && !hs_write_output(path, data, size, &err))
        ok = false;
    if (!ok)
        fprintf(log, "hotscan: error: %s %s: %s\n", what, path, err ? err : strerror(errno));
    free(err);
    free(data);
    return ok;
}

/* --patch, --export-fixes and --fix, all from the verified fixes in the report. */
bool hs_emit_fix_outputs(json_t *report, const char *patch, const char *export_fixes, bool apply, FILE *log)
{
    bool ok = true;
    if (patch)
        ok &= write_with(patch, "--patch", report, hs_emit_patch, log);
    if (export_fixes)
        ok &= write_with(export_fixes, "--export-fixes", report, hs_emit_export_fixes, log);
    if (apply) {
        hs_edit_plan plan;
        char *err = NULL;
        if (!hs_edit_plan_build(report, &plan, &err)) {
            fprintf(log, "hotscan: error: --fix: %s\n", err);
            free(err);
            return false;
        }
        for (size_t i = 0; i < plan.problems.len; i++)
            fprintf(log, "hotscan: --fix: %s\n", (char *)plan.problems.items[i]);
        /* A file that changed since the scan (another run's fix, an editor) or could not be
         * written fails --fix: its fixes are not in the tree, though the findings say fix-it. */
        ok &= hs_apply_plan(&plan, false, log, NULL) == 0 && plan.stale.len == 0;
        hs_edit_plan_free(&plan);
    }
    return ok;
}

