/*
 * arg_filter.c - leaves out of hotscan's parse the options this libclang does not know.
 *
 * A database made by a gcc build carries gcc-only options (haproxy: -fvect-cost-model=
 * very-cheap, -Wduplicated-cond, -Wno-clobbered, -Wshift-overflow=2). clang ignores them,
 * but only after looking for a "did you mean": the driver measures the edit distance from
 * an unknown option to each of its thousands of options, and the warning options code does
 * the same for an unknown -W against every warning group, on every TU. On a small haproxy
 * TU that was 17% of its parse's instructions (docs/performance.md, "Issue 8, session 25").
 *
 * Whether clang knows an option is asked of libclang itself, never of a list kept here:
 * the options of a command that no earlier TU had are passed, all at once, to the parse of
 * an empty file, and an option is dropped only when a diagnostic names exactly it as an
 * unknown warning option (-Wunknown-warning-option) or an unknown argument. Anything else
 * (a value clang rejects, an option it does not support for the target, no diagnostic at
 * all) keeps the option as written. An option clang ignores changes nothing it parses, so
 * the AST and every fact are the same; the extract stage still lists dropped unknown
 * arguments as ignored, as it did when the driver reported them.
 *
 * The answers live for one process (a worker): one probe parse per new set of options,
 * about as much work as the unknown options of one TU cost.
 */
#include "hotscan/arg_filter.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hotscan/common.h"
#include "hotscan/strmap.h"

struct hs_arg_filter {
    hs_strmap *verdicts; /* option -> (void *)(verdict + 1) */
};

hs_arg_filter *hs_arg_filter_create(void)
{
    hs_arg_filter *f = hs_xcalloc(1, sizeof *f);
    f->verdicts = hs_strmap_create();
    return f;
}

void hs_arg_filter_delete(hs_arg_filter *f)
{
    if (!f)
        return;
    hs_strmap_delete(f->verdicts);
    free(f);
}

/* Options whose value is the next argument: that argument is a value, never asked about
 * (after -Xclang it is a cc1 option the driver would call unknown). */
static bool takes_separate_value(const char *a)
{
    static const char *const separate[] = {"-o", "-MF", "-MT", "-MQ", "-include", "-imacros", "-idirafter",
                                           "-isystem", "-iquote", "-iprefix", "-iwithprefix", "-isysroot",
                                           "-I", "-D", "-U", "-x", "-arch", "-target", "--target",
                                           "-mllvm", "-working-directory", NULL};
    if (strncmp(a, "-X", 2) == 0)
        return true;
    for (size_t i = 0; separate[i]; i++)
        if (strcmp(a, separate[i]) == 0)
            return true;
    return false;
}

/* -f, -m and -W options (not -Wl, -Wa, -Wp, which pass options on): where gcc's own are. */
static bool is_candidate(const char *a)
{
    if (a[0] != '-' || !(a[1] == 'f' || a[1] == 'm' || a[1] == 'W') || !a[2])
        return false;
    return !(a[1] == 'W' && a[3] == ',' && (a[2] == 'l' || a[2] == 'a' || a[2] == 'p'));
}

/* The first '...'-quoted name in a diagnostic's text, or NULL (caller frees). */
static char *first_quoted(const char *text)
{
    const char *open = strchr(text, '\'');
    const char *close = open ? strchr(open + 1, '\'') : NULL;
    return close ? hs_xstrndup(open + 1, (size_t)(close - open - 1)) : NULL;
}

bool hs_diagnostic_unknown_argument(CXDiagnostic d, char **name)
{
    if (name)
        *name = NULL;
    if (clang_getDiagnosticSeverity(d) < CXDiagnostic_Error)
        return false;
    CXString spelling = clang_getDiagnosticSpelling(d);
    const char *text = clang_getCString(spelling);
    bool unknown = strncmp(text, "unknown argument", 16) == 0;
    if (unknown && name)
        *name = first_quoted(text);
    clang_disposeString(spelling);
    return unknown;
}

/* Parses an empty file with `options` and records a verdict for each of them. */
static void probe(hs_arg_filter *f, CXIndex index, const char *compiler, const char **options, size_t n)
{
    static const char probe_file[] = "hotscan-arg-probe.c";
    const char **argv = hs_xcalloc(n + 3, sizeof *argv);
    size_t argc = 0;
    argv[argc++] = compiler;
    for (size_t i = 0; i < n; i++)
        argv[argc++] = options[i];
    argv[argc++] = probe_file;
    struct CXUnsavedFile empty = {probe_file, "", 0};
    CXTranslationUnit tu = NULL;
    hs_strmap *unknown = hs_strmap_create();
    /* The driver prints the unknown warning options it is asked to report on standard
     * error besides storing them: the probe's are not a person's business. A worker (and
     * the floor) parses on one thread, so nothing else writes meanwhile. */
    fflush(stderr);
    int saved_stderr = dup(STDERR_FILENO);
    int null_fd = saved_stderr >= 0 ? open("/dev/null", O_WRONLY | O_CLOEXEC) : -1;
    if (null_fd >= 0)
        dup2(null_fd, STDERR_FILENO);
    enum CXErrorCode status =
        clang_parseTranslationUnit2FullArgv(index, NULL, argv, (int)argc, &empty, 1, CXTranslationUnit_KeepGoing, &tu);
    if (null_fd >= 0) {
        fflush(stderr);
        dup2(saved_stderr, STDERR_FILENO);
        close(null_fd);
    }
    if (saved_stderr >= 0)
        close(saved_stderr);
    if (status == CXError_Success && tu) {
        unsigned nd = clang_getNumDiagnostics(tu);
        for (unsigned i = 0; i < nd; i++) {
            CXDiagnostic d = clang_getDiagnostic(tu, i);
            CXString option = clang_getDiagnosticOption(d, NULL);
            char *name = NULL;
            hs_arg_verdict v = HS_ARG_KEEP;
            if (strcmp(clang_getCString(option), "-Wunknown-warning-option") == 0) {
                CXString spelling = clang_getDiagnosticSpelling(d);
                name = first_quoted(clang_getCString(spelling));
                clang_disposeString(spelling);
                v = name && name[1] == 'W' ? HS_ARG_UNKNOWN_WARNING : HS_ARG_KEEP;
            } else if (hs_diagnostic_unknown_argument(d, &name)) {
                v = HS_ARG_UNKNOWN_OPTION;
            }
            if (name && v != HS_ARG_KEEP)
                hs_strmap_put(unknown, name, (void *)(uintptr_t)(v + 1));
            free(name);
            clang_disposeString(option);
            clang_disposeDiagnostic(d);
        }
        clang_disposeTranslationUnit(tu);
    }
    /* A failed probe leaves every option as written. */
    for (size_t i = 0; i < n; i++) {
        void *v = hs_strmap_get(unknown, options[i]);
        hs_strmap_put(f->verdicts, options[i], v ? v : (void *)(uintptr_t)(HS_ARG_KEEP + 1));
    }
    hs_strmap_delete(unknown);
    free(argv);
}

/* Whether argv[i] is asked about: an option of a kind gcc has its own of, and not the
 * value of the option before it. */
static bool asked(char *const *argv, int i)
{
    return i > 0 && is_candidate(argv[i]) && !takes_separate_value(argv[i - 1]);
}

void hs_arg_filter_classify(hs_arg_filter *f, CXIndex index, char *const *argv, int argc,
                            hs_arg_verdict *verdicts)
{
    const char **fresh = hs_xcalloc((size_t)(argc > 0 ? argc : 1), sizeof *fresh);
    size_t nfresh = 0;
    for (int i = 0; i < argc; i++)
        if (asked(argv, i) && !hs_strmap_has(f->verdicts, argv[i]))
            fresh[nfresh++] = argv[i];
    if (nfresh > 0)
        probe(f, index, argv[0], fresh, nfresh);
    for (int i = 0; i < argc; i++) {
        uintptr_t v = asked(argv, i) ? (uintptr_t)hs_strmap_get(f->verdicts, argv[i]) : 0;
        verdicts[i] = v ? (hs_arg_verdict)(v - 1) : HS_ARG_KEEP;
    }
    free(fresh);
}
