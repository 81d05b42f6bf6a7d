/*
 * workers.h - runs extraction over many TUs in parallel, in worker processes.
 *
 * Processes, not threads: a TU that crashes or hangs libclang kills or stalls only its
 * worker; the supervisor records an error for that TU, starts a fresh worker and goes
 * on. Workers are long-lived (one parses many TUs) because starting libclang costs
 * about 0.1 s per process, more than parsing a typical TU.
 */
#ifndef HOTSCAN_WORKERS_H
#define HOTSCAN_WORKERS_H

#include <jansson.h>

#include "hotscan/extract.h"
#include "hotscan/ruledata.h"

typedef struct {
    json_t *facts;   /* the TU's facts, or NULL when it failed */
    char *error;     /* why it failed, or NULL */
    double seconds;
    bool from_cache; /* the facts came from the facts cache: nothing was parsed */
} hs_tu_result;

/* A fix to check: parse TU `tu` with these files' contents replaced in memory. */
typedef struct {
    size_t tu;
    json_t *unsaved;     /* [{"file": absolute path, "content": text}] */
} hs_verify_job;

typedef struct {
    int jobs;            /* worker processes */
    double tu_timeout;   /* seconds before a TU's worker is killed; <= 0: never */
    long long tu_memory; /* bytes of address space per worker (RLIMIT_AS); 0: no limit;
                            HS_TU_MEMORY_DEFAULT: hs_tu_memory_default(workers) */
    const hs_ruledata *rd;
    const char *root;
    bool progress;       /* a progress line on stderr */
    const hs_verify_job *verify_jobs; /* set by hs_verify_all; NULL for extraction */
    struct hs_facts_cache *cache;     /* extraction reads and fills it; NULL: none */
    bool full_facts;     /* every TU's facts whole: no header function skipped because the
                            worker walked it for an earlier TU (--facts-dir; extract.h) */
    /*
     * When set, each TU's result is handed over as soon as it and every TU before it are
     * done, in index order (so a merge is deterministic), and only then read from disk:
     * the callback owns result->facts and result->error, and the results array keeps
     * neither. Memory then holds one TU's facts at a time, not the whole tree's.
     */
    void (*on_result)(size_t index, hs_tu_result *result, void *user);
    void *user;
    /* on_result drops result->facts before it returns and keeps no jansson value read from
     * them (hs_merge_tu_result): each document is then read into an arena that is taken
     * back whole after the call (json_arena.h). */
    bool on_result_drops_facts;
} hs_pool_options;

#define HS_TU_MEMORY_DEFAULT (-1LL)
/* The default cap per worker: three quarters of the machine's memory shared by the workers,
 * at least 2 GiB. */
long long hs_tu_memory_default(int workers);
/* False in builds whose sanitizers reserve huge address ranges (ASan): there RLIMIT_AS would
 * stop every worker at start, so the cap is not applied. */
bool hs_tu_memory_enforced(void);

/* Fills results[i] for tus[i] (or hands each to opt->on_result). Returns false only when no
 * worker could be started. */
bool hs_extract_all(hs_tu_input **tus, size_t n, const hs_pool_options *opt,
                    hs_tu_result *results, char **err);

/*
 * Runs verification jobs in the same isolated workers: results[i].facts becomes
 * {"errors": N, "first": "first error"} for jobs[i], or results[i].error is set. The
 * options' on_result is not used: every result lands in `results`.
 */
bool hs_verify_all(hs_tu_input **tus, const hs_verify_job *jobs, size_t n,
                   const hs_pool_options *opt, hs_tu_result *results, char **err);

#endif
