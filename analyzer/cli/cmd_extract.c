/*
 * cmd_extract.c - `hotscan extract [options] -- COMPILER ARGS...`: extraction as a build
 * step (issue 15). It writes the facts of the source file the command compiles into
 * --facts-out DIR, then runs the command itself, so it can be a CMake compiler launcher
 * (CMAKE_C_COMPILER_LAUNCHER="hotscan;extract;--facts-out;DIR;--root;SRC;--") or a
 * Make/Ninja rule's prefix, and extraction goes wherever the build goes (distcc, remote
 * execution). `hotscan judge DIR` then reports on the whole program.
 *
 * A launcher must never break the build: a TU hotscan cannot parse costs a warning, and the
 * exit status is the compiler's. The parse runs in the same isolated worker as scan's, so a
 * libclang crash or hang (--tu-timeout) costs that TU's facts only.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "commands.h"
#include "hotscan/common.h"
#include "hotscan/facts.h"
#include "hotscan/discover.h"
#include "hotscan/extract.h"
#include "hotscan/ruledata.h"
#include "hotscan/tempfiles.h"
#include "hotscan/workers.h"

enum { OPT_FACTS_OUT = 256, OPT_ROOT, OPT_RULES, OPT_TIMEOUT, OPT_NO_COMPILE };

static const hs_cli_option extract_table[] = {
    {"facts-out", 0, OPT_FACTS_OUT, "DIR", "where the facts go (required; created if missing)", 0, NULL,
     HS_COMPLETE_DIRS, NULL},
    {"root", 0, OPT_ROOT, "DIR", "only code under DIR is analyzed (default: the current directory)", 0, NULL,
     HS_COMPLETE_DIRS, NULL},
    {"rules", 0, OPT_RULES, "DIR", "extra rule data, as for scan (repeatable)", 0, NULL, HS_COMPLETE_DIRS,
     NULL},
    {"tu-timeout", 0, OPT_TIMEOUT, "SEC", "give up on the parse after SEC seconds (default 300)", 0, NULL,
     HS_COMPLETE_NOTHING, NULL},
    {"no-compile", 0, OPT_NO_COMPILE, NULL, "write the facts only; do not run the command", 0, NULL,
     HS_COMPLETE_NOTHING, NULL},
    {"help", 'h', 'h', NULL, "show this help", 0, NULL, HS_COMPLETE_NOTHING, NULL},
    HS_OPTIONS_END,
};

const hs_cli_command hs_extract_command = {
    .name = "extract",
    .summary = "write one TU's facts as a build step (a compiler launcher)",
    .usage = "hotscan extract --facts-out DIR [options] -- COMPILER ARGS...",
    .about = "Writes the facts of the source file COMPILER ARGS compiles to DIR, then runs the\n"
             "command (a compiler launcher); 'hotscan judge DIR' reports on them.",
    .options = extract_table,
    .epilog = "Exit status: the command's; with --no-compile 0, or 2 when the facts could not be\n"
              "written.\n",
    .getopt_prefix = "+",
    .column = 20,
};

static void extract_usage(FILE *out)
{
    hs_cli_print_help(out, &hs_extract_command);
}

/* Receives the one TU's result from the worker pool. */
static void take_result(size_t index, hs_tu_result *result, void *user)
{
    (void)index;
    *(hs_tu_result *)user = *result;
}

/* Writes one source file's facts to DIR/<digest>-<name>.json (by rename: whole or not at all). */
static bool write_facts(const char *dir, const hs_tu_input *in, json_t *facts, char **err)
{
    json_t *args = json_array();
    hs_buf id;
    hs_buf_init(&id);
    hs_buf_puts(&id, in->directory);
    for (int i = 0; i < in->argc; i++) {
        json_array_append_new(args, json_string(in->argv[i]));
        hs_buf_append(&id, "\n", 1);
        hs_buf_puts(&id, in->argv[i]);
    }
    json_object_set_new(facts, "command", json_pack("{s:i, s:s, s:o}", "index", (json_int_t)-1, "directory",
                                                    in->directory, "arguments", args));
    char *key = hs_buf_take(&id);
    const char *base = strrchr(in->file, '/') ? strrchr(in->file, '/') + 1 : in->file;
    char *path = hs_printf("%s/%016llx-%s.json", dir, (unsigned long long)XXH3_64bits(key, strlen(key)), base);
    free(key);
    char *text = hs_facts_dumps(facts); /* json_dumps(facts, JSON_COMPACT), faster */
    bool ok = text && hs_write_output(path, text, strlen(text), err);
    if (!text)
        *err = hs_printf("%s: the facts could not be encoded", path);
    free(text);
    free(path);
    return ok;
}

/* The command's one source file (hs_is_source_file, existing), or NULL for a link step. */
static const char *source_of(int argc, char **argv)
{
    const char *found = NULL;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (argv[i][0] != '-' && hs_is_source_file(argv[i]) && stat(argv[i], &st) == 0 && S_ISREG(st.st_mode)) {
            if (found)
                return NULL; /* several sources in one command: not a TU hotscan can name */
            found = argv[i];
        }
    }
    return found;
}

int cmd_extract(int argc, char **argv)
{
    hs_cleanup_install(); /* the worker pool's temporary folder goes on a signal too */
    hs_getopt g;
    hs_getopt_init(&g, &hs_extract_command);
    const char *out_dir = NULL, *root_opt = ".";
    hs_vec rule_dirs = {0};
    double timeout = 300;
    bool compile = true;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, g.shortopts, g.longopts, NULL)) != -1) {
        switch (c) {
        case OPT_FACTS_OUT: out_dir = optarg; break;
        case OPT_ROOT: root_opt = optarg; break;
        case OPT_RULES: hs_vec_push(&rule_dirs, optarg); break;
        case OPT_TIMEOUT: timeout = atof(optarg); break;
        case OPT_NO_COMPILE: compile = false; break;
        case 'h':
            extract_usage(stdout);
            hs_vec_free(&rule_dirs);
            return 0;
        default:
            extract_usage(stderr);
            hs_vec_free(&rule_dirs);
            return 2;
        }
    }
    char **cmd = argv + optind;
    int ncmd = argc - optind;
    if (!out_dir || ncmd < 1) {
        fprintf(stderr, "hotscan: extract needs --facts-out DIR and a command after --\n");
        extract_usage(stderr);
        hs_vec_free(&rule_dirs);
        return 2;
    }
    int status = 0;
    const char *source = source_of(ncmd, cmd);
    char *root = hs_realpath(root_opt);
    if (source && root && (mkdir(out_dir, 0777) == 0 || errno == EEXIST)) {
        char *err = NULL;
        hs_ruledata *rd = hs_ruledata_load_all((char *const *)rule_dirs.items, rule_dirs.len, &err);
        char *cwd = getcwd(NULL, 0);
        hs_tu_input in = {0};
        in.file = hs_realpath(source);
        in.directory = cwd;
        in.argc = ncmd;
        in.argv = cmd;
        hs_tu_input *tus[] = {&in};
        hs_tu_result result = {0};
        hs_pool_options pool = {.jobs = 1, .tu_timeout = timeout, .tu_memory = HS_TU_MEMORY_DEFAULT, .rd = rd,
                                .root = root, .on_result = take_result, .user = &result};
        hs_tu_result unused = {0};
        if (!rd || !in.file || !hs_extract_all(tus, 1, &pool, &unused, &err) || !result.facts ||
            !write_facts(out_dir, &in, result.facts, &err)) {
            fprintf(stderr, "hotscan: warning: extract: no facts for %s: %s\n", source,
                    err ? err : result.error ? result.error : "it could not be parsed");
            status = 2;
        }
        json_decref(result.facts);
        free(result.error);
        free(err);
        free(in.file);
        free(cwd);
        hs_ruledata_delete(rd);
    } else if (source) {
        fprintf(stderr, "hotscan: warning: extract: no facts for %s: %s: %s\n", source, root ? out_dir : root_opt,
                strerror(errno));
        status = 2;
    }
    free(root);
    hs_vec_free(&rule_dirs);
    if (!compile)
        return status;
    fflush(NULL);
    execvp(cmd[0], cmd);
    fprintf(stderr, "hotscan: extract: cannot run %s: %s\n", cmd[0], strerror(errno));
    return 127;
}
