/*
 * cmd_scan.c - `hotscan scan`: options, then one library call per stage (discover ->
 * extract and merge -> judge -> fix -> emit), and the exit status, which only this file decides.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "config.h"
#include "hotscan/baseline.h"
#include "hotscan/common.h"
#include "hotscan/diffbase.h"
#include "hotscan/discover.h"
#include "hotscan/emit.h"
#include "hotscan/findings.h"
#include "hotscan/judge.h"
#include "hotscan/merge.h"
#include "hotscan/nobuild.h"
#include "hotscan/program.h"
#include "hotscan/suppress.h"
#include "hotscan/facts.h"
#include "hotscan/facts_cache.h"
#include "hotscan/prefilter.h"
#include "hotscan/profile.h"
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
    hs_vec exclude;       /* char*: patterns of paths (relative to the root) left out */
    hs_vec extra_before;  /* char*: compiler flags put first on every TU's command */
    hs_vec extra_after;   /* char*: and last (--extra-arg, the flags after "--") */
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
    bool report_unused_suppressions; /* NOLINTs naming a hotscan rule that suppress nothing */
    const char *baseline;     /* an earlier report: its findings are left out */
    const char *diff_base;    /* a git revision: only findings on lines changed since it */
    const char *docs_url;     /* where the docs are on the web (SARIF helpUri); default: none */
    const char *cache_dir;    /* --cache DIR; NULL: the default place */
    bool no_cache;            /* --no-cache */
    bool prefilter;           /* --prefilter (or HOTSCAN_PREFILTER=1): leave out TUs that cannot
                                 contribute to any finding, decided with tree-sitter */
    bool judge;               /* `hotscan judge`: PATHs are facts files, nothing is parsed */
    unsigned shard_k, shard_n; /* --shard K/N; n == 0: the whole tree */
    bool extract_only;        /* --facts-out: write the facts, judge nothing */
    const char *profile;      /* a measured profile: the source of hotness, and the ranking */
    double profile_threshold; /* percent of samples a hot root's inclusive share reaches */
    bool keep_unsampled;      /* findings in never-sampled functions keep their confidence */
    bool no_build;            /* --no-build (or no database found, no PATHs): tree-sitter facts only */
    int argc_all;             /* argv's words, the compiler flags after "--" included */
    const char *program;      /* the program as run, and the words after it as given (getopt */
    json_t *arguments;        /* reorders argv): the report's invocation; owned */
    int npaths;               /* PATHs: argv[optind] on, before any "--" */
} scan_options;

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

/* A JSON string of `s`, whose bytes need not be UTF-8 (an argument, a path): a byte that is
 * not becomes U+FFFD rather than the value being lost. */
static json_t *any_string(const char *s)
{
    json_t *v = json_string(s);
    if (v)
        return v;
    hs_buf b;
    hs_buf_init(&b);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p < 0x80)
            hs_buf_append(&b, (const char *)p, 1);
        else
            hs_buf_puts(&b, "\xEF\xBF\xBD");
    }
    v = json_string(b.data ? b.data : "");
    hs_buf_free(&b);
    return v;
}

/*
 * A note or warning of the scan: printed on standard error as "hotscan: LEVEL: TEXT" when
 * `print`, and kept in `notes` either way for the report's invocation.notes (SARIF's
 * toolExecutionNotifications): -q quiets standard error, not the report.
 */
static void scan_note(json_t *notes, bool print, const char *level, const char *text)
{
    if (print)
        fprintf(stderr, "hotscan: %s: %s\n", level, text);
    if (notes)
        json_array_append_new(notes, json_pack("{s:s, s:o}", "level", level, "message", any_string(text)));
}

enum {
    OPT_HOT = 256, OPT_FORMAT, OPT_RULES, OPT_ENABLE, OPT_DISABLE, OPT_ROOT, OPT_TIMEOUT, OPT_COLOR,
    OPT_EXIT_ZERO, OPT_MIN_CONFIDENCE, OPT_FACTS_DIR, OPT_FIX_LEVEL, OPT_EXPORT_FIXES, OPT_PATCH, OPT_FIX,
    OPT_MEMORY, OPT_REPORT_UNUSED, OPT_CONFIG, OPT_NO_CONFIG, OPT_EXCLUDE,
    OPT_EXTRA_ARG, OPT_EXTRA_ARG_BEFORE, OPT_BASELINE, OPT_DIFF_BASE, OPT_DOCS_URL,
    OPT_PROFILE, OPT_PROFILE_THRESHOLD, OPT_KEEP_UNSAMPLED, OPT_CACHE, OPT_NO_CACHE, OPT_SHARD, OPT_FACTS_OUT,
    OPT_NO_BUILD, OPT_PREFILTER
};

/* The option table: the command line, .hotscan.yml (whose keys are these long names, but for
 * HS_OPT_CLI_ONLY), the help, the manual page and the completion (options.h). */
static const hs_cli_option scan_table[] = {
    {"compile-commands", 'p', 'p', "FILE|DIR", "the compile database, compile_commands.json or its folder (default: ./build, then .)",
     HS_OPT_PATH, NULL, HS_COMPLETE_DIRS, NULL},
    {"hot", 0, OPT_HOT, "FUNC",
     "treat FUNC as a hot root (repeatable): a whole qualified name or its last components (Get, "
     "DBImpl::Get); a leading :: asks for the whole name. A name that names no function is warned "
     "about, under -q too",
     HS_OPT_LIST, NULL, HS_COMPLETE_NOTHING, NULL},
    {"format", 0, OPT_FORMAT, "text|json|sarif", "output format (default: text)", 0, "text json sarif",
     HS_COMPLETE_NOTHING, NULL},
    {"output", 'o', 'o', "FILE",
     "write the report to FILE instead of standard output (through a temporary file and a rename)",
     HS_OPT_PATH, NULL, HS_COMPLETE_FILES, NULL},
    {"jobs", 'j', 'j', "N", "parse N translation units at once (default: all cores)", 0, NULL,
     HS_COMPLETE_NOTHING, NULL},
    {"rules", 0, OPT_RULES, "DIR|FILE", "load extra rule data (*.json) from DIR, or FILE (repeatable)",
     HS_OPT_LIST | HS_OPT_PATH, NULL, HS_COMPLETE_DIRS, NULL},
    {"calibration", 0, OPT_RULES, "FILE", "measured costs (hotscan calibrate -o FILE): messages quote them",
     HS_OPT_LIST | HS_OPT_PATH, NULL, HS_COMPLETE_FILES, NULL},
    {"enable", 0, OPT_ENABLE, "RULE[,RULE]", "run only these rules (repeatable)", HS_OPT_LIST, NULL,
     HS_COMPLETE_RULES, NULL},
    {"disable", 0, OPT_DISABLE, "RULE[,RULE]", "do not run these rules (repeatable)", HS_OPT_LIST, NULL,
     HS_COMPLETE_RULES, NULL},
    {"root", 0, OPT_ROOT, "DIR",
     "report paths relative to DIR; only files under it are analyzed (default: the current directory)",
     HS_OPT_PATH, NULL, HS_COMPLETE_DIRS, NULL},
    {"exclude", 0, OPT_EXCLUDE, "PATTERN",
     "leave out files whose path under the root matches PATTERN (a glob, or a folder; repeatable)",
     HS_OPT_LIST, NULL, HS_COMPLETE_NOTHING, NULL},
    {"extra-arg", 0, OPT_EXTRA_ARG, "ARG",
     "add ARG to every TU's compiler command (repeatable); the flags after \"--\" are added the same way",
     HS_OPT_LIST, NULL, HS_COMPLETE_NOTHING, NULL},
    {"extra-arg-before", 0, OPT_EXTRA_ARG_BEFORE, "ARG", "put ARG first on every command (repeatable)",
     HS_OPT_LIST, NULL, HS_COMPLETE_NOTHING, NULL},
    {"tu-timeout", 0, OPT_TIMEOUT, "SEC",
     "give up on a translation unit after SEC seconds (default 300; 0: no limit)", 0, NULL,
     HS_COMPLETE_NOTHING, NULL},
    {"tu-memory", 0, OPT_MEMORY, "SIZE",
     "cap each worker's memory (e.g. 4G, 512M; 0: no cap; default: 3/4 of the machine's memory shared "
     "by the workers, >= 2G)",
     0, NULL, HS_COMPLETE_NOTHING, NULL},
    {"color", 0, OPT_COLOR, "auto|always|never", "colored text output (default: auto; NO_COLOR is honored)",
     0, "auto always never", HS_COMPLETE_NOTHING, NULL},
    {"quiet", 'q', 'q', NULL, "no notes or summary on standard error", 0, NULL, HS_COMPLETE_NOTHING, NULL},
    {"exit-zero", 0, OPT_EXIT_ZERO, NULL, "exit 0 even when there are findings (errors still exit 2)", 0,
     NULL, HS_COMPLETE_NOTHING, NULL},
    {"min-confidence", 0, OPT_MIN_CONFIDENCE, "low|medium|high",
     "leave out findings below this confidence (default: medium)", 0, "low medium high",
     HS_COMPLETE_NOTHING, NULL},
    {"facts-dir", 0, OPT_FACTS_DIR, "DIR", "also write each translation unit's facts (JSON) to DIR",
     HS_OPT_PATH, NULL, HS_COMPLETE_DIRS, NULL},
    {"cache", 0, OPT_CACHE, "DIR",
     "keep each TU's facts in DIR and reuse them while the TU and every file it includes are unchanged "
     "(default: .cache/hotscan beside the compile database, else $XDG_CACHE_HOME/hotscan); fix-it "
     "verification verdicts are kept there too; every file of the cache carries a digest, and a damaged "
     "one is dropped and recomputed, with a note",
     HS_OPT_PATH, NULL, HS_COMPLETE_DIRS, NULL},
    {"no-cache", 0, OPT_NO_CACHE, NULL, "parse every TU; read and write no cache", 0, NULL,
     HS_COMPLETE_NOTHING, NULL},
    {"no-build", 0, OPT_NO_BUILD, NULL,
     "no compile database: read every C/C++ file under PATHs (or the root) with tree-sitter alone; "
     "findings are marked as from syntax only, at most medium confidence (hot-path and counter "
     "findings: low, so --min-confidence low shows them), with no fix-its (the default when no "
     "compile_commands.json is found and no PATH is given)",
     0, NULL, HS_COMPLETE_NOTHING, NULL},
    {"prefilter", 0, OPT_PREFILTER, NULL,
     "read each TU's main file and the project headers it includes with tree-sitter first and leave "
     "out the TUs that cannot contribute to any finding (the summary counts them as prefiltered; not "
     "with --profile; their compile errors are not reported)",
     0, NULL, HS_COMPLETE_NOTHING, NULL},
    {"shard", 0, OPT_SHARD, "K/N",
     "scan only the K-th of N parts of the TUs (1 <= K <= N), for a CI matrix; with --facts-out, "
     "'hotscan judge' joins the parts",
     HS_OPT_CLI_ONLY, NULL, HS_COMPLETE_NOTHING, NULL},
    {"facts-out", 0, OPT_FACTS_OUT, "DIR", "write each TU's facts to DIR for 'hotscan judge' and stop there",
     HS_OPT_CLI_ONLY, NULL, HS_COMPLETE_DIRS, NULL},
    {"profile", 0, OPT_PROFILE, "FILE",
     "a CPU profile of the program (perf script with call chains, or folded stacks; see 'hotscan "
     "profile'): functions at or above --profile-threshold are hot roots, findings are ranked by their "
     "measured share, and findings the profile never sampled are low confidence",
     HS_OPT_PATH, NULL, HS_COMPLETE_FILES, NULL},
    {"profile-threshold", 0, OPT_PROFILE_THRESHOLD, "PCT", "inclusive share that makes a hot root (default 1)",
     0, NULL, HS_COMPLETE_NOTHING, NULL},
    {"keep-unsampled", 0, OPT_KEEP_UNSAMPLED, NULL,
     "with --profile, findings the profile never sampled (their function, its body in that file, or "
     "the call) keep their confidence",
     0, NULL, HS_COMPLETE_NOTHING, NULL},
    {"fix-level", 0, OPT_FIX_LEVEL, "safe|aggressive",
     "which fix-its to offer (default: safe); aggressive adds coarse clocks and the project's timer "
     "replacements",
     0, "safe aggressive", HS_COMPLETE_NOTHING, NULL},
    {"export-fixes", 0, OPT_EXPORT_FIXES, "FILE",
     "write the verified fix-its as clang-tidy export-fixes YAML (clang-apply-replacements)", HS_OPT_PATH,
     NULL, HS_COMPLETE_FILES, NULL},
    {"patch", 0, OPT_PATCH, "FILE", "write the verified fix-its as a unified diff (git apply, patch -p1)",
     HS_OPT_PATH, NULL, HS_COMPLETE_FILES, NULL},
    {"fix", 0, OPT_FIX, NULL, "apply them (atomically, file by file; see hotscan apply)", 0, NULL,
     HS_COMPLETE_NOTHING, NULL},
    {"report-unused-suppressions", 0, OPT_REPORT_UNUSED, NULL,
     "report NOLINT comments naming a hotscan rule that suppress nothing (they count as findings)", 0, NULL,
     HS_COMPLETE_NOTHING, NULL},
    {"baseline", 0, OPT_BASELINE, "REPORT",
     "leave out findings already in REPORT (an earlier JSON report or SARIF log), by fingerprint",
     HS_OPT_PATH, NULL, HS_COMPLETE_FILES, NULL},
    {"diff-base", 0, OPT_DIFF_BASE, "REV",
     "report only findings on lines changed since the git revision REV (and hot-path findings whose "
     "path runs through a changed function)",
     0, NULL, HS_COMPLETE_NOTHING, NULL},
    {"docs-url", 0, OPT_DOCS_URL, "URL",
     "where hotscan's docs are on the web, for SARIF's helpUri and the rule pages' links (default: none)", 0, NULL,
     HS_COMPLETE_NOTHING, NULL},
    {"config", 0, OPT_CONFIG, "FILE",
     "read options from FILE instead of the .hotscan.yml found in the root (or --root) or the nearest "
     "folder above it",
     HS_OPT_CLI_ONLY, NULL, HS_COMPLETE_FILES, NULL},
    {"no-config", 0, OPT_NO_CONFIG, NULL, "read no .hotscan.yml", HS_OPT_CLI_ONLY, NULL, HS_COMPLETE_NOTHING,
     NULL},
    {"help", 'h', 'h', NULL, "show this help", HS_OPT_CLI_ONLY, NULL, HS_COMPLETE_NOTHING, NULL},
    HS_OPTIONS_END,
};

#define SCAN_EPILOG                                                                                \
    "A .hotscan.yml maps these long option names to values (hot: [main_loop],\n"                  \
    "min-confidence: low); the command line's options replace its values.\n"                      \
    "'hotscan config --dump' prints the options in effect.\n\n"                                  \
    "Exit status: 0 no findings, 1 findings, 2 usage or input error (including a\n"               \
    "translation unit that failed to parse: the rest is still reported).\n"

const hs_cli_command hs_scan_command = {
    .name = "scan",
    .summary = "find needless clock reads, seq_cst counters and os_event uses",
    .usage = "hotscan scan [options] [PATH...] [-- COMPILER FLAGS]",
    .about = "Scans the translation units of a compile_commands.json, narrowed to PATHs (files or\n"
             "folders). A PATH the database does not list is parsed with default flags.",
    .options = scan_table,
    .epilog = SCAN_EPILOG,
    .getopt_prefix = ":",
    .column = 20,
};

/* judge parses with scan's table (hs_cli_scan) and says so in its help. */
const hs_cli_command hs_judge_command = {
    .name = "judge",
    .summary = "report on facts that scan --facts-out (shards) or extract wrote",
    .usage = "hotscan judge [options] FACTS...",
    .about = "Reports on facts files (or folders of them) that 'scan --facts-out' or 'hotscan\n"
             "extract' wrote, as one scan of those TUs would: the same findings, fix-its and\n"
             "outputs. Takes scan's options; -p, --shard, --facts-out, --cache and\n"
             "--prefilter do not apply.",
    .options = scan_table,
    .epilog = SCAN_EPILOG,
    .getopt_prefix = ":",
    .column = 20,
};

static bool known_rule(const char *id)
{
    if (hs_rule_find(id))
        return true;
    size_t nrules;
    const hs_rule *const *rules = hs_rules_all(&nrules);
    fprintf(stderr, "hotscan: unknown rule '%s'; the rules are:", id);
    for (size_t r = 0; r < nrules; r++)
        fprintf(stderr, " %s", rules[r]->id);
    fprintf(stderr, "\n");
    return false;
}

/* Applies one option (from the command line or the config file); 2 after saying what is
 * wrong with its value, -1 to go on. */
static int apply_option(scan_options *o, int c, const char *arg)
{
    switch (c) {
    case 'p':
        o->database = arg;
        break;
    case 'o':
        o->output = arg;
        break;
    case 'j': {
        char *end;
        long j = strtol(arg, &end, 10);
        if (*end || j < 1 || j > 1024) {
            fprintf(stderr, "hotscan: -j needs a number of jobs from 1 to 1024, not '%s'\n", arg);
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
        o->export_fixes = arg;
        break;
    case OPT_PATCH:
        o->patch = arg;
        break;
    case OPT_FIX:
        o->fix = true;
        break;
    case OPT_REPORT_UNUSED:
        o->report_unused_suppressions = true;
        break;
    case OPT_FIX_LEVEL:
        if (strcmp(arg, "safe") == 0)
            o->fix_level = HS_FIX_SAFE;
        else if (strcmp(arg, "aggressive") == 0)
            o->fix_level = HS_FIX_AGGRESSIVE;
        else {
            fprintf(stderr, "hotscan: unknown --fix-level '%s' (safe or aggressive)\n", arg);
            return 2;
        }
        break;
    case OPT_PROFILE:
        o->profile = arg;
        break;
    case OPT_PROFILE_THRESHOLD: {
        char *end;
        double t = strtod(arg, &end);
        if (end != arg && *end == '%')
            end++;
        if (end == arg || *end || !(t >= 0) || t > 100) {
            fprintf(stderr, "hotscan: --profile-threshold needs a percentage from 0 to 100 (1, 0.5), "
                            "not '%s'\n", arg);
            return 2;
        }
        o->profile_threshold = t;
        break;
    }
    case OPT_KEEP_UNSAMPLED:
        o->keep_unsampled = true;
        break;
    case OPT_CACHE:
        o->cache_dir = arg;
        break;
    case OPT_NO_BUILD:
        o->no_build = true;
        break;
    case OPT_NO_CACHE:
        o->no_cache = true;
        break;
    case OPT_PREFILTER:
        o->prefilter = true;
        break;
    case OPT_SHARD: {
        char *end = NULL;
        unsigned long k = strtoul(arg, &end, 10), n = 0;
        if (end && *end == '/')
            n = strtoul(end + 1, &end, 10);
        if (!end || *end || k < 1 || n < 1 || k > n || n > 100000) {
            fprintf(stderr, "hotscan: --shard needs K/N with 1 <= K <= N (e.g. 2/4), not '%s'\n", arg);
            return 2;
        }
        o->shard_k = (unsigned)k;
        o->shard_n = (unsigned)n;
        break;
    }
    case OPT_FACTS_OUT:
        o->extract_only = true; /* and the facts go where --facts-dir puts them: */
        /* fall through */
    case OPT_FACTS_DIR:
        o->facts_dir = arg;
        if (mkdir(arg, 0777) != 0 && errno != EEXIST) {
            fprintf(stderr, "hotscan: --facts-dir %s: %s\n", arg, strerror(errno));
            return 2;
        }
        break;
    case OPT_MIN_CONFIDENCE:
        o->min_confidence = hs_confidence_rank(arg);
        if (!o->min_confidence) {
            fprintf(stderr, "hotscan: unknown --min-confidence '%s' (low, medium or high)\n", arg);
            return 2;
        }
        break;
    case OPT_HOT:
        hs_vec_push(&o->hot, hs_xstrdup(arg));
        break;
    case OPT_FORMAT:
        if (strcmp(arg, "text") == 0)
            o->format = HS_FORMAT_TEXT;
        else if (strcmp(arg, "json") == 0)
            o->format = HS_FORMAT_JSON;
        else if (strcmp(arg, "sarif") == 0)
            o->format = HS_FORMAT_SARIF;
        else {
            fprintf(stderr, "hotscan: unknown --format '%s' (text, json or sarif)\n", arg);
            return 2;
        }
        break;
    case OPT_RULES:
        hs_vec_push(&o->rule_dirs, hs_xstrdup(arg));
        break;
    case OPT_ENABLE:
    case OPT_DISABLE: {
        hs_vec *list = c == OPT_ENABLE ? &o->enable : &o->disable;
        size_t before = list->len;
        push_list(list, arg);
        for (size_t i = before; i < list->len; i++)
            if (!known_rule(list->items[i]))
                return 2;
        break;
    }
    case OPT_EXCLUDE:
        hs_vec_push(&o->exclude, hs_xstrdup(arg));
        break;
    case OPT_BASELINE:
        o->baseline = arg;
        break;
    case OPT_DIFF_BASE:
        o->diff_base = arg;
        break;
    case OPT_DOCS_URL:
        if (!strstr(arg, "://") && strncmp(arg, "file:", 5) != 0) {
            fprintf(stderr, "hotscan: --docs-url needs an absolute URL (https://..., file:///...), not '%s'\n", arg);
            return 2;
        }
        o->docs_url = arg;
        break;
    case OPT_EXTRA_ARG:
        hs_vec_push(&o->extra_after, hs_xstrdup(arg));
        break;
    case OPT_EXTRA_ARG_BEFORE:
        hs_vec_push(&o->extra_before, hs_xstrdup(arg));
        break;
    case OPT_ROOT:
        o->root = arg;
        break;
    case OPT_TIMEOUT: {
        char *end;
        double t = strtod(arg, &end);
        if (end == arg || *end || !(t >= 0) || t > 1e9) {
            fprintf(stderr, "hotscan: --tu-timeout needs seconds (0.5, 300; 0: no limit), not '%s'\n", arg);
            return 2;
        }
        o->tu_timeout = t;
        break;
    }
    case OPT_MEMORY: {
        char *end;
        errno = 0;
        long long v = strtoll(arg, &end, 10);
        long long unit = 1LL << 20; /* a bare number is MiB */
        if (end != arg && (*end == 'K' || *end == 'k'))
            unit = 1LL << 10, end++;
        else if (end != arg && (*end == 'M' || *end == 'm'))
            unit = 1LL << 20, end++;
        else if (end != arg && (*end == 'G' || *end == 'g'))
            unit = 1LL << 30, end++;
        if (end == arg || *end || errno || v < 0 || v > (1LL << 50) / unit ||
            (v > 0 && v * unit < (64LL << 20))) {
            fprintf(stderr, "hotscan: --tu-memory needs a size of at least 64M (e.g. 4G, "
                            "512M; a bare number is MiB; 0: no cap), not '%s'\n", arg);
            return 2;
        }
        o->tu_memory = v * unit;
        break;
    }
    case OPT_COLOR:
        if (strcmp(arg, "auto") == 0)
            o->color = -1;
        else if (strcmp(arg, "always") == 0)
            o->color = 1;
        else if (strcmp(arg, "never") == 0)
            o->color = 0;
        else {
            fprintf(stderr, "hotscan: unknown --color '%s' (auto, always or never)\n", arg);
            return 2;
        }
        break;
    default:
        break;
    }
    return -1;
}

static void set_defaults(scan_options *o)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    o->jobs = ncpu > 0 ? (int)ncpu : 1;
    o->tu_timeout = 300;
    o->tu_memory = HS_TU_MEMORY_DEFAULT;
    o->color = -1;
    o->min_confidence = 2;
    o->profile_threshold = 1.0;
}

/* The value of --NAME (--NAME VALUE or --NAME=VALUE) in the first argc words, before getopt
 * runs: the config file is read before the command line's options are applied over it. */
static const char *prescan(int argc, char **argv, const char *name, bool *flag)
{
    size_t n = strlen(name);
    const char *found = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || a[1] != '-' || strncmp(a + 2, name, n) != 0)
            continue;
        if (a[2 + n] == '=')
            found = a + 3 + n;
        else if (a[2 + n] == '\0' && flag)
            *flag = true;
        else if (a[2 + n] == '\0' && i + 1 < argc)
            found = argv[++i];
    }
    return found;
}

/* Reads .hotscan.yml (--config FILE, or found by walking up from --root or the current
 * folder; none with --no-config) into `set`. 2 after saying why it could not. */
static int load_config(int argc, char **argv, hs_opt_set *set)
{
    bool no_config = false;
    prescan(argc, argv, "no-config", &no_config);
    const char *given = prescan(argc, argv, "config", NULL);
    const char *root = prescan(argc, argv, "root", NULL);
    if (no_config && !given)
        return -1;
    char *path = given ? hs_xstrdup(given) : hs_config_find(root ? root : ".");
    if (!path)
        return -1;
    char *err = NULL;
    int status = -1;
    if (!hs_config_load(set, scan_table, path, &err)) {
        fprintf(stderr, "hotscan: error: %s\n", err);
        free(err);
        status = 2;
    }
    free(path);
    return status;
}

/*
 * The options: .hotscan.yml's, then the command line's over them (a scalar replaces the
 * file's value, a list replaces the file's list), applied in that order; `ncli` is how many
 * words of argv are options and PATHs (the rest, after "--", are compiler flags).
 */
static int parse_options(int argc, char **argv, scan_options *o, hs_opt_set *set)
{
    set_defaults(o);
    o->argc_all = argc;
    /* "-- FLAGS": compiler flags for every TU, as clang-tidy takes them; getopt sees the rest. */
    int nflags_at = argc;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--") == 0) {
            nflags_at = i;
            break;
        }
    int ncli = nflags_at;
    argc = ncli;
    int status = load_config(argc, argv, set);
    if (status >= 0)
        return status;
    hs_getopt g;
    hs_getopt_init(&g, &hs_scan_command);
    optind = 1;
    opterr = 0;
    int c, index = -1;
    while ((c = getopt_long(argc, argv, g.shortopts, g.longopts, &index)) != -1) {
        if (c == 'h') {
            hs_cli_print_help(stdout, o->judge ? &hs_judge_command : &hs_scan_command);
            return hs_close_stdout("the help") ? 0 : 2;
        }
        if (c == ':') {
            fprintf(stderr, "hotscan: option '%s' needs a value\n", argv[optind - 1]);
            return 2;
        }
        if (c == '?') {
            fprintf(stderr, "hotscan: unknown option '%s' (see 'hotscan scan --help')\n", argv[optind - 1]);
            return 2;
        }
        const hs_cli_option *opt = hs_getopt_option(&g, c, index);
        index = -1;
        /* These three are read before getopt runs (which file to load), so an abbreviation
         * getopt would accept (--conf) must not slip past that. */
        if (c == OPT_CONFIG || c == OPT_NO_CONFIG || c == OPT_ROOT) {
            const char *word = optarg && optarg == argv[optind - 1] ? argv[optind - 2] : argv[optind - 1];
            size_t n = strlen(opt->name);
            if (strncmp(word, "--", 2) != 0 || strncmp(word + 2, opt->name, n) != 0 ||
                (word[2 + n] != '\0' && word[2 + n] != '=')) {
                fprintf(stderr, "hotscan: write '--%s' in full, not '%s'\n", opt->name, word);
                return 2;
            }
        }
        if (c != OPT_CONFIG && c != OPT_NO_CONFIG)
            hs_opt_set_record(set, opt, opt->arg ? optarg : NULL, NULL, true);
    }
    int paths_at = optind;
    for (int i = nflags_at + 1; i < o->argc_all; i++)
        hs_opt_set_record(set, hs_opt_find(scan_table, "extra-arg", 0), argv[i], NULL, true);
    for (size_t i = 0; i < set->entries.len; i++) {
        const hs_opt_entry *e = set->entries.items[i];
        if (apply_option(o, e->opt->val, e->value) >= 0) {
            if (e->origin)
                fprintf(stderr, "hotscan: (that is '%s' in %s)\n", e->opt->name, e->origin);
            return 2;
        }
    }
    optind = paths_at;
    o->npaths = ncli - paths_at;
    return -1; /* go on */
}

static hs_ruledata *load_rule_data(const scan_options *o)
{
    char *err = NULL;
    hs_ruledata *rd = hs_ruledata_load_all((char *const *)o->rule_dirs.items, o->rule_dirs.len, &err);
    if (!rd) {
        fprintf(stderr, "hotscan: error: %s\n", err);
        free(err);
    }
    return rd;
}

/* What the scan left out of the report, and why, for the summary. */
typedef struct {
    size_t hidden;     /* below --min-confidence */
    size_t suppressed; /* by NOLINT comments */
    size_t unused;     /* suppressions that suppressed nothing (--report-unused-suppressions) */
    size_t baselined;  /* in the --baseline report */
    size_t outside_diff; /* on no line --diff-base's change touched */
} hs_scan_counts;

/* With --report-unused-suppressions: the files whose suppressions are checked are the TUs
 * under the root and every file under it that defines a function the model knows. */
/* The files --report-unused-suppressions loads, in the order it loads them (each TU's main
 * file, then each defined function's file under the root); copies, to outlive the model. */
static void scanned_files(const hs_discovery *disc, const hs_program *p, const char *root, hs_vec *out)
{
    for (size_t i = 0; i < disc->tus.len; i++) {
        const char *file = ((hs_tu_input *)disc->tus.items[i])->file;
        if (hs_path_is_under(root, file))
            hs_vec_push(out, hs_xstrdup(file));
    }
    for (size_t i = 0; p && i < p->function_list.len; i++) {
        const hs_function *f = p->function_list.items[i];
        if (f->file && f->defined && hs_path_is_under(root, f->file))
            hs_vec_push(out, hs_xstrdup(f->file));
    }
}

/* The notes of the scan's outcome, in the order they are printed: --hot names that match
 * nothing (warnings), then what was left out of the report and why. */
static void summary_notes(const scan_options *o, json_t *report, const hs_scan_counts *counts, json_t *notes)
{
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(json_object_get(report, "summary"), "hot_roots_unmatched"), i, e) {
        char *text = hs_printf("--hot %s names no function of the program (a name matches a function by its whole "
                               "qualified name or its last components, as in Get or DBImpl::Get)",
                               json_string_value(e));
        scan_note(notes, false, "warning", text);
        free(text);
    }
    char *text = NULL;
    if (o->baseline) {
        text = hs_printf("%zu finding%s already in the baseline %s left out", counts->baselined,
                         counts->baselined == 1 ? "" : "s", o->baseline);
        scan_note(notes, false, "note", text);
        free(text);
    }
    if (o->diff_base) {
        text = hs_printf("%zu finding%s on lines not changed since %s left out (--diff-base)", counts->outside_diff,
                         counts->outside_diff == 1 ? "" : "s", o->diff_base);
        scan_note(notes, false, "note", text);
        free(text);
    }
    if (counts->suppressed) {
        text = hs_printf("%zu finding%s suppressed by NOLINT comments", counts->suppressed,
                         counts->suppressed == 1 ? "" : "s");
        scan_note(notes, false, "note", text);
        free(text);
    }
    if (counts->hidden) {
        text = hs_printf("%zu lower-confidence finding%s left out (--min-confidence low shows them)", counts->hidden,
                         counts->hidden == 1 ? "" : "s");
        scan_note(notes, false, "note", text);
        free(text);
    }
}

/* Prints what a person should know after the scan: errors, the summary notes (from index
 * `first` of `notes`: the warnings even under -q), the profile and the summary line. */
static void print_summary(const scan_options *o, json_t *report, const hs_merge *m, json_t *notes, size_t first,
                          size_t n, double seconds)
{
    json_t *errors = json_object_get(report, "errors");
    size_t nfind = json_array_size(json_object_get(report, "findings")), nerr = json_array_size(errors);
    size_t i;
    json_t *e;
    json_array_foreach(errors, i, e)
        fprintf(stderr, "hotscan: error: %s: %s\n", json_string_value(json_object_get(e, "file")),
                json_string_value(json_object_get(e, "message")));
    /* Printed under -q too: a misspelled root silently finds nothing on any hot path. */
    for (i = first; i < json_array_size(notes); i++) {
        json_t *note = json_array_get(notes, i);
        if (strcmp(json_string_value(json_object_get(note, "level")), "warning") == 0)
            fprintf(stderr, "hotscan: warning: %s\n", json_string_value(json_object_get(note, "message")));
    }
    if (o->quiet)
        return;
    if (json_array_size(json_object_get(report, "unused_suppressions")) && o->format != HS_FORMAT_TEXT) {
        json_array_foreach(json_object_get(report, "unused_suppressions"), i, e)
            fprintf(stderr, "%s:%lld:%lld: warning: %s %s [unused-suppression]\n",
                    json_string_value(json_object_get(e, "file")),
                    (long long)json_integer_value(json_object_get(e, "line")),
                    (long long)json_integer_value(json_object_get(e, "column")),
                    json_string_value(json_object_get(e, "text")),
                    json_string_value(json_object_get(e, "message")));
    }
    for (i = first; i < json_array_size(notes); i++) {
        json_t *note = json_array_get(notes, i);
        if (strcmp(json_string_value(json_object_get(note, "level")), "note") == 0)
            fprintf(stderr, "hotscan: note: %s\n", json_string_value(json_object_get(note, "message")));
    }
    json_t *prof = json_object_get(json_object_get(report, "summary"), "profile");
    if (prof)
        fprintf(stderr, "hotscan: profile %s (%s): %lld samples, %lld mapped to the program's functions, %lld "
                        "not; %lld hot root%s at >= %g%% inclusive\n",
                json_string_value(json_object_get(prof, "file")), json_string_value(json_object_get(prof, "format")),
                (long long)json_integer_value(json_object_get(prof, "samples")),
                (long long)json_integer_value(json_object_get(prof, "mapped")),
                (long long)json_integer_value(json_object_get(prof, "unmapped")),
                (long long)json_integer_value(json_object_get(prof, "roots")),
                json_integer_value(json_object_get(prof, "roots")) == 1 ? "" : "s",
                json_number_value(json_object_get(prof, "threshold")));
    char *cached = m->from_cache ? hs_printf(", %zu from the facts cache", m->from_cache) : hs_xstrdup("");
    char *pre = m->prefiltered ? hs_printf(", %zu left out by the prefilter", m->prefiltered) : hs_xstrdup("");
    fprintf(stderr, "hotscan: %zu finding%s in %zu translation unit%s (%zu with errors, %zu failed%s%s) in %.1f s\n",
            nfind, nfind == 1 ? "" : "s", n, n == 1 ? "" : "s", nerr - m->failed, m->failed, cached, pre, seconds);
    free(cached);
    free(pre);
}

/* In the report's notes, not on the terminal: nearly every Linux database compiles with gcc. */
static void note_gcc_lenient(const hs_merge *m, json_t *notes)
{
    if (!m->gcc_lenient)
        return;
    char *text = hs_printf("%zu translation unit%s compiled by gcc (the compile database says so) parsed with "
                           "gcc's leniency: what clang rejects and gcc only warns about (`register` in C++17, "
                           "implicit declarations and int conversions in C, narrowing in braces) is accepted",
                           m->gcc_lenient, m->gcc_lenient == 1 ? "" : "s");
    scan_note(notes, false, "note", text);
    free(text);
}

static void note_ignored_arguments(const scan_options *o, const hs_merge *m, json_t *notes)
{
    if (!hs_strmap_size(m->ignored_arguments))
        return;
    hs_buf text;
    hs_buf_init(&text);
    hs_buf_puts(&text, "clang does not know these compiler options and ignored them:");
    hs_vec args = {0};
    hs_strmap_sorted_keys(m->ignored_arguments, &args);
    for (size_t i = 0; i < args.len; i++)
        hs_buf_printf(&text, " %s", (const char *)args.items[i]);
    hs_vec_free(&args);
    scan_note(notes, !o->quiet, "note", text.data);
    hs_buf_free(&text);
}

typedef struct {
    json_t *report;
    hs_report_format format;
    bool color;
} report_job;

static bool emit_report_to(FILE *out, void *user)
{
    const report_job *job = user;
    return hs_emit_report(out, job->report, job->format, job->color);
}

/* Writes the report to -o FILE (through a temporary file and a rename) or to standard output
 * ("-" or no -o), printed as it is made: held whole in memory, a big tree's report text sat
 * on top of its findings at the supervisor's peak (docs/performance.md, branch s21-c). False
 * after saying why when it could not be written. */
static bool write_report(const scan_options *o, json_t *report)
{
    bool to_stdout = !o->output || strcmp(o->output, "-") == 0;
    bool color = o->color == 1 || (o->color == -1 && to_stdout && isatty(STDOUT_FILENO) && !getenv("NO_COLOR"));
    report_job job = {.report = report, .format = o->format, .color = color};
    char *err = NULL;
    bool ok = hs_write_output_with(o->output, emit_report_to, &job, &err);
    if (!ok)
        fprintf(stderr, "hotscan: error: could not write the report: %s\n", err ? err : strerror(errno));
    free(err);
    return ok;
}

/* --exclude: a glob matched against the path under the root (`*` crosses '/'), or a folder. */
static bool excluded(const scan_options *o, const char *root, const char *path)
{
    if (!o->exclude.len)
        return false;
    char *rel = path[0] == '/' ? hs_path_relative(root, path) : hs_xstrdup(path);
    bool hit = false;
    for (size_t i = 0; !hit && i < o->exclude.len; i++) {
        char *pat = hs_xstrdup(o->exclude.items[i]);
        size_t n = strlen(pat);
        while (n > 1 && pat[n - 1] == '/')
            pat[--n] = '\0';
        char *under = hs_printf("%s/*", pat);
        hit = fnmatch(pat, rel, 0) == 0 || fnmatch(under, rel, 0) == 0;
        free(under);
        free(pat);
    }
    free(rel);
    return hit;
}

static void drop_excluded_tus(const scan_options *o, const char *root, hs_discovery *disc)
{
    size_t kept = 0;
    for (size_t i = 0; i < disc->tus.len; i++) {
        hs_tu_input *in = disc->tus.items[i];
        if (excluded(o, root, in->file)) {
            hs_tu_input_free(in);
            disc->left_out++; /* the program the scan sees lacks it */
        }
        else
            disc->tus.items[kept++] = in;
    }
    disc->tus.len = kept;
}

static void drop_excluded_findings(const scan_options *o, const char *root, json_t *findings)
{
    for (size_t i = json_array_size(findings); o->exclude.len && i-- > 0;)
        if (excluded(o, root, json_string_value(json_object_get(json_array_get(findings, i), "file"))))
            json_array_remove(findings, i);
}

/* Marks the findings --baseline holds before fix-its are verified (a baselined finding's fix
 * would cost a reparse for nothing): the fingerprints come from a finalized copy, which
 * gives each finding the fingerprint the real finalize will (the same findings, the same
 * order). */
static void mark_baselined(json_t *findings, const char *root, const hs_strmap *baseline)
{
    size_t i;
    json_t *f;
    json_array_foreach(findings, i, f) json_object_set_new(f, "_index", json_integer((json_int_t)i));
    json_t *copy = json_deep_copy(findings);
    hs_findings_finalize(copy, root);
    hs_baseline_mark(copy, baseline);
    json_array_foreach(copy, i, f) {
        if (json_is_true(json_object_get(f, "baselined")))
            json_object_set_new(json_array_get(findings, (size_t)json_integer_value(json_object_get(f, "_index"))),
                                "baselined", json_true());
    }
    json_decref(copy);
    json_array_foreach(findings, i, f) json_object_del(f, "_index");
}

/* Every TU's command made fit for libclang, with the user's extra flags; a note says which
 * precompiled-header options were dropped. */
static void adjust_commands(const scan_options *o, hs_discovery *disc, json_t *notes)
{
    hs_strmap *dropped = hs_strmap_create();
    for (size_t i = 0; i < disc->tus.len; i++)
        hs_tu_input_adjust(disc->tus.items[i], (char *const *)o->extra_before.items, o->extra_before.len,
                           (char *const *)o->extra_after.items, o->extra_after.len, dropped);
    if (hs_strmap_size(dropped)) {
        hs_buf text;
        hs_buf_init(&text);
        hs_buf_puts(&text, "precompiled headers are not used (libclang cannot read another compiler's); dropped:");
        hs_vec names = {0};
        hs_strmap_sorted_keys(dropped, &names);
        for (size_t i = 0; i < names.len; i++)
            hs_buf_printf(&text, "%s %s", i ? "," : "", (const char *)names.items[i]);
        hs_vec_free(&names);
        scan_note(notes, !o->quiet, "note", text.data);
        hs_buf_free(&text);
    }
    hs_strmap_delete(dropped);
}

/*
 * The facts cache the scan uses, or NULL (--no-cache, HOTSCAN_NO_CACHE, or a folder that
 * cannot be made, which is said and costs only the reuse): --cache DIR, else .cache/hotscan
 * beside the compile database (as clangd keeps .cache/clangd), else $XDG_CACHE_HOME/hotscan
 * ($HOME/.cache/hotscan) for files parsed with default flags.
 */
static hs_facts_cache *open_cache(const scan_options *o, const hs_discovery *disc, const hs_ruledata *rd,
                                  json_t *notes)
{
    if (o->no_cache || hs_env_flag("HOTSCAN_NO_CACHE"))
        return NULL;
    char *dir = NULL;
    if (o->cache_dir)
        dir = hs_xstrdup(o->cache_dir);
    else if (disc->database) {
        char *db = hs_xstrdup(disc->database);
        char *slash = strrchr(db, '/');
        dir = slash ? hs_printf("%.*s/.cache/hotscan", (int)(slash - db), db) : hs_xstrdup(".cache/hotscan");
        free(db);
    } else {
        const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
        if (xdg && xdg[0] == '/')
            dir = hs_printf("%s/hotscan", xdg);
        else if (home && home[0])
            dir = hs_printf("%s/.cache/hotscan", home);
    }
    if (!dir)
        return NULL;
    char *err = NULL;
    hs_facts_cache *c = hs_facts_cache_open(dir, rd, &err);
    if (!c) {
        char *text = hs_printf("%s; parsing every TU", err);
        scan_note(notes, true, "warning", text);
        free(text);
        free(err);
    } else if (!o->quiet) {
        hs_facts_cache_set_log(c, stderr);
    }
    free(dir);
    return c;
}

/* `hotscan judge`: each facts file read and merged in discovery order, as workers' results
 * would be; a file that no longer reads is that TU's error. */
static void replay_facts(const hs_discovery *disc, hs_merge *merge)
{
    for (size_t i = 0; i < disc->facts_files.len; i++) {
        json_error_t jerr;
        hs_tu_result r = {0};
        r.facts = hs_facts_load_file(disc->facts_files.items[i], &jerr);
        if (!r.facts)
            r.error = hs_printf("%s:%d: %s", (char *)disc->facts_files.items[i], jerr.line, jerr.text);
        hs_merge_tu_result(i, &r, merge);
    }
}

/* --facts-out: what was written, the TUs that failed; 2 when any did. */
static int finish_facts_out(const scan_options *o, const hs_merge *m, size_t n, int status)
{
    size_t i;
    json_t *e;
    json_array_foreach(m->errors, i, e)
        fprintf(stderr, "hotscan: error: %s: %s\n", json_string_value(json_object_get(e, "file")),
                json_string_value(json_object_get(e, "message")));
    if (!o->quiet) {
        char *shard = o->shard_n ? hs_printf(" (shard %u/%u)", o->shard_k, o->shard_n) : hs_xstrdup("");
        fprintf(stderr, "hotscan: wrote the facts of %zu of %zu translation unit%s%s to %s; 'hotscan judge %s' "
                        "reports on them\n",
                n - m->failed, n, n == 1 ? "" : "s", shard, o->facts_dir, o->facts_dir);
        free(shard);
    }
    return status ? status : m->failed ? 2 : 0;
}

/* discover -> extract and merge (streamed) -> judge -> fix -> finalize -> emit. */
/*
 * --prefilter: which TUs may be left unparsed (prefilter.h), or *out NULL when the prefilter
 * is off. False (after saying why) only when tree-sitter cannot start.
 */
static bool decide_prefilter(const scan_options *o, const hs_ruledata *rd, const char *root,
                             const hs_discovery *disc, bool **out, json_t *notes)
{
    *out = NULL;
    bool on = o->prefilter || hs_env_flag("HOTSCAN_PREFILTER");
    if (!on || disc->tus.len == 0)
        return true;
    if (o->profile) {
        /* A profile maps its frames to the program's functions and adds sampled edges the
         * text does not show: every TU is parsed. */
        scan_note(notes, !o->quiet, "note", "--prefilter is not used with --profile");
        return true;
    }
    hs_prefilter_options po = {.root = root, .rd = rd, .hot = (char *const *)o->hot.items, .n_hot = o->hot.len};
    hs_prefilter_stats st = {0};
    char *err = NULL;
    *out = hs_prefilter_decide((hs_tu_input *const *)disc->tus.items, disc->tus.len, &po, &st, &err);
    if (!*out) {
        fprintf(stderr, "hotscan: error: %s\n", err);
        free(err);
        return false;
    }
    /* The report keeps it without the CPU time, which differs from run to run. */
    char *text = hs_printf("the prefilter leaves out %zu of %zu translation units (%zu files read, %zu it cannot "
                           "reason about", st.skipped, st.tus, st.files, st.files_unsure);
    if (!o->quiet)
        fprintf(stderr, "hotscan: note: %s; %.2f CPU-s)\n", text, st.seconds);
    char *kept = hs_printf("%s)", text);
    scan_note(notes, false, "note", kept);
    free(kept);
    free(text);
    return true;
}

/* hs_discovery_shard, carrying each TU's prefilter flag along with it (the scan's
 * discovery has no global_index before the shard: a TU's place is its index). */
static void shard_with_flags(hs_discovery *disc, unsigned k, unsigned n, bool **flags)
{
    hs_discovery_shard(disc, k, n);
    if (!*flags)
        return;
    bool *mine = hs_xcalloc(disc->tus.len ? disc->tus.len : 1, sizeof *mine);
    for (size_t i = 0; i < disc->tus.len; i++)
        mine[i] = (*flags)[disc->global_index[i]];
    free(*flags);
    *flags = mine;
}

/* The pool's results for the TUs it parses, handed on by their index among all the scan's
 * TUs, with the stubs of the left-out TUs before them merged in their places. */
typedef struct {
    const hs_discovery *disc;
    const bool *prefiltered;
    const size_t *index;      /* parsed TU -> its index among all */
    size_t next;              /* the first TU not yet handed on */
    const hs_pool_options *pool;
} stub_merge;

static void stubs_until(stub_merge *m, size_t end)
{
    for (; m->next < end; m->next++) {
        if (!m->prefiltered[m->next])
            continue;
        const hs_tu_input *in = m->disc->tus.items[m->next];
        hs_tu_result r = {0};
        r.facts = json_pack("{s:s, s:i, s:b, s:b}", "tu", in->file, "facts_version", (json_int_t)HS_FACTS_VERSION,
                            "default_flags", in->default_flags, "prefiltered", 1);
        m->pool->on_result(m->next, &r, m->pool->user);
    }
}

static void stub_merge_result(size_t i, hs_tu_result *r, void *user)
{
    stub_merge *m = user;
    stubs_until(m, m->index[i]);
    m->pool->on_result(m->index[i], r, m->pool->user);
    m->next = m->index[i] + 1;
}

/*
 * Extracts the TUs the prefilter keeps (all of them without it). A TU it leaves out gets a
 * stub document merged in its place, so it still counts as one of the program's TUs, is
 * written to --facts-out for `judge` like any other, and needs no cache entry.
 */
static bool extract_tus(const hs_discovery *disc, const bool *prefiltered, const hs_pool_options *pool,
                        hs_tu_result *results, char **err)
{
    size_t n = disc->tus.len;
    if (!prefiltered || !pool->on_result)
        return hs_extract_all((hs_tu_input **)disc->tus.items, n, pool, results, err);
    size_t *index = hs_xmalloc((n ? n : 1) * sizeof *index);
    hs_tu_input **kept = hs_xmalloc((n ? n : 1) * sizeof *kept);
    size_t nk = 0;
    for (size_t i = 0; i < n; i++)
        if (!prefiltered[i]) {
            index[nk] = i;
            kept[nk++] = disc->tus.items[i];
        }
    stub_merge m = {.disc = disc, .prefiltered = prefiltered, .index = index, .pool = pool};
    hs_pool_options sub = *pool;
    sub.on_result = stub_merge_result;
    sub.user = &m;
    bool ok = nk == 0 || hs_extract_all(kept, nk, &sub, results, err);
    stubs_until(&m, n);
    free(index);
    free(kept);
    return ok;
}

/* Keeps a finding as a tree when its fixes are to be verified (keep[i]). */
static bool keep_for_verify(json_t *f, size_t i, void *user)
{
    (void)f;
    return ((const bool *)user)[i];
}

/*
 * Verifies the fix-its of the shown findings (hs_fix_verify), then empties `shown`. Every
 * finding without fixes to verify is parked as packed text meanwhile and the freed heap
 * handed back, since each reparsing worker is forked from this process and its RSS counts
 * every page it inherits: on a synthetic tree of 4000 TUs the findings' trees made such a
 * worker the largest process (docs/performance.md, branch s21-c).
 */
static void verify_fixes(json_t *findings, json_t *shown, const hs_discovery *disc, const int *baseline,
                         const hs_pool_options *pool, json_t *files_map, const char *root, json_t *notes)
{
    size_t n = json_array_size(findings), next = 0;
    bool *keep = hs_xcalloc(n ? n : 1, sizeof *keep);
    json_t *verify = json_array();
    /* `shown` is a subsequence of `findings`, in order. */
    for (size_t i = 0; i < n && next < json_array_size(shown); i++) {
        json_t *f = json_array_get(findings, i);
        if (json_array_get(shown, next) != f)
            continue;
        next++;
        if (json_array_size(json_object_get(f, "fixes")) == 0) {
            json_object_del(f, "tu_index"); /* what hs_fix_verify does to a finding without fixes */
            continue;
        }
        keep[i] = true;
        json_array_append(verify, f);
    }
    json_array_clear(shown); /* its references would keep the parked findings' trees */
    hs_finding_pack *parked = hs_finding_pack_park(findings, keep_for_verify, keep);
    free(keep);
#ifdef __GLIBC__
    malloc_trim(0);
#endif
    hs_memory_trace("findings parked");
    /* What verification says (a warning when it cannot verify) goes to standard error and
     * the report's notes alike. */
    char *said = NULL;
    size_t said_len = 0;
    FILE *log = open_memstream(&said, &said_len);
    hs_fix_verify(verify, (hs_tu_input **)disc->tus.items, baseline, pool, files_map, root, log ? log : stderr);
    if (log && fclose(log) == 0 && said) {
        fputs(said, stderr);
        for (char *line = strtok(said, "\n"); line; line = strtok(NULL, "\n"))
            if (strncmp(line, "hotscan: warning: ", 18) == 0)
                scan_note(notes, false, "warning", line + 18);
    }
    free(said);
    json_decref(verify);
    hs_memory_trace("fixes verified, before unparking");
    hs_finding_pack_unpark(parked, findings);
}

/* A word as a POSIX shell reads it back: as it is when it is plain, else in single quotes. */
static void shell_word(hs_buf *b, const char *w)
{
    bool plain = *w != '\0';
    for (const char *p = w; *p && plain; p++)
        plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                strchr("@%+=:,./_-", *p);
    if (plain) {
        hs_buf_puts(b, w);
        return;
    }
    hs_buf_puts(b, "'");
    for (const char *p = w; *p; p++) {
        if (*p == '\'')
            hs_buf_puts(b, "'\\''");
        else
            hs_buf_append(b, p, 1);
    }
    hs_buf_puts(b, "'");
}

/*
 * The report's invocation: how hotscan was run (the words after the program, and the whole
 * command line), where, how it ends (`status`, the exit status), and the notes it printed
 * (steals `notes`). SARIF's invocations[0] is made from it.
 */
static json_t *invocation(const scan_options *o, int status, json_t *notes)
{
    json_t *args = json_deep_copy(o->arguments);
    hs_buf line;
    hs_buf_init(&line);
    shell_word(&line, o->program ? o->program : "hotscan");
    size_t i;
    json_t *a;
    json_array_foreach(args, i, a) {
        hs_buf_puts(&line, " ");
        shell_word(&line, json_string_value(a));
    }
    char *cwd = getcwd(NULL, 0);
    json_t *inv = json_object();
    json_object_set_new(inv, "command_line", any_string(line.data));
    json_object_set_new(inv, "arguments", args);
    json_object_set_new(inv, "working_directory", any_string(cwd ? cwd : "."));
    json_object_set_new(inv, "exit_code", json_integer(status));
    json_object_set_new(inv, "execution_successful", json_boolean(status != 2));
    json_object_set_new(inv, "notes", notes);
    free(cwd);
    hs_buf_free(&line);
    return inv;
}

static int run_scan(scan_options *o, char **paths, int npaths)
{
    double t0 = hs_now_seconds();
    hs_cleanup_install();
    char *root = hs_realpath(o->root ? o->root : ".");
    if (!root) {
        fprintf(stderr, "hotscan: error: --root %s: %s\n", o->root ? o->root : ".", strerror(errno));
        return 2;
    }
    hs_strmap *baseline = NULL;
    if (o->baseline) {
        char *berr = NULL;
        baseline = hs_strmap_create();
        if (!hs_baseline_load(o->baseline, baseline, &berr)) {
            fprintf(stderr, "hotscan: error: %s\n", berr);
            free(berr);
            hs_strmap_delete(baseline);
            free(root);
            return 2;
        }
    }
    hs_changed_lines *changed = NULL;
    if (o->diff_base) {
        char *derr = NULL;
        changed = hs_changed_lines_from_git(root, o->diff_base, &derr);
        if (!changed) {
            fprintf(stderr, "hotscan: error: %s\n", derr);
            free(derr);
            hs_strmap_delete(baseline);
            free(root);
            return 2;
        }
    }
    hs_ruledata *rd = load_rule_data(o);
    if (!rd) {
        hs_changed_lines_delete(changed);
        hs_strmap_delete(baseline);
        free(root);
        return 2;
    }
    /* The profile is read before the (much longer) extraction, so a bad one fails at once. */
    hs_profile *profile = NULL;
    if (o->profile) {
        char *perr = NULL;
        profile = hs_profile_load(o->profile, &perr);
        if (!profile) {
            fprintf(stderr, "hotscan: error: %s\n", perr);
            free(perr);
            hs_ruledata_delete(rd);
            hs_changed_lines_delete(changed);
            hs_strmap_delete(baseline);
            free(root);
            return 2;
        }
    }
    /* No compile database where discovery looks (-p not given, ./build or .) and no PATH:
     * until issue 15 an error; now the no-build mode over the root, as cppcheck and Semgrep
     * read a tree without a build. PATHs without a database keep libclang with default flags. */
    bool auto_no_build = false;
    if (!o->judge && !o->no_build && !o->database && npaths == 0 &&
        access("build/compile_commands.json", R_OK) != 0 && access("compile_commands.json", R_OK) != 0) {
        o->no_build = true;
        auto_no_build = true;
    }
    json_t *notes = json_array(); /* the report's invocation.notes */
    hs_discovery disc;
    char *err = NULL;
    bool found = o->judge      ? hs_discover_from_facts(paths, npaths, &disc, &err)
                 : o->no_build ? hs_nobuild_discover(paths, npaths, root, &disc, &err)
                               : hs_discover(o->database, paths, npaths, &disc, &err);
    if (found && o->no_build)
        hs_vec_push(&disc.notes,
                    hs_printf("%sreading %zu C/C++ file%s with tree-sitter only (no build): findings are from "
                              "syntax only, at most medium confidence (hot paths and counters: low), without fix-its; a compile database "
                              "(cmake -DCMAKE_EXPORT_COMPILE_COMMANDS=ON, bear -- make) gives the full analysis",
                              auto_no_build ? "no compile_commands.json in ./build or .; " : "", disc.tus.len,
                              disc.tus.len == 1 ? "" : "s"));
    if (!found) {
        fprintf(stderr, "hotscan: error: %s\n", err);
        free(err);
        hs_discovery_free(&disc);
        hs_ruledata_delete(rd);
        hs_profile_delete(profile);
        hs_changed_lines_delete(changed);
        hs_strmap_delete(baseline);
        json_decref(notes);
        free(root);
        return 2;
    }
    for (size_t i = 0; i < disc.notes.len; i++)
        scan_note(notes, !o->quiet, "note", disc.notes.items[i]);
    /* A judge's TUs were excluded and adjusted by the scan that wrote their facts. */
    if (!o->judge) {
        drop_excluded_tus(o, root, &disc);
        if (!o->no_build)
            adjust_commands(o, &disc, notes);
    }
    /* The prefilter decides over every TU of the scan (the call graph is whole-program),
     * before a shard takes its part, so a shard leaves out exactly what a whole scan does. */
    bool *prefiltered = NULL;
    const char *pf_debug = getenv("HOTSCAN_PREFILTER_DEBUG");
    if (o->no_build && o->prefilter)
        scan_note(notes, !o->quiet, "note",
                  "--prefilter is not used with --no-build (every file is read with tree-sitter already)");
    if ((!o->judge && !o->no_build && !decide_prefilter(o, rd, root, &disc, &prefiltered, notes)) ||
        (pf_debug && strcmp(pf_debug, "only") == 0)) {
        /* HOTSCAN_PREFILTER_DEBUG=only: the decision (on stderr) and nothing else. */
        hs_discovery_free(&disc);
        hs_ruledata_delete(rd);
        hs_profile_delete(profile);
        hs_changed_lines_delete(changed);
        hs_strmap_delete(baseline);
        free(prefiltered);
        json_decref(notes);
        free(root);
        return pf_debug && strcmp(pf_debug, "only") == 0 ? 0 : 2;
    }
    if (o->shard_n) {
        disc.selected_tus = disc.tus.len;
        shard_with_flags(&disc, o->shard_k, o->shard_n, &prefiltered);
    }
    size_t n = disc.tus.len;
    if (n > 0 && hs_discovery_count_under(&disc, root) == 0) {
        char *text = hs_printf("none of the %zu translation units lies under the root %s, and only code under the "
                               "root is analyzed (see --root)", n, root);
        scan_note(notes, !o->quiet, "note", text);
        free(text);
    }

    /* Extract and merge: each TU's facts join the model as soon as they (and every TU
     * before them) are done, then are freed. */
    hs_merge merge;
    hs_merge_init(&merge, &disc, root, o->facts_dir, stderr);
    hs_tu_result *results = hs_xcalloc(n ? n : 1, sizeof *results);
    if (o->tu_memory > 0 && !hs_tu_memory_enforced())
        scan_note(notes, !o->quiet, "note", "--tu-memory is not enforced in this sanitizer build");
    hs_facts_cache *cache = o->judge || o->no_build ? NULL : open_cache(o, &disc, rd, notes);
    hs_pool_options pool = {.jobs = o->jobs, .tu_timeout = o->tu_timeout, .tu_memory = o->tu_memory,
                            .rd = rd, .root = root, .cache = cache,
                            /* Whole facts for --facts-dir and for the cache: a TU's cached
                             * document must not lack header bodies an earlier TU of the same
                             * worker was walked for, or a later scan without that TU misses them.
                             * Not for --facts-out: a shard's documents are judged together, and
                             * each body left out is in an earlier TU of the same shard (the
                             * workers then cache only the TUs that left nothing out). */
                            .full_facts = !o->extract_only && (o->facts_dir != NULL || cache != NULL),
                            .progress = !o->quiet && isatty(STDERR_FILENO),
                            .on_result = hs_merge_tu_result, .user = &merge,
                            .on_result_drops_facts = true};
    int status = 0;
    if (o->judge)
        replay_facts(&disc, &merge);
    else if (o->no_build)
        hs_nobuild_extract_all((hs_tu_input **)disc.tus.items, n, &pool);
    else if (!extract_tus(&disc, prefiltered, &pool, results, &err)) {
        fprintf(stderr, "hotscan: error: %s\n", err);
        free(err);
        status = 2;
    }
    free(results);
    hs_memory_trace("every TU merged");
    bool prefilter_used = prefiltered != NULL;
    free(prefiltered);
    note_ignored_arguments(o, &merge, notes);
    note_gcc_lenient(&merge, notes);
    if (o->extract_only) {
        hs_facts_cache_close(cache);
        status = finish_facts_out(o, &merge, n, status);
        hs_merge_free(&merge);
        hs_discovery_free(&disc);
        hs_ruledata_delete(rd);
        hs_profile_delete(profile);
        hs_changed_lines_delete(changed);
        hs_strmap_delete(baseline);
        json_decref(notes);
        free(root);
        return status;
    }

    hs_judge_options jo = {.hot = (char **)o->hot.items, .n_hot = o->hot.len,
                           .enable = (char **)o->enable.items, .n_enable = o->enable.len,
                           .disable = (char **)o->disable.items, .n_disable = o->disable.len,
                           .fix_level = o->fix_level, .tus_left_out = disc.left_out,
                           .tus_in_database = disc.database_tus, .release_stores = true};
    json_t *extra;
    hs_profile_map *pmap = profile ? hs_profile_map_program(profile, merge.program, o->profile_threshold) : NULL;
    /* The findings come back packed as JSON text (judge.h): as jansson trees they would sit
     * beside the model. Only --profile and --diff-base need both at once. */
    hs_finding_pack *pack = hs_judge_run_packed(merge.program, rd, &jo);
    hs_memory_trace("judged");
    bool need_model = pmap != NULL || changed != NULL;
    /* --report-unused-suppressions loads every scanned file; the model names the functions'
     * files, and they are loaded after the findings' files, as they always were. */
    hs_vec scanned = {0};
    if (o->report_unused_suppressions)
        scanned_files(&disc, merge.program, root, &scanned);
    if (!need_model)
        hs_merge_release_program(&merge);
    hs_memory_trace("model deleted");
    json_t *findings = hs_finding_pack_take(pack, &extra);
    hs_memory_trace("findings unpacked");
    if (o->no_build) {
        hs_nobuild_mark_findings(findings);
        if (json_is_object(json_object_get(extra, "summary")))
            json_object_set_new(json_object_get(extra, "summary"), "from_syntax", json_true());
    }
    if (pmap) {
        hs_profile_annotate(pmap, findings, o->keep_unsampled);
        json_object_set_new(json_object_get(extra, "summary"), "profile", hs_profile_summary(pmap));
    }
    drop_excluded_findings(o, root, findings);
    /* Suppressed findings are marked now (their fixes are not verified) and dropped after the
     * fingerprints are made, so a NOLINT on one finding does not renumber their twins. */
    hs_suppressions *sup = hs_suppressions_create(root);
    hs_suppressions_mark(sup, findings);
    if (changed)
        hs_changed_lines_mark(changed, findings, merge.program);
    hs_changed_lines_delete(changed);
    for (size_t i = 0; i < scanned.len; i++) {
        hs_suppressions_load(sup, scanned.items[i]);
        free(scanned.items[i]);
    }
    hs_vec_free(&scanned);
    if (need_model)
        hs_merge_release_program(&merge);

    /* Only fix-its the report will show are verified: each costs a reparse of its TU. */
    json_t *files_map = json_object();
    if (baseline) {
        mark_baselined(findings, root, baseline);
        hs_strmap_delete(baseline);
    }
    json_t *shown = hs_findings_at_least(findings, o->min_confidence);
    hs_findings_drop_marked(shown, "suppressed");
    hs_findings_drop_marked(shown, "baselined");
    hs_findings_drop_marked(shown, "outside_diff");
    /* The cache stays open for verification: it keeps each reparse's verdict. */
    if (!o->no_build) {
        verify_fixes(findings, shown, &disc, merge.baseline_errors, &pool, files_map, root, notes);
    } else { /* from syntax: no fixes to verify, and a TU's index is no part of the report */
        size_t i;
        json_t *f;
        json_array_foreach(findings, i, f) json_object_del(f, "tu_index");
    }
    pool.cache = NULL;
    hs_facts_cache_close(cache);
    json_decref(shown);
    hs_memory_trace("fixes verified");
    /* Fingerprints first, so they do not depend on what --min-confidence leaves out. */
    hs_findings_finalize(findings, root);
    hs_scan_counts counts = {0};
    counts.suppressed = hs_findings_drop_marked(findings, "suppressed");
    counts.baselined = hs_findings_drop_marked(findings, "baselined");
    counts.outside_diff = hs_findings_drop_marked(findings, "outside_diff");
    counts.hidden = hs_findings_drop_below(findings, o->min_confidence);
    if (pmap)
        hs_findings_rank_by_profile(findings);
    json_t *unused = o->report_unused_suppressions ? hs_suppressions_unused(sup) : NULL;
    hs_suppressions_delete(sup);
    counts.unused = json_array_size(unused);

    double seconds = hs_now_seconds() - t0;
    if (json_is_object(extra)) {
        if (!json_is_object(json_object_get(extra, "summary")))
            json_object_set_new(extra, "summary", json_object());
        json_object_set_new(json_object_get(extra, "summary"), "tus_from_cache",
                            json_integer((json_int_t)merge.from_cache));
        /* Present when the prefilter ran (or, for judge, left out some of the TUs). */
        if (prefilter_used || merge.prefiltered)
            json_object_set_new(json_object_get(extra, "summary"), "prefiltered",
                                json_integer((json_int_t)merge.prefiltered));
    }
    json_t *report = hs_report_new(root, n, findings, merge.errors, files_map, extra, seconds);
    merge.errors = NULL;
    json_t *summary = json_object_get(report, "summary");
    /* Only a URL the user gave: a file: path on this machine is no link for a SARIF viewer
     * elsewhere, and the SARIF carries the rules' doc pages itself (help.markdown). */
    if (o->docs_url)
        json_object_set_new(json_object_get(report, "tool"), "docs_url", json_string(o->docs_url));
    json_object_set_new(summary, "suppressed", json_integer((json_int_t)counts.suppressed));
    if (o->baseline)
        json_object_set_new(summary, "baselined", json_integer((json_int_t)counts.baselined));
    if (o->diff_base)
        json_object_set_new(summary, "outside_diff", json_integer((json_int_t)counts.outside_diff));
    if (unused) {
        json_object_set_new(summary, "unused_suppressions", json_integer((json_int_t)counts.unused));
        json_object_set_new(report, "unused_suppressions", unused);
    }
    hs_memory_trace("report assembled");
    /* The fix outputs before the report, so that the report can say how the run ends. */
    if (!hs_emit_fix_outputs(report, o->patch, o->export_fixes, o->fix, stderr))
        status = 2;
    size_t nfind = json_array_size(findings) + counts.unused;
    size_t nerr = json_array_size(json_object_get(report, "errors"));
    if (status == 0)
        status = nerr ? 2 : (nfind && !o->exit_zero) ? 1 : 0;
    size_t first_summary_note = json_array_size(notes);
    summary_notes(o, report, &counts, notes);
    json_object_set_new(report, "invocation", invocation(o, status, notes));
    if (!write_report(o, report))
        status = 2;
    hs_memory_trace("report written");
    print_summary(o, report, &merge, notes, first_summary_note, n, seconds);
    hs_memory_trace("summary printed");
    hs_profile_map_delete(pmap);
    hs_profile_delete(profile);
    json_decref(report);
    hs_merge_free(&merge);
    hs_discovery_free(&disc);
    hs_ruledata_delete(rd);
    free(root);
    return status;
}

int cmd_scan(int argc, char **argv)
{
    return hs_cli_scan(argc, argv, false, false);
}

int cmd_scan_paths(int argc, char **argv)
{
    return hs_cli_scan(argc, argv, false, true);
}

int hs_cli_scan(int argc, char **argv, bool judge, bool bare)
{
    scan_options o = {0};
    o.judge = judge;
    /* Kept before getopt reorders argv. In `hotscan scan ...` argv[0] is "scan" (or "judge"),
     * and the program is what the process was started as. */
    o.program = bare ? argv[0] : program_invocation_name;
    o.arguments = json_array();
    for (int i = bare ? 1 : 0; i < argc; i++)
        json_array_append_new(o.arguments, any_string(argv[i]));
    hs_opt_set set;
    hs_opt_set_init(&set);
    int status = parse_options(argc, argv, &o, &set);
    if (status < 0 && judge && (o.shard_n || o.extract_only)) {
        fprintf(stderr, "hotscan: judge reads facts: --shard and --facts-out are scan options\n");
        status = 2;
    }
    if (status < 0 && o.no_build && (judge || o.shard_n)) {
        /* The no-build mode indexes the whole tree before it writes any file's facts: a shard
         * would resolve calls against its own part only. */
        fprintf(stderr, "hotscan: --no-build reads the sources without a build: %s does not apply to it\n",
                judge ? "judge" : "--shard");
        status = 2;
    }
    if (status < 0)
        status = run_scan(&o, argv + optind, o.npaths);
    hs_opt_set_free(&set);
    free_list(&o.exclude);
    free_list(&o.extra_before);
    free_list(&o.extra_after);
    free_list(&o.hot);
    free_list(&o.rule_dirs);
    free_list(&o.enable);
    free_list(&o.disable);
    json_decref(o.arguments);
    return status;
}

int scan_dump_config(int argc, char **argv, FILE *out)
{
    scan_options o = {0};
    hs_opt_set set;
    hs_opt_set_init(&set);
    int status = parse_options(argc, argv, &o, &set);
    if (status < 0) {
        if (o.npaths > 0)
            fprintf(stderr, "hotscan: note: PATHs are not options; '%s' and the rest are not in the dump\n",
                    argv[optind]);
        hs_opt_set_dump(out, &set, scan_table);
        status = hs_close_stdout("the options") ? 0 : 2;
    }
    hs_opt_set_free(&set);
    free_list(&o.exclude);
    free_list(&o.extra_before);
    free_list(&o.extra_after);
    free_list(&o.hot);
    free_list(&o.rule_dirs);
    free_list(&o.enable);
    free_list(&o.disable);
    return status;
}
