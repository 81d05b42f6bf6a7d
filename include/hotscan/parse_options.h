/*
 * parse_options.h - how hotscan asks libclang to parse a TU: the flags it adds after each
 * compile command's own and the parse options. One list, read by the extract stage
 * (analyzer/extract/extract.c) and by bench/parse_floor.c, so the floor the benchmarks
 * judge hotscan's CPU against parses exactly as hotscan does.
 *
 * -w: hotscan reads only a TU's errors (count_errors, parse_errors), never its warnings,
 * and a warning is work: the flow-sensitive ones (-Wreturn-type, -Wuninitialized,
 * -Wunreachable-code, -Wthread-safety...) build a CFG for every function body. With -w
 * clang computes none of them; warnings do not change the AST. It also drops warnings
 * the command line makes errors (-Werror): those say nothing about the code's meaning,
 * and a gcc -Werror build would otherwise fail a clang parse on a warning gcc lacks.
 * Errors that are errors by default stay errors. On haproxy the parse costs 13% less
 * (docs/performance.md, "Issue 8, session 24").
 * The -Wno-* flags keep gcc-only options from becoming driver diagnostics; -ferror-limit
 * bounds the work clang spends on a TU it cannot compile.
 */
#ifndef HOTSCAN_PARSE_OPTIONS_H
#define HOTSCAN_PARSE_OPTIONS_H

#define HS_PARSE_EXTRA_ARGS                                                                      \
    "-Wno-unknown-warning-option", "-Wno-unused-command-line-argument",                          \
        "-Wno-ignored-optimization-argument", "-ferror-limit=50", "-w"

/*
 * Errors clang raises where gcc (12, Debian's) only warns, made warnings (and so, with -w,
 * silent) for a TU the database says gcc compiles, as clangd does for the same reason: a
 * project that builds with gcc is not broken code, and a TU that fails to parse loses its
 * findings. `register` in C++17; in C, implicit function declarations and int, int <->
 * pointer conversions, incompatible function pointers, `return;` in a non-void function;
 * in C++, narrowing in braces and constant enum conversions out of range.
 */
#define HS_PARSE_GCC_ARGS                                                                        \
    "-Wno-register", "-Wno-error=implicit-function-declaration", "-Wno-error=implicit-int",     \
        "-Wno-error=int-conversion", "-Wno-error=incompatible-function-pointer-types",          \
        "-Wno-error=incompatible-pointer-types", "-Wno-error=return-mismatch",                  \
        "-Wno-c++11-narrowing", "-Wno-error=enum-constexpr-conversion"

#include <stdbool.h>
#include <string.h>

/* Is the command's compiler gcc: gcc, g++, cc, c++, with a target prefix or a version
 * suffix (x86_64-linux-gnu-gcc-12)? Debian's cc and c++ are gcc. Anything naming clang is
 * not. */
static inline bool hs_compiler_is_gcc(const char *argv0)
{
    if (!argv0)
        return false;
    const char *base = strrchr(argv0, '/');
    base = base ? base + 1 : argv0;
    if (strstr(base, "clang"))
        return false;
    size_t n = strlen(base);
    while (n > 0 && ((base[n - 1] >= '0' && base[n - 1] <= '9') || base[n - 1] == '.'))
        n--;
    if (n > 0 && base[n - 1] == '-')
        n--;
    static const char *const names[] = {"gcc", "g++", "cc", "c++"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t k = strlen(names[i]);
        if (n >= k && strncmp(base + n - k, names[i], k) == 0 && (n == k || base[n - k - 1] == '-'))
            return true;
    }
    return false;
}

/* KeepGoing: a TU with errors still gives its AST. DetailedPreprocessingRecord: libclang
 * lists the preprocessor's skipped ranges only with it (extract/inactive.c); it cost no
 * measurable parse time on haproxy, redis or rocksdb. */
#define HS_PARSE_OPTIONS                                                                         \
    (CXTranslationUnit_KeepGoing | CXTranslationUnit_IgnoreNonErrorsFromIncludedFiles |          \
     CXTranslationUnit_DetailedPreprocessingRecord)

#endif
