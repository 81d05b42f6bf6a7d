/*
 * parse_floor.c - the speed floor hotscan is judged against (DESIGN.md): every TU of a
 * compile database parsed in one warm process with libclang, with the same flags and
 * options hotscan uses (include/hotscan/parse_options.h) and without the options libclang
 * does not know, which hotscan leaves out too (analyzer/extract/arg_filter.c), and nothing
 * else (no walk, no facts). Prints "TUs CPU-SECONDS". Built with hotscan (build/parse_floor).
 *
 * usage: parse_floor [--database-flags] [--shard I/N] BUILD_DIR
 * --database-flags parses with each command as written (plus only -Wno-unknown-warning-option
 * and -ferror-limit=50, as the floor did before hotscan added -w), unknown options included:
 * what a plain libclang parse of the tree costs, to show what hotscan's own flags save.
 * With PARSE_FLOOR_EACH=1 it also prints "CPU-SECONDS PATH" per TU on stderr (the TU's share
 * of the floor: bench/prefilter_bound.py --costs).
 * --shard I/N parses only the entries whose index modulo N is I (0 <= I < N): N such
 * processes run side by side are the floor of a -j N scan, on the same cores sharing the
 * same caches (bench/run.sh's "parse floor -j N" row).
 */
#define _GNU_SOURCE
#include <clang-c/CXCompilationDatabase.h>
#include <clang-c/Index.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "hotscan/arg_filter.h"
#include "hotscan/parse_options.h"

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
    int as_written = 0;
    unsigned shard = 0, nshards = 1;
    int a0 = 1;
    for (; a0 < argc - 1; a0++) {
        if (strcmp(argv[a0], "--database-flags") == 0) {
            as_written = 1;
        } else if (strcmp(argv[a0], "--shard") == 0 && a0 + 1 < argc - 1 &&
                   sscanf(argv[a0 + 1], "%u/%u", &shard, &nshards) == 2 && nshards > 0 && shard < nshards) {
            a0++;
        } else {
            break;
        }
    }
    if (a0 != argc - 1) {
        fprintf(stderr, "usage: parse_floor [--database-flags] [--shard I/N] BUILD_DIR\n");
        return 2;
    }
    argv += a0 - 1;
    static const char *const hotscan_extra[] = {HS_PARSE_EXTRA_ARGS};
    static const char *const plain_extra[] = {"-Wno-unknown-warning-option", "-ferror-limit=50"};
    const char *const *extra = as_written ? plain_extra : hotscan_extra;
    unsigned nextra = as_written ? 2 : sizeof hotscan_extra / sizeof hotscan_extra[0];
    unsigned options = as_written ? CXTranslationUnit_KeepGoing | CXTranslationUnit_IgnoreNonErrorsFromIncludedFiles
                                  : HS_PARSE_OPTIONS;
    CXCompilationDatabase_Error dberr;
    CXCompilationDatabase db = clang_CompilationDatabase_fromDirectory(argv[1], &dberr);
    if (dberr != CXCompilationDatabase_NoError) {
        fprintf(stderr, "parse_floor: %s: no compile_commands.json\n", argv[1]);
        return 2;
    }
    CXCompileCommands cmds = clang_CompilationDatabase_getAllCompileCommands(db);
    unsigned n = clang_CompileCommands_getSize(cmds);
    CXIndex index = clang_createIndex(0, 0);
    hs_arg_filter *filter = as_written ? NULL : hs_arg_filter_create();
    double t0 = cpu_seconds();
    unsigned parsed = 0;
    const char *each_env = getenv("PARSE_FLOOR_EACH");
    int each = each_env && *each_env && strcmp(each_env, "0") != 0;
    for (unsigned i = 0; i < n; i++) {
        if (i % nshards != shard)
            continue;
        CXCompileCommand cmd = clang_CompileCommands_getCommand(cmds, i);
        CXString dir = clang_CompileCommand_getDirectory(cmd);
        if (chdir(clang_getCString(dir)) != 0) {
            clang_disposeString(dir);
            continue;
        }
        clang_disposeString(dir);
        unsigned nargs = clang_CompileCommand_getNumArgs(cmd);
        const char **args = calloc(nargs + nextra, sizeof(char *));
        CXString *keep = calloc(nargs, sizeof(CXString));
        unsigned nkept = 0;
        for (unsigned a = 0; a < nargs; a++) {
            keep[a] = clang_CompileCommand_getArg(cmd, a);
            args[a] = clang_getCString(keep[a]);
        }
        if (filter) {
            hs_arg_verdict *verdicts = calloc(nargs ? nargs : 1, sizeof *verdicts);
            hs_arg_filter_classify(filter, index, (char *const *)args, (int)nargs, verdicts);
            for (unsigned a = 0; a < nargs; a++)
                if (verdicts[a] == HS_ARG_KEEP)
                    args[nkept++] = args[a];
            free(verdicts);
        } else {
            nkept = nargs;
        }
        for (unsigned e = 0; e < nextra; e++)
            args[nkept + e] = extra[e];
        CXTranslationUnit tu = NULL;
        double tu0 = cpu_seconds();
        if (clang_parseTranslationUnit2FullArgv(index, NULL, args, (int)(nkept + nextra), NULL, 0, options, &tu) ==
            CXError_Success) {
            parsed++;
            clang_disposeTranslationUnit(tu);
        }
        if (each) {
            CXString file = clang_CompileCommand_getFilename(cmd);
            char *cwd = getcwd(NULL, 0);
            const char *name = clang_getCString(file);
            fprintf(stderr, "%.3f %s%s%s\n", cpu_seconds() - tu0, name[0] == '/' ? "" : cwd ? cwd : ".",
                    name[0] == '/' ? "" : "/", name);
            free(cwd);
            clang_disposeString(file);
        }
        for (unsigned a = 0; a < nargs; a++)
            clang_disposeString(keep[a]);
        free(keep);
        free(args);
    }
    double cpu = cpu_seconds() - t0;
    printf("%u %.3f\n", parsed, cpu);
    hs_arg_filter_delete(filter);
    clang_disposeIndex(index);
    clang_CompileCommands_dispose(cmds);
    clang_CompilationDatabase_dispose(db);
    return 0;
}
