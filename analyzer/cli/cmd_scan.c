/*
 * cmd_scan.c - `hotscan scan`: options, then one library call per stage (discover ->
 * extract and merge -> judge -> fix -> emit), and the exit status, which only this file decides.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "hotscan/common.h"
#include "hotscan/discover.h"
#include "hotscan/emit.h"
#include "hotscan/findings.h"
#include "hotscan/judge.h"
#include "hotscan/merge.h"
#include "hotscan/verify.h"
#include "hotscan/workers.h"
#include "hotscan/tempfiles.h"


typedef struct {
    const char *database;
    hs_vec hot;           /* char* */
    hs_report_format format;
    const char *output;
    int jobs;
    hs_vec rule_dirs;     /* char* */
    hs_vec enable;        /* char* */
    hs_vec disable;       /* char* */
    const char *root;
    double tu_timeout;
    long long tu_memory;  /* bytes per worker, 0 none, HS_TU_MEMORY_DEFAULT */
    int color;            /* -1 auto, 0 never, 1 always */
    bool quiet;
    bool exit_zero;       /* findings alone do not make the exit status 1 */
    int min_confidence;   /* findings below this rank are left out */
    const char *facts_dir; /* write each TU's facts here (debugging, future sharding) */
    hs_fix_level fix_level;
    const char *export_fixes; /* clang-tidy YAML of the verified fixes */
    const char *patch;        /* unified diff of the verified fixes */
    bool fix;                 /* apply the verified fixes */
} scan_options;

static void scan_usage(FILE *out)
{
    fprintf(out,
            "usage: hotscan scan [options] [PATH...]\n\n"
            "Scans the translation units of a compile_commands.json, narrowed to PATHs (files or\n"
            "folders). A PATH the database does not list is parsed with default flags.\n\n"
            "options:\n"
            "  -p FILE|DIR          compile_commands.json or its folder (default: ./build, then .)\n"
            "  --hot FUNC           treat FUNC as a hot root (repeatable; qualified or plain name)\n"
            "  --format text|json|sarif  output format (default: text)\n"
            "  -o FILE              write the report to FILE instead of standard output\n"
            "  -j N                 parse N translation units at once (default: all cores)\n"
            "  --rules DIR          load extra rule data (*.json) from DIR (repeatable)\n"
            "  --enable RULE[,RULE] run only these rules (repeatable)\n"
            "  --disable RULE[,RULE] do not run these rules (repeatable)\n"
            "  --root DIR           report paths relative to DIR; only files under it are\n"
            "                       analyzed (default: the current directory)\n"
            "  --tu-timeout SEC     give up on a translation unit after SEC seconds (default 300)\n"
            "  --tu-memory SIZE     cap each worker's memory (e.g. 4G, 512M; 0: no cap; default:\n"
            "                       3/4 of the machine's memory shared by the workers, >= 2G)\n"
            "  --color auto|always|never  colored text output (default: auto)\n"
            "  -q, --quiet          no notes or summary on standard error\n"
            "  --min-confidence low|medium|high  leave out findings below this confidence\n"
            "                       (default: medium)\n"
            "  --patch FILE         write the verified fix-its as a unified diff (git apply, patch -p1)\n"
            "  --export-fixes FILE  write them as clang-tidy export-fixes YAML\n"
            "                       (clang-apply-replacements)\n"
            "  --fix                apply them (atomically, file by file; see hotscan apply)\n"
            "  --fix-level safe|aggressive  which fix-its to offer (default: safe); aggressive\n"
            "                       adds coarse clocks and the project's timer replacements\n"
            "  --facts-dir DIR      also write each translation unit's facts (JSON) to DIR\n"
            "  --exit-zero          exit 0 even when there are findings (errors still exit 2)\n"
            "  -h, --help           show this help\n\n"
            "Exit status: 0 no findings, 1 findings, 2 usage or input error (including a\n"
            "translation unit that failed to parse: the rest is still reported).\n");
}

static void push_list(hs_vec *v, const char *arg)
{
    char *copy = hs_xstrdup(arg);
    for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ","))
        hs_vec_push(v, hs_xstrdup(tok));
    free(copy);
}

static void free_list(hs_vec *v)
{
    for (size_t i = 0; i < v->len; i++)
        free(v->items[i]);
    hs_vec_free(v);
}

static int parse_options(int argc, char **argv, scan_options *o)
{
    enum { OPT_HOT = 256, OPT_FORMAT, OPT_RULES, OPT_ENABLE, OPT_DISABLE, OPT_ROOT, OPT_TIMEOUT, OPT_COLOR, OPT_EXIT_ZERO, OPT_MIN_CONFIDENCE, OPT_FACTS_DIR, OPT_FIX_LEVEL, OPT_EXPORT_FIXES, OPT_PATCH, OPT_FIX, OPT_MEMORY };
    static const struct option longopts[] = {
        {"hot", required_argument, NULL, OPT_HOT},
        {"format", required_argument, NULL, OPT_FORMAT},
        {"rules", required_argument, NULL, OPT_RULES},
        {"enable", required_argument, NULL, OPT_ENABLE},
        {"disable", required_argument, NULL, OPT_DISABLE},
        {"root", required_argument, NULL, OPT_ROOT},
        {"tu-timeout", required_argument, NULL, OPT_TIMEOUT},
        {"tu-memory", required_argument, NULL, OPT_MEMORY},
        {"color", required_argument, NULL, OPT_COLOR},
        {"quiet", no_argument, NULL, 'q'},
        {"exit-zero", no_argument, NULL, OPT_EXIT_ZERO},
        {"min-confidence", required_argument, NULL, OPT_MIN_CONFIDENCE},
        {"facts-dir", required_argument, NULL, OPT_FACTS_DIR},
        {"fix-level", required_argument, NULL, OPT_FIX_LEVEL},
        {"export-fixes", required_argument, NULL, OPT_EXPORT_FIXES},
        {"patch", required_argument, NULL, OPT_PATCH},
        {"fix", no_argument, NULL, OPT_FIX},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    o->jobs = ncpu > 0 ? (int)ncpu : 1;
    o->tu_timeout = 300;
    o->tu_memory = HS_TU_MEMORY_DEFAULT;
    o->color = -1;
    o->min_confidence = 2;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":p:o:j:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'p':
            o->database = optarg;
            break;
        case 'o':
            o->output = optarg;
            break;
        case 'j': {
            char *end;
            long j = strtol(optarg, &end, 10);
            if (*end || j < 1 || j > 1024) {
                fprintf(stderr, "hotscan: -j needs a number of jobs from 1 to 1024, not '%s'\n", optarg);
                return 2;
            }
            o->jobs = (int)j;
            break;
        }
        case 'q':
            o->quiet = true;
            break;
        case OPT_EXIT_ZERO:
            o->exit_zero = true;
            break;
        case OPT_EXPORT_FIXES:
            o->export_fixes = optarg;
            break;
        case OPT_PATCH:
            o->patch = optarg;
            break;
        case OPT_FIX:
            o->fix = true;
            break;
        case OPT_FIX_LEVEL:
            if (strcmp(optarg, "safe") == 0)
                o->fix_level = HS_FIX_SAFE;
            else if (strcmp(optarg, "aggressive") == 0)
                o->fix_level = HS_FIX_AGGRESSIVE;
            else {
                fprintf(stderr, "hotscan: unknown --fix-level '%s' (safe or aggressive)\n", optarg);
                return 2;
            }
            break;
        case OPT_FACTS_DIR:
            o->facts_dir = optarg;
            if (mkdir(optarg, 0777) != 0 && errno != EEXIST) {
                fprintf(stderr, "hotscan: --facts-dir %s: %s\n", optarg, strerror(errno));
                return 2;
            }
            break;
        case OPT_MIN_CONFIDENCE:
            o->min_confidence = hs_confidence_rank(optarg);
            if (!o->min_confidence) {
                fprintf(stderr, "hotscan: unknown --min-confidence '%s' (low, medium or high)\n", optarg);
                return 2;
            }
            break;
        case 'h':
            scan_usage(stdout);
            return hs_close_stdout("the help") ? 0 : 2;
        case OPT_HOT:
            hs_vec_push(&o->hot, hs_xstrdup(optarg));
            break;
        case OPT_FORMAT:
            if (strcmp(optarg, "text") == 0)
                o->format = HS_FORMAT_TEXT;
            else if (strcmp(optarg, "json") == 0)
                o->format = HS_FORMAT_JSON;
            else if (strcmp(optarg, "sarif") == 0)
                o->format = HS_FORMAT_SARIF;
            else {
                fprintf(stderr, "hotscan: unknown --format '%s' (text, json or sarif)\n", optarg);
                return 2;
            }
            break;
        case OPT_RULES:
            hs_vec_push(&o->rule_dirs, hs_xstrdup(optarg));
            break;
        case OPT_ENABLE:
            push_list(&o->enable, optarg);
            break;
        case OPT_DISABLE:
            push_list(&o->disable, optarg);
            break;
        case OPT_ROOT:
            o->root = optarg;
            break;
        case OPT_TIMEOUT: {
            char *end;
            double t = strtod(optarg, &end);
            if (end == optarg || *end || !(t >= 0) || t > 1e9) {
                fprintf(stderr, "hotscan: --tu-timeout needs seconds (0.5, 300; 0: no limit), not '%s'\n", optarg);
                return 2;
            }
            o->tu_timeout = t;
            break;
        }
        case OPT_MEMORY: {
            char *end;
            errno = 0;
            long long v = strtoll(optarg, &end, 10);
            long long unit = 1LL << 20; /* a bare number is MiB */
            if (end != optarg && (*end == 'K' || *end == 'k'))
                unit = 1LL << 10, end++;
            else if (end != optarg && (*end == 'M' || *end == 'm'))
                unit = 1LL << 20, end++;
            else if (end != optarg && (*end == 'G' || *end == 'g'))
                unit = 1LL << 30, end++;
            if (end == optarg || *end || errno || v < 0 || v > (1LL << 50) / unit ||
                (v > 0 && v * unit < (64LL << 20))) {
                fprintf(stderr, "hotscan: --tu-memory needs a size of at least 64M (e.g. 4G, "
                                "512M; a bare number is MiB; 0: no cap), not '%s'\n", optarg);
                return 2;
            }
            o->tu_memory = v * unit;
            break;
        }
        case OPT_COLOR:
            if (strcmp(optarg, "auto") == 0)
                o->color = -1;
            else if (strcmp(optarg, "always") == 0)
                o->color = 1;
            else if (strcmp(optarg, "never") == 0)
                o->color = 0;
            else {
                fprintf(stderr, "hotscan: unknown --color '%s' (auto, always or never)\n", optarg);
                return 2;
            }
            break;
        case ':':
            fprintf(stderr, "hotscan: option '%s' needs a value\n", argv[optind - 1]);
            return 2;
        default:
            fprintf(stderr, "hotscan: unknown option '%s' (see 'hotscan scan --help')\n",
                    argv[optind - 1]);
            return 2;
        }
    }
    size_t nrules;
    const hs_rule *const *rules = hs_rules_all(&nrules);
    hs_vec *lists[2] = {&o->enable, &o->disable};
    for (int l = 0; l < 2; l++) {
        for (size_t i = 0; i < lists[l]->len; i++) {
            if (!hs_rule_find(lists[l]->items[i])) {
                fprintf(stderr, "hotscan: unknown rule '%s'; the rules are:", (char *)lists[l]->items[i]);
                for (size_t r = 0; r < nrules; r++)
                    fprintf(stderr, " %s", rules[r]->id);
                fprintf(stderr, "\n");
                return 2;
            }
        }
    }
    return -1; /* go on */
}

static hs_ruledata *load_rule_data(const scan_options *o)
{
    hs_ruledata *rd = hs_ruledata_create();
    char *err = NULL;
    char *dir = hs_ruledata_default_dir();
    bool ok = hs_ruledata_load_dir(rd, dir, &err);
    free(dir);
    for (size_t i = 0; ok && i < o->rule_dirs.len; i++) {
        const char *extra = o->rule_dirs.items[i];
        size_t n = strlen(extra);
        ok = (n > 5 && strcmp(extra + n - 5, ".json") == 0) ? hs_ruledata_load_file(rd, extra, &err)
                                                            : hs_ruledata_load_dir(rd, extra, &err);
    }
    if (!ok) {
        fprintf(stderr, "hotscan: error: %s\n", err);
        free(err);
        hs_ruledata_delete(rd);
        return NULL;
    }
    return rd;
}

/* Prints what a person should know after the scan: errors, hidden findings, the summary. */
static void print_summary(const scan_options *o, json_t *report, const hs_merge *m, size_t hidden,
                          size_t n, double seconds)
{
    json_t *errors = json_object_get(report, "errors");
    size_t nfind = json_array_size(json_object_get(report, "findings")), nerr = json_array_size(errors);
    size_t i;
    json_t *e;
    json_array_foreach(errors, i, e)
        fprintf(stderr, "hotscan: error: %s: %s\n", json_string_value(json_object_get(e, "file")),
                json_string_value(json_object_get(e, "message")));
    if (o->quiet)
        return;
    if (hidden)
        fprintf(stderr, "hotscan: note: %zu lower-confidence finding%s left out (--min-confidence low shows them)\n",
                hidden, hidden == 1 ? "" : "s");
    fprintf(stderr, "hotscan: %zu finding%s in %zu translation unit%s (%zu with errors, %zu failed) in %.1f s\n",
            nfind, nfind == 1 ? "" : "s", n, n == 1 ? "" : "s", nerr - m->failed, m->failed, seconds);
}

static void print_ignored_arguments(const hs_merge *m)
{
    if (!hs_strmap_size(m->ignored_arguments))
        return;
    fprintf(stderr, "hotscan: note: clang does not know these compiler options and ignored them:");
    const char *arg;
    for (size_t it = 0; hs_strmap_next(m->ignored_arguments, &it, &arg, NULL);)
        fprintf(stderr, " %s", arg);
    fprintf(stderr, "\n");
}

/* Writes the report to -o FILE (through a temporary file and a rename) or to standard output
 * ("-" or no -o); false after saying why when it could not be written. */
static bool write_report(const scan_options *o, json_t *report)
{
    bool to_stdout = !o->output || strcmp(o->output, "-") == 0;
    bool color = o->color == 1 || (o->color == -1 && to_stdout && isatty(STDOUT_FILENO) && !getenv("NO_COLOR"));
    char *data = NULL;
    size_t size = 0;
    FILE *mem = open_memstream(&data, &size);
    if (!mem) {
        fprintf(stderr, "hotscan: error: could not write the report: %s\n", strerror(errno));
        return false;
    }
    bool ok = hs_emit_report(mem, report, o->format, color);
    if (fclose(mem) != 0)
        ok = false;
    char *err = NULL;
    if (ok && !hs_write_output(o->output, data, size, &err))
        ok = false;
    if (!ok && err)
        fprintf(stderr, "hotscan: error: could not write the report: %s\n", err);
    else if (!ok)
        fprintf(stderr, "hotscan: error: could not write the report: %s\n", strerror(errno));
    free(err);
    free(data);
    return ok;
}

/* discover -> extract and merge (streamed) -> judge -> fix -> finalize -> emit. */
static int run_scan(scan_options *o, char **paths, int npaths)
{
    double t0 = hs_now_seconds();
    hs_cleanup_install();
    char *root = hs_realpath(o->root ? o->root : ".");
    if (!root) {
        fprintf(stderr, "hotscan: error: --root %s: %s\n", o->root ? o->root : ".", strerror(errno));
        return 2;
    }
    hs_ruledata *rd = load_rule_data(o);
    if (!rd) {
        free(root);
        return 2;
    }
    hs_discovery disc;
    char *err = NULL;
    if (!hs_discover(o->database, paths, npaths, &disc, &err)) {
        fprintf(stderr, "hotscan: error: %s\n", err);
        free(err);
        hs_discovery_free(&disc);
        hs_ruledata_delete(rd);
        free(root);
        return 2;
    }
    if (!o->quiet)
        for (size_t i = 0; i < disc.notes.len; i++)
            fprintf(stderr, "hotscan: note: %s\n", (char *)disc.notes.items[i]);
    size_t n = disc.tus.len;
    if (!o->quiet && n > 0 && hs_discovery_count_under(&disc, root) == 0)
        fprintf(stderr, "hotscan: note: none of the %zu translation units lies under the root %s, and only "
                        "code under the root is analyzed (see --root)\n", n, root);

    /* Extract and merge: each TU's facts join the model as soon as they (and every TU
     * before them) are done, then are freed. */
    hs_merge merge;
    hs_merge_init(&merge, &disc, root, o->facts_dir, stderr);
    hs_tu_result *results = hs_xcalloc(n ? n : 1, sizeof *results);
    if (o->tu_memory > 0 && !hs_tu_memory_enforced() && !o->quiet)
        fprintf(stderr, "hotscan: note: --tu-memory is not enforced in this sanitizer build\n");
    hs_pool_options pool = {.jobs = o->jobs, .tu_timeout = o->tu_timeout, .tu_memory = o->tu_memory,
                            .rd = rd, .root = root, .full_facts = o->facts_dir != NULL,
                            .progress = !o->quiet && isatty(STDERR_FILENO),
                            .on_result = hs_merge_tu_result, .user = &merge};
    int status = 0;
    if (!hs_extract_all((hs_tu_input **)disc.tus.items, n, &pool, results, &err)) {
        fprintf(stderr, "hotscan: error: %s\n", err);
        free(err);
        status = 2;
    }
    free(results);
    if (!o->quiet)
        print_ignored_arguments(&merge);

    hs_judge_options jo = {.hot = (char **)o->hot.items, .n_hot = o->hot.len,
                           .enable = (char **)o->enable.items, .n_enable = o->enable.len,
                           .disable = (char **)o->disable.items, .n_disable = o->disable.len,
                           .fix_level = o->fix_level, .tus_left_out = disc.left_out,
                           .tus_in_database = disc.database_tus};
    json_t *extra;
    json_t *findings = hs_judge_run(merge.program, rd, &jo, &extra);
    hs_merge_release_program(&merge);

    /* Only fix-its the report will show are verified: each costs a reparse of its TU. */
    json_t *files_map = json_object();
    json_t *shown = hs_findings_at_least(findings, o->min_confidence);
    hs_fix_verify(shown, (hs_tu_input **)disc.tus.items, merge.baseline_errors, &pool, files_map, root,
                  stderr);
    json_decref(shown);
    /* Fingerprints first, so they do not depend on what --min-confidence leaves out. */
    hs_findings_finalize(findings, root);
    size_t hidden = hs_findings_drop_below(findings, o->min_confidence);

    double seconds = hs_now_seconds() - t0;
    json_t *report = hs_report_new(root, n, findings, merge.errors, files_map, extra, seconds);
    merge.errors = NULL;
    if (!write_report(o, report))
        status = 2;
    if (!hs_emit_fix_outputs(report, o->patch, o->export_fixes, o->fix, stderr))
        status = 2;
    print_summary(o, report, &merge, hidden, n, seconds);
    size_t nfind = json_array_size(findings), nerr = json_array_size(json_object_get(report, "errors"));
    if (status == 0)
        status = nerr ? 2 : (nfind && !o->exit_zero) ? 1 : 0;
    json_decref(report);
    hs_merge_free(&merge);
    hs_discovery_free(&disc);
    hs_ruledata_delete(rd);
    free(root);
    return status;
}

int cmd_scan(int argc, char **argv)
{
    scan_options o = {0};
    int status = parse_options(argc, argv, &o);
    if (status < 0)
        status = run_scan(&o, argv + optind, argc - optind);
    free_list(&o.hot);
    free_list(&o.rule_dirs);
    free_list(&o.enable);
    free_list(&o.disable);
    return status;
}
