/*
 * prefilter.h - the tree-sitter prefilter (`scan --prefilter`, analyzer/syntax/prefilter.c):
 * before libclang, each TU's main file and the project headers it includes are read with
 * tree-sitter and a token scan, and a TU that can contribute nothing to any rule is left
 * unparsed. The argument for why a skipped TU never changes a finding is in
 * docs/performance.md ("The prefilter"); in short, a TU is kept when its text may hold a
 * fact (an atomic API, wrapper or macro, a use of a name some file declares atomic or hands
 * to an atomic operation, an event API or type, a hot attribute), defines a function on the
 * by-name call graph around the clock reads (every caller, transitively, and the callees
 * that lead to a blocking call), defines a hot root, or takes the address of any project
 * function (a store into a slot adds indirect edges and counts toward an indirect call's
 * targets).
 *
 * The decision is made over all TUs of the scan at once (the call graph is whole-program),
 * before --shard takes its part, so each shard skips exactly what a whole scan skips.
 */
#ifndef HOTSCAN_PREFILTER_H
#define HOTSCAN_PREFILTER_H

#include <stdbool.h>
#include <stddef.h>

#include "hotscan/extract.h"
#include "hotscan/ruledata.h"

typedef struct {
    const char *root;          /* only files under it are read (project files) */
    const hs_ruledata *rd;     /* clock, blocking, atomic, event names; hot_functions */
    char *const *hot;          /* --hot names */
    size_t n_hot;
} hs_prefilter_options;

typedef struct {
    size_t tus;                /* TUs decided */
    size_t skipped;            /* of them, left unparsed */
    size_t files;              /* distinct files read (main files and project headers) */
    size_t files_unsure;       /* of them, files whose text the prefilter cannot reason about
                                  (syntax errors, a computed #include, unreadable): every TU
                                  including one is kept */
    double seconds;            /* CPU seconds the decision took */
} hs_prefilter_stats;

/*
 * Decides for tus[0..n): returns a malloc'd array, true for a TU that may be skipped. Never
 * fails on bad input (an unreadable or unparsable file keeps the TUs that include it);
 * returns NULL only when the tree-sitter grammars cannot be loaded, with *err set.
 */
bool *hs_prefilter_decide(hs_tu_input *const *tus, size_t n, const hs_prefilter_options *opt,
                          hs_prefilter_stats *stats, char **err);

#endif
