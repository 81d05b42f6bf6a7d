/*
 * parse_floor.c - the speed floor hotscan is judged against (DESIGN.md): every TU of a
 * compile database parsed in one warm process with libclang, with the same flags and
 * options hotscan uses (include/hotscan/parse_options.h) and without the options libclang
 * does not know, which hotscan leaves out too (analyzer/extract/arg_filter.c), and nothing
 * else (no walk, no facts). Prints "TUs CPU-SECONDS". Built with hotscan (build/parse_floor).
 *
 * usage: parse_floor [--database-flags] [--shard I/N] [--visit MODE] BUILD_DIR
 * --database-flags parses with each command as written (plus only -Wno-unknown-warning-option
 * and -ferror-limit=50, as the floor did before hotscan added -w), unknown options included:
 * what a plain libclang parse of the tree costs, to show what hotscan's own flags save.
 * With PARSE_FLOOR_EACH=1 it also prints "CPU-SECONDS PATH" per TU on stderr (the TU's share
 * of the floor: bench/prefilter_bound.py --costs).
 * --shard I/N parses only the entries whose index modulo N is I (0 <= I < N): N such
 * processes run side by side are the floor of a -j N scan, on the same cores sharing the
 * same caches (bench/run.sh's "parse floor -j N" row).
 * --visit MODE also visits each parsed TU with libclang's cursor API, doing nothing with what
 * it sees, to measure what any libclang-based extractor pays above the parse (docs/
 * performance.md, "session 31"; count instructions with valgrind --tool=callgrind):
 *   1  the main file's function definitions' bodies, every cursor (clang_visitChildren)
 *   2  the bodies of every function defined outside system headers
 *   3  as 2, asking each cursor's kind and expansion location (file, line, column, offset)
 *   4  as 1 with kinds and expansion locations, plus the expansion location of each
 *      declaration outside system headers and the USR of each call's callee and of each
 *      function, variable and field declared there: the least a cross-TU call graph with
 *      positions needs
 * It then also prints the bodies, cursors and USRs it counted.
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

/* What --visit counts. */
typedef struct {
    int mode;
    unsigned long bodies, cursors, usrs;
} visit_counts;

static enum CXChildVisitResult body_visitor(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    visit_counts *v = data;
    v->cursors++;
    if (v->mode >= 3) {
        enum CXCursorKind k = clang_getCursorKind(c);
        CXFile file;
        unsigned line, column, offset;
        clang_getExpansionLocation(clang_getCursorLocation(c), &file, &line, &column, &offset);
        if (v->mode == 4 && k == CXCursor_CallExpr) {
            CXCursor callee = clang_getCursorReferenced(c);
            if (!clang_Cursor_isNull(callee)) {
                CXString usr = clang_getCursorUSR(callee);
                v->usrs += clang_getCString(usr)[0] != 0;
                clang_disposeString(usr);
            }
        }
    }
    return CXChildVisit_Recurse;
}

static enum CXChildVisitResult top_visitor(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    visit_counts *v = data;
    CXSourceLocation at = clang_getCursorLocation(c);
    if (clang_Location_isInSystemHeader(at))
        return CXChildVisit_Continue;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_Namespace || k == CXCursor_LinkageSpec || k == CXCursor_StructDecl || k == CXCursor_ClassDecl)
        return CXChildVisit_Recurse;
    if (v->mode == 4) {
        CXFile file;
        unsigned line, column, offset;
        clang_getExpansionLocation(at, &file, &line, &column, &offset);
        if (k == CXCursor_FunctionDecl || k == CXCursor_VarDecl || k == CXCursor_FieldDecl) {
            CXString usr = clang_getCursorUSR(c);
            v->usrs++;
            clang_disposeString(usr);
        }
    }
    if ((k == CXCursor_FunctionDecl || k == CXCursor_CXXMethod) && clang_isCursorDefinition(c) &&
        (v->mode == 2 || v->mode == 3 || clang_Location_isFromMainFile(at))) {
        v->bodies++;
        clang_visitChildren(c, body_visitor, v);
    }
    return CXChildVisit_Continue;
}

int main(int argc, char **argv)
{
    int as_written = 0;
    unsigned shard = 0, nshards = 1;
    visit_counts visit = {0, 0, 0, 0};
    int a0 = 1;
    for (; a0 < argc - 1; a0++) {
        if (strcmp(argv[a0], "--database-flags") == 0) {
            as_written = 1;
        } else if (strcmp(argv[a0], "--shard") == 0 && a0 + 1 < argc - 1 &&
                   sscanf(argv[a0 + 1], "%u/%u", &shard, &nshards) == 2 && nshards > 0 && shard < nshards) {
            a0++;
        } else if (strcmp(argv[a0], "--visit") == 0 && a0 + 1 < argc - 1 &&
                   sscanf(argv[a0 + 1], "%d", &visit.mode) == 1 && visit.mode >= 1 && visit.mode <= 4) {
            a0++;
        } else {
            break;
        }
    }
    if (a0 != argc - 1) {
        fprintf(stderr, "usage: parse_floor [--database-flags] [--shard I/N] [--visit 1-4] BUILD_DIR\n");
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
        static const char *const gcc_extra[] = {HS_PARSE_GCC_ARGS};
        const unsigned ngcc_all = sizeof gcc_extra / sizeof gcc_extra[0];
        const char **args = calloc(nargs + nextra + ngcc_all, sizeof(char *));
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
        /* hotscan's leniency for a gcc-compiled TU (parse_options.h). */
        unsigned ngcc = !as_written && nargs > 0 && hs_compiler_is_gcc(args[0]) ? ngcc_all : 0;
        for (unsigned e = 0; e < ngcc; e++)
            args[nkept + nextra + e] = gcc_extra[e];
        CXTranslationUnit tu = NULL;
        double tu0 = cpu_seconds();
        if (clang_parseTranslationUnit2FullArgv(index, NULL, args, (int)(nkept + nextra + ngcc), NULL, 0, options, &tu) ==
            CXError_Success) {
            parsed++;
            if (visit.mode)
                clang_visitChildren(clang_getTranslationUnitCursor(tu), top_visitor, &visit);
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
    if (visit.mode)
        printf("%u %.3f bodies=%lu cursors=%lu usrs=%lu\n", parsed, cpu, visit.bodies, visit.cursors, visit.usrs);
    else
        printf("%u %.3f\n", parsed, cpu);
    hs_arg_filter_delete(filter);
    clang_disposeIndex(index);
    clang_CompileCommands_dispose(cmds);
    clang_CompilationDatabase_dispose(db);
    return 0;
}
