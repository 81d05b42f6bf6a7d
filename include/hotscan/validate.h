/*
 * validate.h - proving a fix: the code it changes (codegen.c: per-function differences in the
 * instructions that matter, x86-64 and AArch64) and what it does to a benchmark (bench.c:
 * baseline and patched copies built and run alternately, stats.c: medians, a bootstrap
 * interval for the ratio and a Mann-Whitney test). proc.c runs the steps under timeouts.
 */
#ifndef HOTSCAN_VALIDATE_H
#define HOTSCAN_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "hotscan/common.h"
#include "hotscan/extract.h"

/* ---- processes (proc.c) ---- */

typedef struct {
    int status;       /* exit status, or 128+signal */
    bool timed_out;
    bool failed_start;
    double seconds;   /* wall time */
    double cpu_seconds; /* user + system CPU time of the child and what it waited for */
    char *output;     /* stdout and stderr, interleaved (at most the last 1 MiB) */
} hs_proc_result;

/* Runs argv (argv[0] looked up in PATH) in `dir` with stdin from /dev/null, killing its
 * whole process group after `timeout` seconds (0: none). */
void hs_proc_run(char *const argv[], const char *dir, double timeout, hs_proc_result *out);
/* `sh -c CMD` the same way. */
void hs_proc_shell(const char *cmd, const char *dir, double timeout, hs_proc_result *out);
void hs_proc_result_free(hs_proc_result *r);
/* The last `lines` lines of `text` (a new string). */
char *hs_tail_lines(const char *text, int lines);

/* ---- patches (patch.c) ---- */

/* The files a unified diff changes (paths relative to the tree, the a/ b/ prefix removed;
 * char*), in order, each once. False with *err for a diff that touches nothing. */
bool hs_patch_files(const char *diff_text, hs_vec *files, char **err);
/* Applies the diff (patch -p1) inside `dir`; false with *err holding patch's output. */
bool hs_patch_apply(const char *diff_path, const char *dir, char **err);

/* ---- statistics (stats.c) ---- */

typedef struct {
    double median, min, max, q1, q3;
    double mad_rel;       /* median absolute deviation / median */
} hs_sample_summary;

void hs_summarize(const double *x, size_t n, hs_sample_summary *out);
/* Two-sided Mann-Whitney U test, normal approximation with the tie correction: the p value. */
double hs_mann_whitney_p(const double *a, size_t na, const double *b, size_t nb);
/* Percentile bootstrap interval (level e.g. 0.99) of median(b)/median(a), `resamples` times,
 * with a fixed seed so the same runs give the same interval. */
void hs_bootstrap_ratio(const double *a, size_t na, const double *b, size_t nb, double level,
                        int resamples, double *lo, double *hi);

/* ---- code generation (codegen.c) ---- */

typedef struct {
    const char *target;   /* "x86_64" or "aarch64" */
    const char *triple;
    const char *extra;    /* flags added for the target (AArch64: -march=armv8.1-a for LSE) */
} hs_codegen_target;

extern const hs_codegen_target hs_codegen_targets[];
extern const size_t hs_codegen_ntargets;

/* The instruction classes that matter, counted per function of an assembly listing: a JSON
 * object {function: {class: count}} (classes: "lock xadd", "xchg", "mfence", "ldaddal",
 * "stlr", "dmb", "call clock", ...). */
json_t *hs_asm_profile(const char *asm_text, const char *target);
/* The differences between two profiles: an array of {function, target, before, after,
 * summary} where summary reads "aarch64 ldaddal -> ldadd". */
void hs_asm_diff(json_t *base, json_t *patched, const char *target, json_t *changes);
/* Compiles one TU to assembly for `t` at -O2 with its own flags; `overlay` (or NULL) is a
 * clang VFS overlay that substitutes patched files. NULL with *err (the compiler's output
 * tail) on failure. */
char *hs_compile_asm(const hs_tu_input *tu, const hs_codegen_target *t, const char *overlay,
                     const char *compiler, double timeout, char **err);
/* Which of `headers` (char*, real paths) the TU's preprocessing reads: clang -M with the TU's
 * own flags as its x86-64 compile has them, the prerequisites compared by real path; which[i]
 * says it for headers[i]. How many it reads, or -1 with *err (the preprocessor failed). */
int hs_tu_reads_headers(const hs_tu_input *tu, const hs_vec *headers, const char *compiler, double timeout,
                        bool *which, char **err);

/* ---- benchmarks (bench.c) ---- */

typedef struct {
    const char *root;        /* the user's tree (absolute); never written */
    const char *diff_path;   /* the fix, a unified diff with paths relative to root */
    const char *build;       /* shell command run in each copy's root */
    const char *bench;       /* shell command run in each copy's root, once per run */
    int runs, warmup;        /* measured runs and discarded warm-up runs per variant */
    const char *metric;      /* POSIX extended regex for the number, or NULL: a time */
    bool cpu_time;           /* without a metric: CPU time (user + system) instead of wall time */
    bool higher_better;
    double build_timeout, bench_timeout;
    double alpha;            /* significance level of the Mann-Whitney test */
    FILE *log;               /* progress, or NULL */
} hs_bench_options;

/* Makes baseline and patched copies of the tree under `workdir` (git worktrees when root is in
 * a git repository, else copies), builds both, runs the benchmark alternately (A B B A ...) and
 * returns the result as JSON; NULL with *err naming the variant and the step that failed, with
 * its log tail. The copies are removed before it returns. */
json_t *hs_bench_run(const hs_bench_options *o, const char *workdir, char **err);

/* ---- calibration (calibrate.c) ---- */

struct hs_ruledata;
/* Measures on this host each clock API of the rule data and the atomic operations; rule data
 * with a "calibration" section, or NULL with *err. Scratch files go in workdir. */
json_t *hs_calibrate(const struct hs_ruledata *rd, const char *compiler, int repeats, const char *workdir,
                     char **err);

#endif
