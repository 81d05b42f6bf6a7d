/*
 * cmd_apply.c - `hotscan apply`: writes a report's verified fixes into the tree.
 *
 * The safety rules live in the edit plan (edits.c): identical edits count once, overlapping
 * ones are refused, changed files and paths outside the root are skipped, writes are atomic
 * and keep the mode. This file loads the report, refuses one that holds no digest of a file
 * it edits (unless --trust-offsets), prints what the plan refused and says how it went.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "commands.h"
#include "hotscan/common.h"
#include "hotscan/edits.h"
#include "hotscan/tempfiles.h"

enum { OPT_DRY_RUN = 256, OPT_ROOT, OPT_TRUST_OFFSETS };

static const hs_cli_option apply_table[] = {
    {"dry-run", 0, OPT_DRY_RUN, NULL, "print the changes as a unified diff; write nothing", 0, NULL,
     HS_COMPLETE_NOTHING, NULL},
    {"root", 0, OPT_ROOT, "DIR", "apply under DIR instead of the report's root (a moved tree)", 0, NULL,
     HS_COMPLETE_DIRS, NULL},
    {"trust-offsets", 0, OPT_TRUST_OFFSETS, NULL,
     "apply a report that holds no digest of the files it edits (an older hotscan's, a hand-written "
     "one) to the files not modified since the report was written", 0, NULL, HS_COMPLETE_NOTHING, NULL},
    {"help", 'h', 'h', NULL, "show this help", 0, NULL, HS_COMPLETE_NOTHING, NULL},
    HS_OPTIONS_END,
};

const hs_cli_command hs_apply_command = {
    .name = "apply",
    .summary = "apply a JSON report's verified fixes (or --dry-run: show the diff)",
    .usage = "hotscan apply [options] FINDINGS.json",
    .about = "Applies the verified fixes of a JSON report (hotscan scan --format json) to the\n"
             "files under its root. Identical edits reached through several translation units or\n"
             "symlinked paths are applied once; overlapping different edits, files changed since\n"
             "the scan, files outside the root and read-only files are skipped with a message.\n"
             "Each file is replaced atomically and keeps its mode.",
    .options = apply_table,
    .epilog = "Exit status: 0 every edit applied, 1 some were refused or not written, 2 usage or\n"
              "input error.\n",
    .getopt_prefix = ":",
    .column = 13,
};

static void apply_usage(FILE *out)
{
    hs_cli_print_help(out, &hs_apply_command);
}

/* Refuses (false, after saying why) a plan with a file whose content the report holds no
 * digest of, unless trusted: then such a file is written only if it was last modified
 * before the report file (trust_until), which also keeps a second concurrent run from
 * applying its offsets to a file the first one rewrote. */
static bool check_digests(const char *path, json_t *report, bool trust, hs_edit_plan *plan)
{
    const char *first = NULL;
    size_t missing = 0;
    for (size_t i = 0; i < plan->files.len; i++) {
        const hs_file_edits *fe = plan->files.items[i];
        if (!fe->digest && !missing++)
            first = fe->path;
    }
    if (!missing)
        return true;
    if (!trust) {
        char *more = missing > 1 ? hs_printf(" (and %zu more file%s)", missing - 1,
                                             missing > 2 ? "s" : "")
                                 : hs_xstrdup("");
        const char *why = json_is_object(json_object_get(report, "files"))
                              ? "its \"files\" map has no hash for it"
                              : "it has no \"files\" map";
        fprintf(stderr,
                "hotscan: %s: no digest of %s%s in the report (%s: an older hotscan's or a "
                "hand-written report), so apply cannot tell whether the file still holds what "
                "its offsets were computed on; nothing was applied. Regenerate the report "
                "(hotscan scan --format json -o %s), or pass --trust-offsets to apply it to "
                "the files not modified since the report was written\n",
                path, first, more, why, path);
        free(more);
        return false;
    }
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
        fprintf(stderr, "hotscan: %s: --trust-offsets needs the report as a regular file: its "
                        "modification time says which files it still holds for\n", path);
        return false;
    }
    plan->trust_until = st.st_mtim;
    plan->trust_until_set = true;
    return true;
}

/* A report larger than this is refused before it fills memory (`apply /dev/zero`). */
#define MAX_REPORT_BYTES ((size_t)256 << 20)

/* Loads the report; NULL after saying why on stderr. */
static json_t *load_report(const char *path)
{
    size_t size;
    char *text = hs_read_file_max(path, MAX_REPORT_BYTES, &size);
    if (!text) {
        if (errno == EFBIG)
            fprintf(stderr, "hotscan: %s: larger than %zu MiB, the most a report may be; is it "
                            "a hotscan JSON report (scan --format json)?\n",
                    path, MAX_REPORT_BYTES >> 20);
        else if (errno == EISDIR)
            fprintf(stderr, "hotscan: %s: is a directory; apply needs the JSON report a scan "
                            "wrote (scan --format json -o FILE)\n", path);
        else
            fprintf(stderr, "hotscan: cannot read %s: %s\n", path, strerror(errno));
        return NULL;
    }
    json_error_t jerr;
    json_t *report = json_loadb(text, size, JSON_REJECT_DUPLICATES, &jerr);
    free(text);
    if (!report) {
        fprintf(stderr, "hotscan: %s:%d:%d: not valid JSON: %s\n", path, jerr.line, jerr.column,
                jerr.text);
        return NULL;
    }
    if (!json_is_object(report) || !json_is_string(json_object_get(report, "root"))) {
        fprintf(stderr, "hotscan: %s: no \"root\" in it; is it a hotscan JSON report "
                        "(scan --format json)?\n", path);
        json_decref(report);
        return NULL;
    }
    json_t *version = json_object_get(report, "schema_version");
    if (version && !(json_is_integer(version) && json_integer_value(version) == 1)) {
        char *shown = json_dumps(version, JSON_ENCODE_ANY | JSON_COMPACT);
        fprintf(stderr, "hotscan: %s: \"schema_version\" is %s; this hotscan reads schema "
                        "version 1 (the number 1)\n", path, shown ? shown : "?");
        free(shown);
        json_decref(report);
        return NULL;
    }
    return report;
}

int cmd_apply(int argc, char **argv)
{
    hs_getopt g;
    hs_getopt_init(&g, &hs_apply_command);
    bool dry_run = false, trust_offsets = false;
    const char *root = NULL;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, g.shortopts, g.longopts, NULL)) != -1) {
        switch (c) {
        case OPT_DRY_RUN:
            dry_run = true;
            break;
        case OPT_ROOT:
            root = optarg;
            break;
        case OPT_TRUST_OFFSETS:
            trust_offsets = true;
            break;
        case 'h':
            apply_usage(stdout);
            return hs_close_stdout("the help") ? 0 : 2;
        case ':':
            fprintf(stderr, "hotscan: %s needs a value\n", argv[optind - 1]);
            return 2;
        default:
            fprintf(stderr, "hotscan: unknown option '%s'\n", argv[optind - 1]);
            apply_usage(stderr);
            return 2;
        }
    }
    if (argc - optind != 1) {
        fprintf(stderr, "hotscan: apply needs exactly one FINDINGS.json\n");
        apply_usage(stderr);
        return 2;
    }
    hs_cleanup_install();
    const char *path = argv[optind];
    json_t *report = load_report(path);
    if (!report)
        return 2;
    /* Where writing is allowed: --root, else the current directory; never the report's own
     * "root", which anyone could have written. */
    char *confine = hs_realpath(root ? root : ".");
    if (!confine) {
        fprintf(stderr, "hotscan: %s%s: %s\n", root ? "--root " : "", root ? root : ".",
                strerror(errno));
        json_decref(report);
        return 2;
    }
    if (root) {
        json_object_set_new(report, "root", json_string(confine));
    } else {
        /* A report for another tree: say so once, rather than refusing every edit. */
        const char *written = json_string_value(json_object_get(report, "root"));
        char *report_root = written[0] == '/' ? hs_realpath(written) : NULL;
        if (report_root && !hs_path_is_under(confine, report_root) &&
            !hs_path_is_under(report_root, confine)) {
            fprintf(stderr, "hotscan: %s: the report's root %s is not the current directory %s "
                            "nor around it, and apply writes only under the directory it runs "
                            "in: run it from %s, or pass --root DIR\n",
                    path, written, confine, written);
            free(report_root);
            free(confine);
            json_decref(report);
            return 2;
        }
        free(report_root);
    }
    hs_edit_plan plan;
    char *err = NULL;
    if (!hs_edit_plan_build_confined(report, confine, &plan, &err)) {
        fprintf(stderr, "hotscan: %s: %s\n", path, err);
        free(err);
        free(confine);
        json_decref(report);
        return 2;
    }
    free(confine);
    if (!check_digests(path, report, trust_offsets, &plan)) {
        hs_edit_plan_free(&plan);
        json_decref(report);
        return 2;
    }
    for (size_t i = 0; i < plan.problems.len; i++)
        fprintf(stderr, "hotscan: %s\n", (const char *)plan.problems.items[i]);
    hs_apply_result res;
    hs_apply_plan(&plan, dry_run, stderr, &res);
    size_t applied = res.edits_applied, refused = plan.refused + res.edits_refused;
    size_t files = res.files_written;
    int status = refused ? 1 : 0;
    if (dry_run) {
        hs_edit_plan written = {0}; /* a view of the files that would be written */
        written.files = res.written;
        if (!hs_edit_plan_write_patch(stdout, &written) || !hs_close_stdout("the diff"))
            status = 2;
    }
    hs_apply_result_free(&res);
    fprintf(stderr, "hotscan: %s %zu edit%s to %zu file%s; %zu refused\n",
            dry_run ? "would apply" : "applied", applied, applied == 1 ? "" : "s", files,
            files == 1 ? "" : "s", refused);
    hs_edit_plan_free(&plan);
    json_decref(report);
    return status;
}
