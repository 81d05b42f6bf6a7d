/*
 * merge.h - the merge stage: takes each TU's extraction result as the workers finish it
 * (in TU order) and folds it into the program model, then drops the TU's document, so
 * memory holds the merged program and one TU's facts, not every TU's.
 *
 * What a TU's document says besides its facts is kept here too: its compile errors (the
 * report's "errors", and the baseline a fix-it is verified against), options clang ignored,
 * and whether the TU failed.
 */
#ifndef HOTSCAN_MERGE_H
#define HOTSCAN_MERGE_H

#include <jansson.h>
#include <stdio.h>

#include "hotscan/discover.h"
#include "hotscan/program.h"
#include "hotscan/strmap.h"
#include "hotscan/workers.h"

typedef struct {
    const hs_discovery *disc;   /* the TUs, by index */
    const char *root;
    const char *facts_dir;      /* write each TU's facts here (--facts-dir), or NULL */
    FILE *log;                  /* warnings (a facts file that cannot be written) */

    hs_program *program;        /* the merged model; owned */
    json_t *errors;             /* report "errors" entries: failed TUs, TUs with compile errors */
    int *baseline_errors;       /* per TU: compile errors before any fix (for verification) */
    hs_strmap *ignored_arguments; /* compiler options clang did not know, each once */
    size_t gcc_lenient;            /* TUs parsed with gcc's leniency (parse_options.h) */
    size_t failed;              /* TUs that gave no facts */
    size_t from_cache;          /* TUs whose facts came from the facts cache, unparsed */
    size_t prefiltered;         /* TUs the prefilter left out (stub documents, scan --prefilter) */
} hs_merge;

void hs_merge_init(hs_merge *m, const hs_discovery *disc, const char *root, const char *facts_dir,
                   FILE *log);
/* The extraction pool's on_result callback (`user` is the hs_merge): merges one TU. */
void hs_merge_tu_result(size_t index, hs_tu_result *result, void *user);
/* Deletes the program model once the rules have judged it (findings and report sections
 * hold copies of what they need), and hands the freed pages back to the system, so fix-it
 * verification (whose workers fork from this process) and the emitters do not sit on top
 * of it. The rest of the merge (errors, baselines) stays. */
void hs_merge_release_program(hs_merge *m);
/* Frees what the merge still holds; a caller that keeps a member sets it to NULL first. */
void hs_merge_free(hs_merge *m);

#endif
