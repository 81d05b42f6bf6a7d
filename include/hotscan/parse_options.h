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

/* KeepGoing: a TU with errors still gives its AST. DetailedPreprocessingRecord: libclang
 * lists the preprocessor's skipped ranges only with it (extract/inactive.c); it cost no
 * measurable parse time on haproxy, redis or rocksdb. */
#define HS_PARSE_OPTIONS                                                                         \
    (CXTranslationUnit_KeepGoing | CXTranslationUnit_IgnoreNonErrorsFromIncludedFiles |          \
     CXTranslationUnit_DetailedPreprocessingRecord)

#endif
