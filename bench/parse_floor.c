/*
 * parse_floor.c - the speed floor hotscan is judged against (DESIGN.md): every TU of a
 * compile database parsed in one warm process with libclang, with the same options
 * hotscan uses, and nothing else (no walk, no facts). Prints CPU seconds.
 *
 * usage: parse_floor BUILD_DIR
 * With PARSE_FLOOR_EACH=1 it also prints "CPU-SECONDS PATH" per TU on stderr (the TU's share
 * of the floor: bench/prefilter_bound.py --costs).
 */
#define _GNU_SOURCE
#include <clang-c/CXCompilationDatabase.h>
#include <clang-c/Index.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: parse_floor BUILD_DIR\n");
        return 2;
    }
    CXCompilationDatabase_Error dberr;
    CXCompilationDatabase db = clang_CompilationDatabase_fromDirectory(argv[1], &dberr);
    if (dberr != CXCompilationDatabase_NoError) {
        fprintf(stderr, "parse_floor: %s: no compile_commands.json\n", argv[1]);
        return 2;
    }
    CXCompileCommands cmds = clang_CompilationDatabase_getAllCompileCommands(db);
    unsigned n = clang_CompileCommands_getSize(cmds);
    CXIndex index = clang_createIndex(0, 0);
    double t0 = cpu_seconds();
    unsigned parsed = 0;
    const char *each_env = getenv("PARSE_FLOOR_EACH");
    int each = each_env && *each_env && strcmp(each_env, "0") != 0;
    for (unsigned i = 0; i < n; i++) {
        CXCompileCommand cmd = clang_CompileCommands_getCommand(cmds, i);
        CXString dir = clang_CompileCommand_getDirectory(cmd);
        if (chdir(clang_getCString(dir)) != 0) {
            clang_disposeString(dir);
            continue;
        }
        clang_disposeString(dir);
        unsigned nargs = clang_CompileCommand_getNumArgs(cmd);
        const char **args = calloc(nargs + 4, sizeof(char *));
        CXString *keep = calloc(nargs, sizeof(CXString));
        for (unsigned a = 0; a < nargs; a++) {
            keep[a] = clang_CompileCommand_getArg(cmd, a);
            args[a] = clang_getCString(keep[a]);
        }
        args[nargs] = "-Wno-unknown-warning-option";
        args[nargs + 1] = "-ferror-limit=50";
        CXTranslationUnit tu = NULL;
        double tu0 = cpu_seconds();
        if (clang_parseTranslationUnit2FullArgv(index, NULL, args, (int)nargs + 2, NULL, 0,
                                                CXTranslationUnit_KeepGoing |
                                                    CXTranslationUnit_IgnoreNonErrorsFromIncludedFiles,
                                                &tu) == CXError_Success) {
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
    clang_disposeIndex(index);
    clang_CompileCommands_dispose(cmds);
    clang_CompilationDatabase_dispose(db);
    return 0;
}
