/*
 * cmd_validate.c - `hotscan validate`: proves a fix before anyone merges it. --codegen compiles
 * every TU the fix touches, baseline and patched, with the TU's own flags for x86-64 and
 * AArch64 and says per function which instructions that matter changed (analyzer/validate/
 * codegen.c); --build/--bench build both variants in copies of the tree and run the benchmark
 * alternately, with a significance test (analyzer/validate/bench.c, stats.c). This file reads
 * the options, turns a findings report into a diff, picks the TUs to compile (for a fix in a
 * header, the compile database's TUs that include it, a bounded number), and prints the text
 * or JSON answer.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "commands.h"
#include "hotscan/common.h"
#include "hotscan/discover.h"
#include "hotscan/edits.h"
#include "hotscan/tempfiles.h"
#include "hotscan/validate.h"

typedef struct {
    const char *patch, *findings, *database, *root, *output, *compiler, *targets;
    bool codegen, json;
    int header_tus;  /* a fix in a header: how many including TUs to compile (0: all) */
    hs_bench_options bench;
    double compile_timeout;
} validate_options;

enum { OPT_PATCH = 256, OPT_FINDINGS, OPT_ROOT, OPT_CODEGEN, OPT_COMPILER, OPT_TARGETS, OPT_BUILD, OPT_BENCH,
       OPT_RUNS, OPT_WARMUP, OPT_METRIC, OPT_HIGHER, OPT_LOWER, OPT_ALPHA, OPT_BUILD_TIMEOUT,
       OPT_BENCH_TIMEOUT, OPT_FORMAT, OPT_MEASURE, OPT_HEADER_TUS };

static const hs_cli_option validate_table[] = {
    {.heading = "the fix"},
    {"patch", 0, OPT_PATCH, "FILE",
     "a unified diff, paths relative to the root (a/ b/ prefixes, as scan --patch writes)", 0, NULL,
     HS_COMPLETE_FILES, NULL},
    {"findings", 0, OPT_FINDINGS, "FILE", "a JSON report (scan --format json): its verified fixes", 0, NULL,
     HS_COMPLETE_FILES, NULL},
    {"root", 0, OPT_ROOT, "DIR", "the tree (default: the report's root, else the current folder)", 0, NULL,
     HS_COMPLETE_DIRS, NULL},
    {.heading = "code generation"},
    {"codegen", 0, OPT_CODEGEN, NULL,
     "compile each TU the fix touches (or the PATHs given), baseline and patched, at -O2 for x86-64 and "
     "AArch64 with the TU's own flags, and report per function the changed instructions that matter "
     "(lock ops, xchg, mfence; ldadd*, cas*, swp*, stlr/str, ldar/ldr, dmb; calls to clock functions)",
     0, NULL, HS_COMPLETE_NOTHING, NULL},
    {"header-tus", 0, OPT_HEADER_TUS, "N|all",
     "a fix in a header: compile the first N TUs of the compile database that include it (default 4; "
     "found with clang -M, those whose source names the header first), or all of them; the output says "
     "how many were looked at",
     0, "all", HS_COMPLETE_NOTHING, NULL},
    {NULL, 'p', 'p', "DIR|FILE", "the compile database, as for scan", 0, NULL, HS_COMPLETE_DIRS, NULL},
    {"compiler", 0, OPT_COMPILER, "CC", "the clang driver (default clang-19)", 0, NULL, HS_COMPLETE_NOTHING,
     NULL},
    {"targets", 0, OPT_TARGETS, "LIST", "the targets of --codegen: x86_64,aarch64 (default both)", 0,
     "x86_64 aarch64 x86_64,aarch64",
     HS_COMPLETE_NOTHING, NULL},
    {.heading = "benchmark"},
    {"build", 0, OPT_BUILD, "CMD", "shell command that builds a variant (run in its root)", 0, NULL,
     HS_COMPLETE_NOTHING, NULL},
    {"bench", 0, OPT_BENCH, "CMD", "shell command run once per measured run (in the variant's root)", 0, NULL,
     HS_COMPLETE_NOTHING, NULL},
    {"runs", 0, OPT_RUNS, "N", "measured runs per variant (default 10), in A B B A order", 0, NULL,
     HS_COMPLETE_NOTHING, NULL},
    {"warmup", 0, OPT_WARMUP, "K", "discarded runs per variant first (default 1)", 0, NULL, HS_COMPLETE_NOTHING,
     NULL},
    {"metric", 0, OPT_METRIC, "REGEX",
     "the number to compare: the last match in a run's output (its first group when it has one); "
     "default: the run's wall time",
     0, NULL, HS_COMPLETE_NOTHING, NULL},
    {"measure", 0, OPT_MEASURE, "wall|cpu",
     "without --metric: wall time (default) or the run's CPU time (user + system; steadier on a loaded "
     "machine)",
     0, "wall cpu", HS_COMPLETE_NOTHING, NULL},
    {"higher-is-better", 0, OPT_HIGHER, NULL, "the metric is a rate (qps); default with --metric", 0, NULL,
     HS_COMPLETE_NOTHING, NULL},
    {"lower-is-better", 0, OPT_LOWER, NULL, "the metric is a time (ns/op); default for wall time", 0, NULL,
     HS_COMPLETE_NOTHING, NULL},
    {"alpha", 0, OPT_ALPHA, "A",
     "significance level (default 0.01) of the two-sided Mann-Whitney test; the bootstrap interval of "
     "the ratio has level 1 - A",
     0, NULL, HS_COMPLETE_NOTHING, NULL},
    {"build-timeout", 0, OPT_BUILD_TIMEOUT, "S", "seconds per build (default 1800)", 0, NULL,
     HS_COMPLETE_NOTHING, NULL},
    {"bench-timeout", 0, OPT_BENCH_TIMEOUT, "S", "seconds per run (default 600)", 0, NULL, HS_COMPLETE_NOTHING,
     NULL},
    {.heading = "output"},
    {"format", 0, OPT_FORMAT, "text|json", "output format (default text)", 0, "text json", HS_COMPLETE_NOTHING,
     NULL},
    {NULL, 'o', 'o', "FILE", "write it to FILE", 0, NULL, HS_COMPLETE_FILES, NULL},
    {"help", 'h', 'h', NULL, "show this help", 0, NULL, HS_COMPLETE_NOTHING, NULL},
    HS_OPTIONS_END,
};

const hs_cli_command hs_validate_command = {
    .name = "validate",
    .summary = "prove a fix: its code changes (--codegen) and a benchmark of both variants",
    .usage = "hotscan validate (--patch FIX.diff | --findings REPORT.json) [options] [PATH...]",
    .about = "Proves a fix: what it changes in the generated code, and what it does to a benchmark.\n"
             "The user's tree is never written: the patched variant lives in a copy.",
    .options = validate_table,
    .epilog = "Significance: a two-sided Mann-Whitney U test over the runs (p < alpha) and a percentile\n"
              "bootstrap interval (level 1 - alpha) for the ratio of medians that excludes 1.\n"
              "Exit status: 0 validated (whatever the verdict), 2 usage error or a failed step.\n",
    .getopt_prefix = ":",
    .column = 21,
};

static void validate_usage(FILE *out)
{
    hs_cli_print_help(out, &hs_validate_command);
}

/* A number, the whole text; false (quietly) otherwise. */
static bool read_number(const char *text, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(text, &end);
    return !errno && end != text && !*end;
}

static bool parse_number(const char *opt, const char *text, double min, double *out)
{
    double v;
    if (!read_number(text, &v) || !(v >= min)) {
        fprintf(stderr, "hotscan: %s '%s': needs a number of at least %g\n", opt, text, min);
        return false;
    }
    *out = v;
    return true;
}

/* ---- the fix as a diff ---- */

/* Writes the report's verified fixes as a diff into workdir; the path, or NULL after saying why. */
static char *diff_from_findings(const char *path, const char *workdir, char **root_out)
{
    size_t size;
    char *text = hs_read_file_max(path, (size_t)256 << 20, &size);
    if (!text) {
        fprintf(stderr, "hotscan: cannot read %s: %s\n", path, strerror(errno));
        return NULL;
    }
    json_error_t jerr;
    json_t *report = json_loadb(text, size, 0, &jerr);
    free(text);
    if (!report || !json_is_string(json_object_get(report, "root"))) {
        fprintf(stderr, "hotscan: %s: not a hotscan JSON report (%s)\n", path,
                report ? "no \"root\"" : jerr.text);
        json_decref(report);
        return NULL;
    }
    hs_edit_plan plan;
    char *err = NULL;
    if (!hs_edit_plan_build_fresh(report, &plan, &err)) {
        fprintf(stderr, "hotscan: %s: %s\n", path, err);
        free(err);
        json_decref(report);
        return NULL;
    }
    char *out = hs_path_join(workdir, "findings.diff");
    FILE *f = fopen(out, "w");
    bool ok = f && hs_edit_plan_write_patch(f, &plan);
    if (f && fclose(f) != 0)
        ok = false;
    if (ok && plan.files.len == 0) {
        fprintf(stderr, "hotscan: %s: no verified fix in it to validate\n", path);
        ok = false;
    } else if (!ok) {
        fprintf(stderr, "hotscan: cannot write %s\n", out);
    }
    if (ok && !*root_out)
        *root_out = hs_xstrdup(plan.root);
    hs_edit_plan_free(&plan);
    json_decref(report);
    if (!ok) {
        free(out);
        return NULL;
    }
    return out;
}

/* ---- codegen ---- */

/* A clang VFS overlay that shows each patched file (workdir/patched/REL) at ROOT/REL. */
static char *write_overlay(const char *workdir, const char *root, const hs_vec *files)
{
    json_t *roots = json_array();
    for (size_t i = 0; i < files->len; i++) {
        char *orig = hs_path_join(root, files->items[i]);
        char *dir = hs_dirname(orig);
        const char *base = strrchr(orig, '/') + 1;
        char *patched = hs_printf("%s/patched/%s", workdir, (const char *)files->items[i]);
        json_array_append_new(roots, json_pack("{s:s, s:s, s:[{s:s, s:s, s:s}]}", "name", dir, "type",
                                               "directory", "contents", "name", base, "type", "file",
                                               "external-contents", patched));
        free(orig);
        free(dir);
        free(patched);
    }
    json_t *doc = json_pack("{s:i, s:s, s:o}", "version", 0, "case-sensitive", "true", "roots", roots);
    char *path = hs_path_join(workdir, "overlay.json");
    bool ok = json_dump_file(doc, path, JSON_INDENT(1)) == 0;
    json_decref(doc);
    if (!ok) {
        fprintf(stderr, "hotscan: cannot write %s\n", path);
        free(path);
        return NULL;
    }
    return path;
}

/* Copies the touched files into workdir/patched and applies the diff there. */
static bool make_patched_files(const char *diff, const char *workdir, const char *root, const hs_vec *files)
{
    char *pdir = hs_path_join(workdir, "patched");
    for (size_t i = 0; i < files->len; i++) {
        char *src = hs_path_join(root, files->items[i]);
        char *dst = hs_path_join(pdir, files->items[i]);
        char *dst_dir = hs_dirname(dst);
        char *mk[] = {"mkdir", "-p", "--", dst_dir, NULL};
        hs_proc_result r;
        hs_proc_run(mk, NULL, 60, &r);
        hs_proc_result_free(&r);
        if (access(src, F_OK) == 0) {
            char *cp[] = {"cp", "--", src, dst, NULL};
            hs_proc_run(cp, NULL, 60, &r);
            hs_proc_result_free(&r);
        }
        free(src);
        free(dst);
        free(dst_dir);
    }
    char *err = NULL;
    bool ok = hs_patch_apply(diff, pdir, &err);
    if (!ok) {
        fprintf(stderr, "hotscan: the fix does not apply to %s: %s\n", root, err);
        free(err);
    }
    free(pdir);
    return ok;
}

/* Demangles C++ names with c++filt when it is there. */
static json_t *demangled(json_t *changes)
{
    json_t *names = json_object();
    size_t i;
    json_t *c;
    json_array_foreach(changes, i, c) {
        const char *fn = json_string_value(json_object_get(c, "function"));
        if (fn && strncmp(fn, "_Z", 2) == 0)
            json_object_set_new(names, fn, json_null());
    }
    if (json_object_size(names)) {
        hs_vec argv = {0};
        hs_vec_push(&argv, "c++filt");
        hs_vec_push(&argv, "--");
        const char *k;
        json_t *v;
        json_object_foreach(names, k, v) hs_vec_push(&argv, (void *)k);
        hs_vec_push(&argv, NULL);
        hs_proc_result r;
        hs_proc_run((char *const *)argv.items, NULL, 60, &r);
        if (r.status == 0 && r.output) {
            char *line = r.output;
            json_object_foreach(names, k, v) {
                char *end = line ? strchr(line, '\n') : NULL;
                if (!end)
                    break;
                json_object_set_new(names, k, json_stringn(line, (size_t)(end - line)));
                line = end + 1;
            }
        }
        hs_proc_result_free(&r);
        hs_vec_free(&argv);
    }
    json_array_foreach(changes, i, c) {
        json_t *d = json_object_get(names, json_string_value(json_object_get(c, "function")));
        if (json_is_string(d))
            json_object_set(c, "name", d);
        else
            json_object_set(c, "name", json_object_get(c, "function"));
    }
    json_decref(names);
    return changes;
}

/* For each function that changed on one target, what it keeps on the others (x86's
 * `lock xadd` is the same relaxed or not: the gain of a relaxed counter is AArch64's), then
 * the list sorted by function and target. */
static int cmp_change(const void *a, const void *b)
{
    json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    int c = strcmp(json_string_value(json_object_get(x, "function")), json_string_value(json_object_get(y, "function")));
    return c ? c : strcmp(json_string_value(json_object_get(x, "target")), json_string_value(json_object_get(y, "target")));
}

static void add_unchanged(json_t *changes, json_t *profiles)
{
    size_t n = json_array_size(changes);
    const char *target;
    json_t *profile;
    for (size_t i = 0; i < n; i++) {
        const char *fn = json_string_value(json_object_get(json_array_get(changes, i), "function"));
        json_object_foreach(profiles, target, profile) {
            bool listed = false;
            for (size_t j = 0; j < json_array_size(changes); j++) {
                json_t *c = json_array_get(changes, j);
                listed = listed || (strcmp(json_string_value(json_object_get(c, "function")), fn) == 0 &&
                                    strcmp(json_string_value(json_object_get(c, "target")), target) == 0);
            }
            json_t *fp = json_object_get(profile, fn);
            if (listed || !fp || json_object_size(fp) == 0)
                continue;
            hs_buf b;
            hs_buf_init(&b);
            const char *cls;
            json_t *cv;
            json_object_foreach(fp, cls, cv) {
                hs_buf_printf(&b, "%s%s", b.len ? ", " : "", cls);
                if (json_integer_value(cv) > 1)
                    hs_buf_printf(&b, " x%lld", (long long)json_integer_value(cv));
            }
            char *summary = hs_printf("%s unchanged (%s)", target, b.data);
            json_array_append_new(changes, json_pack("{s:s, s:s, s:O, s:O, s:s, s:b}", "function", fn, "target", target,
                                                     "before", fp, "after", fp, "summary", summary, "unchanged", 1));
            free(summary);
            hs_buf_free(&b);
        }
    }
    size_t total = json_array_size(changes);
    json_t **items = hs_xmalloc((total + 1) * sizeof *items);
    for (size_t i = 0; i < total; i++)
        items[i] = json_incref(json_array_get(changes, i));
    qsort(items, total, sizeof *items, cmp_change);
    json_array_clear(changes);
    for (size_t i = 0; i < total; i++)
        json_array_append_new(changes, items[i]);
    free(items);
}

/* Ranks the database's TUs for a header search: those whose source text names one of the
 * headers' file names (a direct #include) first, the rest after, each group in database order. */
static void rank_candidates(const hs_discovery *all, const hs_vec *headers, const hs_vec *skip, hs_vec *out)
{
    hs_vec later = {0};
    for (size_t t = 0; t < all->tus.len; t++) {
        hs_tu_input *tu = all->tus.items[t];
        bool skipped = !hs_is_source_file(tu->file);
        for (size_t i = 0; i < skip->len && !skipped; i++)
            skipped = strcmp(skip->items[i], tu->file) == 0;
        if (skipped)
            continue;
        size_t len;
        char *text = hs_read_file_max(tu->file, (size_t)64 << 20, &len);
        bool names = false;
        for (size_t i = 0; text && i < headers->len && !names; i++)
            names = strstr(text, strrchr(headers->items[i], '/') + 1) != NULL;
        free(text);
        hs_vec_push(names ? out : &later, tu);
    }
    for (size_t i = 0; i < later.len; i++)
        hs_vec_push(out, later.items[i]);
    hs_vec_free(&later);
}

/* A fix in a header: the TUs of the compile database that include it (clang -M with each TU's
 * own flags), at most o->header_tus of them (0: all), appended to `selected`; what was looked
 * at goes into out["header_tus"]. `sources` are the touched source files, compiled anyway.
 * False with *err when nothing is left to compile. */
static bool find_header_tus(const validate_options *o, const hs_vec *headers, const hs_vec *sources, const char *root,
                            hs_discovery *all, hs_vec *selected, json_t *out, char **err)
{
    char *why = NULL;
    char *first = hs_path_relative(root, headers->items[0]);
    if (!hs_discover(o->database, NULL, 0, all, &why)) {
        *err = hs_printf("the fix changes %s, a header: finding the TUs that include it needs the compile database "
                         "(%s); or name the TUs to compile as PATHs",
                         first, why);
        free(why);
        free(first);
        return false;
    }
    hs_vec skip = {0}, ranked = {0};
    for (size_t i = 0; i < sources->len; i++) {
        char *real = hs_realpath(sources->items[i]);
        hs_vec_push(&skip, real ? real : hs_xstrdup(sources->items[i]));
    }
    for (size_t i = 0; i < selected->len; i++)
        hs_vec_push(&skip, hs_xstrdup(((hs_tu_input *)selected->items[i])->file));
    rank_candidates(all, headers, &skip, &ranked);
    json_t *info = json_pack("{s:[], s:[], s:i, s:i, s:i, s:i, s:o}", "headers", "tus", "limit", o->header_tus,
                             "candidates", (json_int_t)ranked.len, "preprocessed", 0, "failed", 0, "via", json_object());
    for (size_t i = 0; i < headers->len; i++) {
        char *rel = hs_path_relative(root, headers->items[i]);
        json_array_append_new(json_object_get(info, "headers"), json_string(rel));
        free(rel);
    }
    json_object_set_new(out, "header_tus", info);
    bool *which = hs_xcalloc(headers->len, sizeof *which);
    size_t found = 0, preprocessed = 0, failed = 0;
    char *first_error = NULL;
    for (size_t t = 0; t < ranked.len && (o->header_tus == 0 || found < (size_t)o->header_tus); t++) {
        hs_tu_input *tu = ranked.items[t];
        char *e = NULL;
        int n = hs_tu_reads_headers(tu, headers, o->compiler, o->compile_timeout, which, &e);
        preprocessed++;
        if (n < 0) {
            failed++;
            if (!first_error)
                first_error = e;
            else
                free(e);
            continue;
        }
        if (n == 0)
            continue;
        found++;
        hs_vec_push(selected, tu);
        char *rel = hs_path_relative(root, tu->file);
        json_array_append_new(json_object_get(info, "tus"), json_string(rel));
        free(rel);
        json_t *names = json_array();
        for (size_t i = 0; i < headers->len; i++)
            if (which[i])
                json_array_append(names, json_array_get(json_object_get(info, "headers"), i));
        json_object_set_new(json_object_get(info, "via"), tu->file, names);
    }
    json_object_set_new(info, "preprocessed", json_integer((json_int_t)preprocessed));
    json_object_set_new(info, "failed", json_integer((json_int_t)failed));
    json_object_set_new(info, "complete", json_boolean(preprocessed == ranked.len));
    if (first_error) {
        json_object_set_new(info, "first_error", json_string(first_error));
        fprintf(stderr, "hotscan: validate: %zu TU%s could not be preprocessed to find the header's includers; the "
                        "first: %s\n", failed, failed == 1 ? "" : "s", first_error);
    }
    bool ok = selected->len > 0;
    if (!ok)
        *err = hs_printf("the fix changes %s, a header, and none of the %zu TUs of the compile database preprocessed "
                         "includes it: name the TUs to compile as PATHs",
                         first, preprocessed);
    free(first_error);
    free(which);
    free(first);
    for (size_t i = 0; i < skip.len; i++)
        free(skip.items[i]);
    hs_vec_free(&skip);
    hs_vec_free(&ranked);
    return ok;
}

static json_t *run_codegen(const validate_options *o, const char *diff, const char *workdir, const char *root,
                           char **paths, int npaths, bool *ok)
{
    *ok = false;
    size_t size;
    char *text = hs_read_file(diff, &size);
    hs_vec files = {0};
    char *err = NULL;
    if (!text || !hs_patch_files(text, &files, &err)) {
        fprintf(stderr, "hotscan: %s: %s\n", diff, text ? err : strerror(errno));
        free(err);
        free(text);
        return NULL;
    }
    free(text);
    json_t *out = json_object();
    json_t *tus = json_array();
    json_object_set_new(out, "tus", tus);
    hs_discovery disc = {0}, all_tus = {0};
    hs_vec selected = {0};
    char *overlay = NULL;
    if (!make_patched_files(diff, workdir, root, &files) || !(overlay = write_overlay(workdir, root, &files)))
        goto done;
    /* The TUs: the PATHs given, else those whose main file the fix touches and, for a touched
     * header, those of the compile database that include it. */
    hs_vec touched = {0}, headers = {0};
    for (size_t i = 0; i < files.len; i++) {
        char *full = hs_path_join(root, files.items[i]);
        if (npaths || hs_is_source_file(full)) {
            hs_vec_push(&touched, full);
            continue;
        }
        char *real = hs_realpath(full);
        hs_vec_push(&headers, real ? real : hs_xstrdup(full));
        free(full);
    }
    bool found_ok = true;
    if (npaths || touched.len) {
        found_ok = hs_discover(o->database, npaths ? paths : (char **)touched.items, npaths ? npaths : (int)touched.len,
                               &disc, &err);
        for (size_t t = 0; found_ok && t < disc.tus.len; t++)
            hs_vec_push(&selected, disc.tus.items[t]);
    }
    if (found_ok && headers.len)
        found_ok = find_header_tus(o, &headers, &touched, root, &all_tus, &selected, out, &err);
    for (size_t i = 0; i < touched.len; i++)
        free(touched.items[i]);
    hs_vec_free(&touched);
    for (size_t i = 0; i < headers.len; i++)
        free(headers.items[i]);
    hs_vec_free(&headers);
    if (!found_ok) {
        fprintf(stderr, "hotscan: %s\n", err);
        free(err);
        goto done;
    }
    bool failed = false;
    for (size_t t = 0; t < selected.len; t++) {
        hs_tu_input *tu = selected.items[t];
        if (!hs_is_source_file(tu->file))
            continue;
        char *rel = hs_path_relative(root, tu->file);
        json_t *entry = json_pack("{s:s, s:b, s:[]}", "file", rel, "default_flags", tu->default_flags, "changes");
        /* The same file built twice (memcached and memcached-debug): its object file tells them apart. */
        for (int a = 1; a + 1 < tu->argc; a++)
            if (strcmp(tu->argv[a], "-o") == 0)
                json_object_set_new(entry, "object", json_string(tu->argv[a + 1]));
        json_t *via = json_object_get(json_object_get(out, "header_tus"), "via");
        if (via && json_object_get(via, tu->file))
            json_object_set(entry, "includes", json_object_get(via, tu->file));
        json_t *changes = json_object_get(entry, "changes");
        json_t *unchanged = json_array();
        json_t *profiles = json_object(); /* target -> the patched variant's profile */
        for (size_t k = 0; k < hs_codegen_ntargets; k++) {
            const hs_codegen_target *tg = &hs_codegen_targets[k];
            if (o->targets && !strstr(o->targets, tg->target))
                continue;
            char *asm_a = hs_compile_asm(tu, tg, NULL, o->compiler, o->compile_timeout, &err);
            char *asm_b = asm_a ? hs_compile_asm(tu, tg, overlay, o->compiler, o->compile_timeout, &err) : NULL;
            if (!asm_a || !asm_b) {
                fprintf(stderr, "hotscan: compiling the %s variant failed: %s\n", asm_a ? "patched" : "baseline", err);
                free(err);
                err = NULL;
                failed = true;
                free(asm_a);
                continue;
            }
            json_t *pa = hs_asm_profile(asm_a, tg->target), *pb = hs_asm_profile(asm_b, tg->target);
            size_t before = json_array_size(changes);
            hs_asm_diff(pa, pb, tg->target, changes);
            if (json_array_size(changes) == before)
                json_array_append_new(unchanged, json_string(tg->target));
            json_object_set_new(profiles, tg->target, pb);
            json_decref(pa);
            free(asm_a);
            free(asm_b);
        }
        add_unchanged(changes, profiles);
        json_decref(profiles);
        demangled(changes);
        json_object_set_new(entry, "unchanged_targets", unchanged);
        json_array_append_new(tus, entry);
        free(rel);
    }
    json_object_del(json_object_get(out, "header_tus"), "via");
    if (json_array_size(tus) == 0)
        fprintf(stderr, "hotscan: the fix touches no source file of the compile database: name the TUs to compile "
                        "as PATHs\n");
    *ok = !failed && json_array_size(tus) > 0;
done:
    hs_vec_free(&selected);
    hs_discovery_free(&disc);
    hs_discovery_free(&all_tus);
    free(overlay);
    for (size_t i = 0; i < files.len; i++)
        free(files.items[i]);
    hs_vec_free(&files);
    return out;
}

/* ---- output ---- */

/* "a.h and b.h" for the headers of a header search. */
static void text_names(hs_buf *b, json_t *names)
{
    size_t i, n = json_array_size(names);
    json_t *h;
    json_array_foreach(names, i, h) hs_buf_printf(b, "%s%s", i == 0 ? "" : i + 1 == n ? " and " : ", ",
                                                  json_string_value(h));
}

static void text_codegen(hs_buf *b, json_t *cg)
{
    size_t i, j;
    json_t *tu, *c;
    json_t *ht = json_object_get(cg, "header_tus");
    if (ht) {
        size_t n = json_array_size(json_object_get(ht, "tus"));
        long long pre = json_integer_value(json_object_get(ht, "preprocessed"));
        long long cand = json_integer_value(json_object_get(ht, "candidates"));
        long long failed = json_integer_value(json_object_get(ht, "failed"));
        text_names(b, json_object_get(ht, "headers"));
        if (json_is_true(json_object_get(ht, "complete")))
            hs_buf_printf(b, ": a header; %zu TU%s of the compile database include%s it (all %lld preprocessed "
                             "with their own flags)",
                          n, n == 1 ? "" : "s", n == 1 ? "s" : "", cand);
        else if (n == 1)
            hs_buf_printf(b, ": a header; compiling the first TU found that includes it (%lld of %lld TUs "
                             "preprocessed, those that name it first; --header-tus N or all for more)",
                          pre, cand);
        else
            hs_buf_printf(b, ": a header; compiling the first %zu TUs found that include it (%lld of %lld TUs "
                             "preprocessed, those that name it first; --header-tus N or all for more)",
                          n, pre, cand);
        if (failed)
            hs_buf_printf(b, "; %lld could not be preprocessed", failed);
        hs_buf_puts(b, "\n");
    }
    json_array_foreach(json_object_get(cg, "tus"), i, tu) {
        json_t *changes = json_object_get(tu, "changes");
        size_t changed = 0;
        json_array_foreach(changes, j, c) changed += !json_is_true(json_object_get(c, "unchanged"));
        json_t *object = json_object_get(tu, "object");
        hs_buf_printf(b, "%s%s%s%s", json_string_value(json_object_get(tu, "file")), object ? " (-o " : "",
                      object ? json_string_value(object) : "", object ? ")" : "");
        if (json_object_get(tu, "includes")) {
            hs_buf_puts(b, " (includes ");
            text_names(b, json_object_get(tu, "includes"));
            hs_buf_puts(b, ")");
        }
        hs_buf_printf(b, ": %zu change%s in the instructions that matter\n", changed, changed == 1 ? "" : "s");
        json_array_foreach(changes, j, c) {
            const char *summary = json_string_value(json_object_get(c, "summary"));
            hs_buf_printf(b, "  %s: %s\n", json_string_value(json_object_get(c, "name")), summary);
        }
        json_t *u;
        json_array_foreach(json_object_get(tu, "unchanged_targets"), j, u) {
            bool shown = false;
            size_t k;
            json_array_foreach(changes, k, c) shown = shown || json_equal(json_object_get(c, "target"), u);
            if (!shown)
                hs_buf_printf(b, "  %s: no change in those instructions\n", json_string_value(u));
        }
    }
}

static void text_bench(hs_buf *b, json_t *r)
{
    bool wall = strcmp(json_string_value(json_object_get(r, "unit")), "s") == 0;
    hs_buf_printf(b, "benchmark: %lld runs per variant after %lld warm-up, A B B A order; metric: %s (%s is better)\n",
                  json_integer_value(json_object_get(r, "runs")), json_integer_value(json_object_get(r, "warmup")),
                  json_string_value(json_object_get(r, "metric")),
                  json_is_true(json_object_get(r, "higher_is_better")) ? "higher" : "lower");
    const char *names[] = {"baseline", "patched"};
    for (int i = 0; i < 2; i++) {
        json_t *s = json_object_get(r, names[i]);
        hs_buf_printf(b, "  %-8s median %.6g%s  IQR %.6g-%.6g  range %.6g-%.6g  (MAD %.1f%%)\n", names[i],
                      json_real_value(json_object_get(s, "median")), wall ? " s" : "",
                      json_real_value(json_object_get(s, "q1")), json_real_value(json_object_get(s, "q3")),
                      json_real_value(json_object_get(s, "min")), json_real_value(json_object_get(s, "max")),
                      100 * json_real_value(json_object_get(s, "mad_relative")));
    }
    json_t *iv = json_object_get(r, "ratio_interval");
    hs_buf_printf(b, "  ratio patched/baseline %.4f, %.0f%% bootstrap interval %.4f-%.4f\n",
                  json_real_value(json_object_get(r, "ratio")), 100 * json_real_value(json_object_get(r, "interval_level")),
                  json_real_value(json_array_get(iv, 0)), json_real_value(json_array_get(iv, 1)));
    hs_buf_printf(b, "  Mann-Whitney U (two-sided) p = %.3g, alpha %.3g\n",
                  json_real_value(json_object_get(r, "p_value")), json_real_value(json_object_get(r, "alpha")));
    hs_buf_printf(b, "verdict: %s", json_string_value(json_object_get(r, "verdict")));
    if (json_is_true(json_object_get(r, "significant")))
        hs_buf_printf(b, " (%.3gx %s)", json_real_value(json_object_get(r, "gain")),
                      json_real_value(json_object_get(r, "gain")) >= 1 ? "better" : "worse");
    hs_buf_puts(b, "\n");
    size_t i;
    json_t *n;
    json_array_foreach(json_object_get(r, "notes"), i, n) hs_buf_printf(b, "note: %s\n", json_string_value(n));
}

/* ---- the command ---- */

int cmd_validate(int argc, char **argv)
{
    hs_getopt g;
    hs_getopt_init(&g, &hs_validate_command);
    validate_options o = {.compiler = "clang-19", .compile_timeout = 300, .header_tus = 4};
    o.bench = (hs_bench_options){.runs = 10, .warmup = 1, .build_timeout = 1800, .bench_timeout = 600,
                                 .alpha = 0.01, .log = stderr};
    int direction = 0; /* 1 higher, -1 lower, 0 by the metric */
    double v;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, g.shortopts, g.longopts, NULL)) != -1) {
        switch (c) {
        case 'p': o.database = optarg; break;
        case 'o': o.output = optarg; break;
        case OPT_PATCH: o.patch = optarg; break;
        case OPT_FINDINGS: o.findings = optarg; break;
        case OPT_ROOT: o.root = optarg; break;
        case OPT_CODEGEN: o.codegen = true; break;
        case OPT_COMPILER: o.compiler = optarg; break;
        case OPT_TARGETS:
            for (const char *p = optarg; *p;) {
                size_t n = strcspn(p, ",");
                if (!((n == 6 && strncmp(p, "x86_64", 6) == 0) || (n == 7 && strncmp(p, "aarch64", 7) == 0))) {
                    fprintf(stderr, "hotscan: --targets '%s': the targets are x86_64 and aarch64\n", optarg);
                    return 2;
                }
                p += n + (p[n] == ',');
            }
            o.targets = optarg;
            break;
        case OPT_BUILD: o.bench.build = optarg; break;
        case OPT_BENCH: o.bench.bench = optarg; break;
        case OPT_RUNS:
            if (!parse_number("--runs", optarg, 3, &v) || v > 100000)
                return 2;
            o.bench.runs = (int)v;
            break;
        case OPT_WARMUP:
            if (!parse_number("--warmup", optarg, 0, &v) || v > 100000)
                return 2;
            o.bench.warmup = (int)v;
            break;
        case OPT_METRIC: o.bench.metric = optarg; break;
        case OPT_HIGHER: direction = 1; break;
        case OPT_LOWER: direction = -1; break;
        case OPT_ALPHA:
            if (!parse_number("--alpha", optarg, 1e-9, &o.bench.alpha))
                return 2;
            if (o.bench.alpha >= 0.5) {
                fprintf(stderr, "hotscan: --alpha '%s': needs a level below 0.5 (e.g. 0.01)\n", optarg);
                return 2;
            }
            break;
        case OPT_BUILD_TIMEOUT:
            if (!parse_number("--build-timeout", optarg, 1, &o.bench.build_timeout))
                return 2;
            break;
        case OPT_BENCH_TIMEOUT:
            if (!parse_number("--bench-timeout", optarg, 0.1, &o.bench.bench_timeout))
                return 2;
            break;
        case OPT_HEADER_TUS:
            if (strcmp(optarg, "all") == 0)
                o.header_tus = 0;
            else if (!read_number(optarg, &v) || !(v >= 1 && v <= 1000000) || v != (int)v) {
                fprintf(stderr, "hotscan: --header-tus '%s': needs a whole number from 1 to 1000000, or 'all'\n",
                        optarg);
                return 2;
            } else
                o.header_tus = (int)v;
            break;
        case OPT_MEASURE:
            if (strcmp(optarg, "cpu") == 0 || strcmp(optarg, "wall") == 0)
                o.bench.cpu_time = strcmp(optarg, "cpu") == 0;
            else {
                fprintf(stderr, "hotscan: unknown --measure '%s' (wall or cpu)\n", optarg);
                return 2;
            }
            break;
        case OPT_FORMAT:
            if (strcmp(optarg, "json") == 0)
                o.json = true;
            else if (strcmp(optarg, "text") != 0) {
                fprintf(stderr, "hotscan: unknown --format '%s' (text or json)\n", optarg);
                return 2;
            }
            break;
        case 'h':
            validate_usage(stdout);
            return hs_close_stdout("the help") ? 0 : 2;
        case ':':
            fprintf(stderr, "hotscan: %s needs a value\n", argv[optind - 1]);
            return 2;
        default:
            fprintf(stderr, "hotscan: unknown option '%s'\n", argv[optind - 1]);
            validate_usage(stderr);
            return 2;
        }
    }
    o.bench.higher_better = direction ? direction > 0 : o.bench.metric != NULL;
    if (!o.patch == !o.findings) {
        fprintf(stderr, "hotscan: validate needs the fix: --patch FIX.diff or --findings REPORT.json (one of them)\n");
        validate_usage(stderr);
        return 2;
    }
    bool bench = o.bench.build || o.bench.bench;
    if (bench && !(o.bench.build && o.bench.bench)) {
        fprintf(stderr, "hotscan: a benchmark needs both --build CMD and --bench CMD\n");
        return 2;
    }
    if (!bench && !o.codegen) {
        fprintf(stderr, "hotscan: nothing to validate: give --codegen, or --build CMD and --bench CMD\n");
        return 2;
    }
    hs_cleanup_install();
    char wtmpl[] = "/tmp/hotscan-validate-XXXXXX";
    const char *tmpdir = getenv("TMPDIR");
    char *tmpl = tmpdir && tmpdir[0] == '/' ? hs_printf("%s/hotscan-validate-XXXXXX", tmpdir) : hs_xstrdup(wtmpl);
    if (!mkdtemp(tmpl)) {
        fprintf(stderr, "hotscan: cannot make a work folder %s: %s\n", tmpl, strerror(errno));
        free(tmpl);
        return 2;
    }
    hs_cleanup_add_dir(tmpl);
    int status = 2;
    char *root = NULL, *diff = NULL;
    json_t *result = json_pack("{s:s, s:i}", "tool", "hotscan validate", "schema_version", 1);
    if (o.root && !(root = hs_realpath(o.root))) {
        fprintf(stderr, "hotscan: --root %s: %s\n", o.root, strerror(errno));
        goto out;
    }
    if (o.findings) {
        if (!(diff = diff_from_findings(o.findings, tmpl, &root)))
            goto out;
    } else {
        char *given = hs_realpath(o.patch);
        if (!given) {
            fprintf(stderr, "hotscan: --patch %s: %s\n", o.patch, strerror(errno));
            goto out;
        }
        diff = given;
    }
    if (!root && !(root = hs_realpath("."))) {
        fprintf(stderr, "hotscan: the current folder: %s\n", strerror(errno));
        goto out;
    }
    json_object_set_new(result, "root", json_string(root));
    json_object_set_new(result, "patch", json_string(o.findings ? o.findings : o.patch));
    bool ok = true;
    /* Each step its own folder of the work folder: codegen's patched files are in
     * codegen/patched, the benchmark's copies bench/baseline and bench/patched (git worktree
     * add wants a folder that is not there yet). */
    char *cg_dir = hs_path_join(tmpl, "codegen"), *bench_dir = hs_path_join(tmpl, "bench");
    if (mkdir(cg_dir, 0700) != 0 || mkdir(bench_dir, 0700) != 0) {
        fprintf(stderr, "hotscan: cannot make a work folder in %s: %s\n", tmpl, strerror(errno));
        ok = false;
    }
    if (ok && o.codegen) {
        bool cg_ok;
        json_t *cg = run_codegen(&o, diff, cg_dir, root, argv + optind, argc - optind, &cg_ok);
        if (cg)
            json_object_set_new(result, "codegen", cg);
        ok = cg_ok;
    }
    if (ok && bench) {
        char *err = NULL;
        o.bench.root = root;
        o.bench.diff_path = diff;
        json_t *b = hs_bench_run(&o.bench, bench_dir, &err);
        if (!b) {
            fprintf(stderr, "hotscan: validate: %s\n", err);
            free(err);
            ok = false;
        } else {
            json_object_set_new(result, "benchmark", b);
        }
    }
    free(cg_dir);
    free(bench_dir);
    if (!ok)
        goto out;
    char *data;
    if (o.json) {
        data = json_dumps(result, JSON_INDENT(2) | JSON_SORT_KEYS);
        char *with_nl = hs_printf("%s\n", data);
        free(data);
        data = with_nl;
    } else {
        hs_buf b;
        hs_buf_init(&b);
        if (json_object_get(result, "codegen"))
            text_codegen(&b, json_object_get(result, "codegen"));
        if (json_object_get(result, "benchmark"))
            text_bench(&b, json_object_get(result, "benchmark"));
        data = hs_buf_take(&b);
    }
    char *err = NULL;
    if (!hs_write_output(o.output, data, strlen(data), &err)) {
        fprintf(stderr, "hotscan: %s\n", err);
        free(err);
    } else if (!o.output || strcmp(o.output, "-") == 0 ? hs_close_stdout("the result") : true) {
        status = 0;
    }
    free(data);
out:
    {
        char *rm[] = {"rm", "-rf", "--", tmpl, NULL};
        hs_proc_result r;
        hs_proc_run(rm, NULL, 600, &r);
        hs_proc_result_free(&r);
        hs_cleanup_forget_path(tmpl);
    }
    json_decref(result);
    free(root);
    free(diff);
    free(tmpl);
    return status;
}
