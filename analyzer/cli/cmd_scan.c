/*
 * cmd_scan.c - `hotscan scan`: discover -> extract (parallel) -> merge -> judge -> emit.
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
#include "hotscan/edits.h"
#include "hotscan/emit.h"
#include "hotscan/findings.h"
#include "hotscan/program.h"
#include "hotscan/rules.h"
#include "hotscan/workers.h"

typedef enum { FORMAT_TEXT, FORMAT_JSON, FORMAT_SARIF } output_format;

typedef struct {
    const char *database;
    hs_vec hot;           /* char* */
    output_format format;
    const char *output;
    int jobs;
    hs_vec rule_dirs;     /* char* */
    hs_vec enable;        /* char* */
    hs_vec disable;       /* char* */
    const char *root;
    double tu_timeout;
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

static bool in_list(const hs_vec *v, const char *s)
{
    for (size_t i = 0; i < v->len; i++)
        if (strcmp(v->items[i], s) == 0)
            return true;
    return false;
}

static int confidence_rank(const char *c)
{
    return strcmp(c, "low") == 0 ? 1 : strcmp(c, "medium") == 0 ? 2 : strcmp(c, "high") == 0 ? 3 : 0;
}

/* Drops findings below the minimum confidence; returns how many were dropped. */
static size_t drop_below(json_t *findings, int min_rank)
{
    size_t dropped = 0;
    for (size_t i = json_array_size(findings); i-- > 0;) {
        const char *c = json_string_value(json_object_get(json_array_get(findings, i), "confidence"));
        if (confidence_rank(c ? c : "high") < min_rank) {
            json_array_remove(findings, i);
            dropped++;
        }
    }
    return dropped;
}

static int parse_options(int argc, char **argv, scan_options *o)
{
    enum { OPT_HOT = 256, OPT_FORMAT, OPT_RULES, OPT_ENABLE, OPT_DISABLE, OPT_ROOT, OPT_TIMEOUT, OPT_COLOR, OPT_EXIT_ZERO, OPT_MIN_CONFIDENCE, OPT_FACTS_DIR, OPT_FIX_LEVEL, OPT_EXPORT_FIXES, OPT_PATCH, OPT_FIX };
    static const struct option longopts[] = {
        {"hot", required_argument, NULL, OPT_HOT},
        {"format", required_argument, NULL, OPT_FORMAT},
        {"rules", required_argument, NULL, OPT_RULES},
        {"enable", required_argument, NULL, OPT_ENABLE},
        {"disable", required_argument, NULL, OPT_DISABLE},
        {"root", required_argument, NULL, OPT_ROOT},
        {"tu-timeout", required_argument, NULL, OPT_TIMEOUT},
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
            o->min_confidence = confidence_rank(optarg);
            if (!o->min_confidence) {
                fprintf(stderr, "hotscan: unknown --min-confidence '%s' (low, medium or high)\n", optarg);
                return 2;
            }
            break;
        case 'h':
            scan_usage(stdout);
            return 0;
        case OPT_HOT:
            hs_vec_push(&o->hot, hs_xstrdup(optarg));
            break;
        case OPT_FORMAT:
            if (strcmp(optarg, "text") == 0)
                o->format = FORMAT_TEXT;
            else if (strcmp(optarg, "json") == 0)
                o->format = FORMAT_JSON;
            else if (strcmp(optarg, "sarif") == 0)
                o->format = FORMAT_SARIF;
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
            if (*end || t < 0) {
                fprintf(stderr, "hotscan: --tu-timeout needs seconds, not '%s'\n", optarg);
                return 2;
            }
            o->tu_timeout = t;
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

static bool rule_enabled(const scan_options *o, const hs_rule *r)
{
    if (o->enable.len && !in_list(&o->enable, r->id))
        return false;
    return !in_list(&o->disable, r->id);
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

static json_t *error_entry(const char *file, const char *message)
{
    return json_pack("{s:s, s:s}", "file", file, "message", message);
}

/* A TU that parsed with errors still gives facts, but its findings may be incomplete. */
static json_t *parse_error_entry(const char *root, const char *file, json_t *parse_errors)
{
    size_t n = json_array_size(parse_errors);
    char *rel = hs_path_relative(root, file);
    char *msg = hs_printf("%zu%s compile error%s; findings from this file may be incomplete; first: %s",
                          n, n >= 5 ? "+" : "", n == 1 ? "" : "s",
                          json_string_value(json_array_get(parse_errors, 0)));
    json_t *e = error_entry(rel, msg);
    free(rel);
    free(msg);
    return e;
}

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

/* DIR/<index>-<file name>.json; a failure to write is reported, not fatal. */
static void write_facts(const char *dir, const char *root, const char *file, size_t index, json_t *facts)
{
    char *rel = hs_path_relative(root, file);
    for (char *p = rel; *p; p++)
        if (*p == '/')
            *p = '_';
    char *path = hs_printf("%s/%04zu-%s.json", dir, index, rel);
    if (json_dump_file(facts, path, JSON_INDENT(1)) != 0)
        fprintf(stderr, "hotscan: warning: --facts-dir: cannot write %s: %s\n", path, strerror(errno));
    free(path);
    free(rel);
}

/* Applies a fix's edits for one file to its content (edits must not overlap). */
static char *apply_edits_to(const char *content, size_t size, json_t *edits, const char *file, bool *ok)
{
    size_t n = 0;
    json_t *mine[64];
    size_t i;
    json_t *e;
    json_array_foreach(edits, i, e) {
        if (strcmp(json_string_value(json_object_get(e, "file")), file) == 0 && n < 64)
            mine[n++] = e;
    }
    /* Insertion order by offset, then apply back to front so offsets stay valid. */
    for (size_t a = 1; a < n; a++)
        for (size_t b = a; b > 0 && json_integer_value(json_object_get(mine[b - 1], "offset")) >
                                        json_integer_value(json_object_get(mine[b], "offset")); b--) {
            json_t *t = mine[b];
            mine[b] = mine[b - 1];
            mine[b - 1] = t;
        }
    hs_buf out;
    hs_buf_init(&out);
    size_t pos = 0;
    *ok = true;
    for (size_t k = 0; k < n; k++) {
        size_t off = (size_t)json_integer_value(json_object_get(mine[k], "offset"));
        size_t len = (size_t)json_integer_value(json_object_get(mine[k], "length"));
        if (off < pos || off + len > size) {
            *ok = false;
            break;
        }
        hs_buf_append(&out, content + pos, off - pos);
        hs_buf_puts(&out, json_string_value(json_object_get(mine[k], "replacement")));
        pos = off + len;
    }
    if (*ok)
        hs_buf_append(&out, content + pos, size - pos);
    return hs_buf_take(&out);
}

/*
 * Verifies every fix by reparsing the TU that saw its finding with the fix's edits
 * applied in memory: a fix that adds a compile error is dropped, and the finding says
 * why. Also records each edited file's content hash in the report's "files" map, so
 * `hotscan apply` can refuse files that changed since.
 */
static void verify_fixes(json_t *findings, hs_discovery *disc, const int *baseline, const hs_pool_options *pool,
                         json_t *files_map, const char *root)
{
    hs_strmap *contents = hs_strmap_create(); /* absolute path -> json string (content) */
    hs_vec jobs = {0};
    hs_vec targets = {0}; /* json fix objects, parallel to jobs */
    hs_vec owners = {0};  /* json finding objects */
    size_t i;
    json_t *f;
    json_array_foreach(findings, i, f) {
        json_t *fixes = json_object_get(f, "fixes");
        json_t *tu = json_object_get(f, "tu_index");
        size_t k;
        json_t *fix;
        json_array_foreach(fixes, k, fix) {
            json_t *edits = json_object_get(fix, "edits");
            json_t *unsaved = json_array();
            bool ok = json_is_integer(tu);
            size_t e;
            json_t *edit;
            json_array_foreach(edits, e, edit) {
                const char *file = json_string_value(json_object_get(edit, "file"));
                bool seen = false;
                size_t u;
                json_t *entry;
                json_array_foreach(unsaved, u, entry) seen |= strcmp(json_string_value(json_object_get(entry, "file")), file) == 0;
                if (seen || !ok)
                    continue;
                json_t *content = hs_strmap_get(contents, file);
                if (!content) {
                    size_t size = 0;
                    char *text = hs_read_file(file, &size);
                    content = text ? json_stringn(text, size) : json_null();
                    hs_strmap_put(contents, file, content);
                    free(text);
                }
                if (!json_is_string(content)) {
                    ok = false;
                    continue;
                }
                bool applied;
                char *changed = apply_edits_to(json_string_value(content), json_string_length(content), edits, file, &applied);
                ok = ok && applied;
                json_array_append_new(unsaved, json_pack("{s:s, s:s}", "file", file, "content", changed));
                free(changed);
            }
            if (!ok) {
                json_decref(unsaved);
                json_object_set_new(fix, "verified", json_false());
                json_object_set_new(fix, "rejected", json_string("its edits could not be applied to the file as read"));
                continue;
            }
            hs_verify_job *job = hs_xcalloc(1, sizeof *job);
            job->tu = (size_t)json_integer_value(tu);
            job->unsaved = unsaved;
            hs_vec_push(&jobs, job);
            hs_vec_push(&targets, fix);
            hs_vec_push(&owners, f);
        }
    }
    if (jobs.len) {
        hs_verify_job *flat = hs_xcalloc(jobs.len, sizeof *flat);
        for (size_t j = 0; j < jobs.len; j++)
            flat[j] = *(hs_verify_job *)jobs.items[j];
        hs_tu_result *results = hs_xcalloc(jobs.len, sizeof *results);
        char *err = NULL;
        hs_pool_options o = *pool;
        o.progress = false;
        if (!hs_verify_all((hs_tu_input **)disc->tus.items, flat, jobs.len, &o, results, &err)) {
            fprintf(stderr, "hotscan: warning: fix-its could not be verified: %s\n", err);
            free(err);
        }
        for (size_t j = 0; j < jobs.len; j++) {
            json_t *fix = targets.items[j];
            json_t *r = results[j].facts;
            int base = baseline[flat[j].tu];
            if (r && json_integer_value(json_object_get(r, "errors")) <= base) {
                json_object_set_new(fix, "verified", json_true());
            } else {
                char *why = r ? hs_printf("the edit would add a compile error: %s",
                                          json_string_value(json_object_get(r, "first")))
                              : hs_printf("it could not be verified: %s", results[j].error ? results[j].error : "no result");
                json_object_set_new(fix, "verified", json_false());
                json_object_set_new(fix, "rejected", json_string(why));
                free(why);
            }
            json_decref(r);
            free(results[j].error);
            json_decref(flat[j].unsaved);
            free(jobs.items[j]);
        }
        free(results);
        free(flat);
    }
    /* Drop rejected fixes from the findings, keeping the reason on the finding. */
    json_array_foreach(findings, i, f) {
        json_t *fixes = json_object_get(f, "fixes");
        for (size_t k = json_array_size(fixes); k-- > 0;) {
            json_t *fix = json_array_get(fixes, k);
            json_t *rejected = json_object_get(fix, "rejected");
            if (rejected) {
                json_object_set(f, "fix_unavailable", rejected);
                json_array_remove(fixes, k);
                continue;
            }
            size_t e;
            json_t *edit;
            json_array_foreach(json_object_get(fix, "edits"), e, edit) {
                const char *file = json_string_value(json_object_get(edit, "file"));
                json_t *content = hs_strmap_get(contents, file);
                if (!json_is_string(content))
                    continue;
                char *rel = hs_path_relative(root, file);
                char *hash = hs_content_hash(json_string_value(content), json_string_length(content));
                json_object_set_new(files_map, rel, json_pack("{s:s, s:i}", "hash", hash, "size",
                                                              (json_int_t)json_string_length(content)));
                free(hash);
                free(rel);
            }
        }
        json_object_del(f, "tu_index");
    }
    const char *key;
    void *value;
    for (size_t it = 0; hs_strmap_next(contents, &it, &key, &value);)
        json_decref(value);
    hs_strmap_delete(contents);
    hs_vec_free(&jobs);
    hs_vec_free(&targets);
    hs_vec_free(&owners);
}

/* A fix output: FILE written through `writer`; "-" is standard output. */
static bool write_with(const char *path, const char *what, json_t *report,
                       bool (*writer)(FILE *, json_t *, char **))
{
    FILE *out = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
    if (!out) {
        fprintf(stderr, "hotscan: error: %s %s: %s\n", what, path, strerror(errno));
        return false;
    }
    char *err = NULL;
    bool ok = writer(out, report, &err);
    if (out != stdout && fclose(out) != 0)
        ok = false;
    if (!ok)
        fprintf(stderr, "hotscan: error: %s %s: %s\n", what, path, err ? err : strerror(errno));
    free(err);
    return ok;
}

/* --patch, --export-fixes and --fix, all from the verified fixes in the report. */
static bool write_fix_outputs(const scan_options *o, json_t *report)
{
    bool ok = true;
    if (o->patch)
        ok &= write_with(o->patch, "--patch", report, hs_emit_patch);
    if (o->export_fixes)
        ok &= write_with(o->export_fixes, "--export-fixes", report, hs_emit_export_fixes);
    if (o->fix) {
        hs_edit_plan plan;
        char *err = NULL;
        if (!hs_edit_plan_build(report, &plan, &err)) {
            fprintf(stderr, "hotscan: error: --fix: %s\n", err);
            free(err);
            return false;
        }
        for (size_t i = 0; i < plan.problems.len; i++)
            fprintf(stderr, "hotscan: --fix: %s\n", (char *)plan.problems.items[i]);
        ok &= hs_apply_plan(&plan, false, stderr) == 0;
        hs_edit_plan_free(&plan);
    }
    return ok;
}

static int run_scan(scan_options *o, char **paths, int npaths)
{
    double t0 = hs_now_seconds();
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
    size_t under_root = 0;
    for (size_t i = 0; i < n; i++)
        under_root += hs_path_is_under(root, ((hs_tu_input *)disc.tus.items[i])->file);
    if (n > 0 && under_root == 0 && !o->quiet)
        fprintf(stderr, "hotscan: note: none of the %zu translation units lies under the root %s, and only "
                        "code under the root is analyzed (see --root)\n", n, root);
    hs_tu_result *results = hs_xcalloc(n ? n : 1, sizeof *results);
    hs_pool_options pool = {.jobs = o->jobs, .tu_timeout = o->tu_timeout, .rd = rd, .root = root,
                            .progress = !o->quiet && isatty(STDERR_FILENO)};
    int status = 0;
    if (!hs_extract_all((hs_tu_input **)disc.tus.items, n, &pool, results, &err)) {
        fprintf(stderr, "hotscan: error: %s\n", err);
        free(err);
        status = 2;
    }

    hs_program *program = hs_program_create();
    int *baseline_errors = hs_xcalloc(n ? n : 1, sizeof(int));
    json_t *errors = json_array();
    size_t failed = 0;
    hs_strmap *ignored_arguments = hs_strmap_create();
    for (size_t i = 0; i < n; i++) {
        hs_tu_input *in = disc.tus.items[i];
        if (results[i].facts) {
            if (o->facts_dir)
                write_facts(o->facts_dir, root, in->file, i, results[i].facts);
            json_object_set_new(results[i].facts, "tu_index", json_integer((json_int_t)i));
            baseline_errors[i] = (int)json_integer_value(json_object_get(results[i].facts, "error_count"));
            hs_program_merge(program, results[i].facts);
            size_t k;
            json_t *arg;
            json_array_foreach(json_object_get(results[i].facts, "ignored_arguments"), k, arg)
                hs_strmap_put(ignored_arguments, json_string_value(arg), (void *)1);
            json_t *pe = json_object_get(results[i].facts, "parse_errors");
            if (json_array_size(pe) > 0)
                json_array_append_new(errors, parse_error_entry(root, in->file, pe));
            json_decref(results[i].facts);
        } else {
            char *rel = hs_path_relative(root, in->file);
            json_array_append_new(errors, error_entry(rel, results[i].error ? results[i].error : "not parsed"));
            free(rel);
            failed++;
        }
        free(results[i].error);
    }
    free(results);
    if (!o->quiet && hs_strmap_size(ignored_arguments)) {
        fprintf(stderr, "hotscan: note: clang does not know these compiler options and ignored them:");
        const char *arg;
        for (size_t it = 0; hs_strmap_next(ignored_arguments, &it, &arg, NULL);)
            fprintf(stderr, " %s", arg);
        fprintf(stderr, "\n");
    }
    hs_strmap_delete(ignored_arguments);
    hs_program_compute_hotness(program, (char **)o->hot.items, o->hot.len);
    for (size_t i = 0; i < rd->hot_functions.len; i++) {
        /* Hot roots declared in rule data join those named on the command line. */
        hs_vec_push(&o->hot, hs_xstrdup(rd->hot_functions.items[i]));
    }
    if (rd->hot_functions.len)
        hs_program_compute_hotness(program, (char **)o->hot.items, o->hot.len);

    json_t *findings = json_array();
    json_t *extra = json_object();
    size_t nrules;
    const hs_rule *const *rules = hs_rules_all(&nrules);
    for (size_t r = 0; r < nrules; r++) {
        if (!rule_enabled(o, rules[r]))
            continue;
        hs_judge_ctx ctx = {.program = program, .rd = rd, .fix_level = o->fix_level,
                            .findings = findings, .extra = extra};
        rules[r]->judge(&ctx);
    }
    json_t *files_map = json_object();
    verify_fixes(findings, &disc, baseline_errors, &pool, files_map, root);
    free(baseline_errors);
    /* Fingerprints first, so they do not depend on what --min-confidence leaves out. */
    hs_findings_finalize(findings, root);
    size_t hidden = drop_below(findings, o->min_confidence);

    double seconds = hs_now_seconds() - t0;
    json_t *report = json_object();
    json_object_set_new(report, "schema_version", json_integer(1));
    json_object_set_new(report, "tool", json_pack("{s:s, s:s}", "name", "hotscan", "version", HOTSCAN_VERSION));
    json_object_set_new(report, "root", json_string(root));
    json_object_set_new(report, "summary",
                        json_pack("{s:i, s:i, s:i, s:f}", "translation_units", (json_int_t)n, "findings",
                                  (json_int_t)json_array_size(findings), "errors",
                                  (json_int_t)json_array_size(errors), "seconds", seconds));
    json_object_set_new(report, "findings", findings);
    json_object_set_new(report, "errors", errors);
    json_object_set_new(report, "files", files_map);
    relativize_files(extra, root);
    json_object_update(report, extra);
    json_decref(extra);

    FILE *out = stdout;
    if (o->output) {
        out = fopen(o->output, "w");
        if (!out) {
            fprintf(stderr, "hotscan: error: -o %s: %s\n", o->output, strerror(errno));
            status = 2;
        }
    }
    if (out) {
        bool color = o->color == 1 || (o->color == -1 && !o->output && isatty(STDOUT_FILENO) && !getenv("NO_COLOR"));
        bool ok = o->format == FORMAT_JSON    ? hs_emit_json(out, report)
                  : o->format == FORMAT_SARIF ? hs_emit_sarif(out, report)
                                              : hs_emit_text(out, report, color);
        if (out != stdout && fclose(out) != 0)
            ok = false;
        if (!ok) {
            fprintf(stderr, "hotscan: error: could not write the report%s%s\n", o->output ? " to " : "",
                    o->output ? o->output : "");
            status = 2;
        }
    }
    if (!write_fix_outputs(o, report))
        status = 2;
    size_t nfind = json_array_size(findings), nerr = json_array_size(errors);
    if (!o->quiet || nerr) {
        size_t i;
        json_t *e;
        json_array_foreach(errors, i, e)
            fprintf(stderr, "hotscan: error: %s: %s\n", json_string_value(json_object_get(e, "file")),
                    json_string_value(json_object_get(e, "message")));
    }
    if (!o->quiet && hidden)
        fprintf(stderr, "hotscan: note: %zu lower-confidence finding%s left out (--min-confidence low shows them)\n",
                hidden, hidden == 1 ? "" : "s");
    if (!o->quiet)
        fprintf(stderr, "hotscan: %zu finding%s in %zu translation unit%s (%zu with errors, %zu failed) in %.1f s\n",
                nfind, nfind == 1 ? "" : "s", n, n == 1 ? "" : "s", nerr - failed, failed, seconds);
    if (status == 0)
        status = nerr ? 2 : (nfind && !o->exit_zero) ? 1 : 0;
    json_decref(report);
    hs_program_delete(program);
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
