/*
 * bench.c - does a fix pay? Builds a baseline and a patched copy of the user's tree and runs
 * the user's benchmark on them alternately (A B B A A B B A ...), so drift and noise from a
 * loaded machine hit both alike, then compares the runs with distribution-free statistics
 * (stats.c). The user's own working tree is never touched: the copies are git worktrees
 * (with the tree's uncommitted changes applied) or plain copies, removed at the end. The
 * build and benchmark commands see HOTSCAN_VARIANT=baseline|patched in their environment, so
 * a benchmark that starts a server can give each variant its own port.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hotscan/validate.h"

typedef struct {
    const char *name;   /* "baseline" or "patched" */
    char *checkout;     /* the worktree or copy */
    char *dir;          /* the tree's root inside it */
    bool worktree;
} variant;

static char *git_toplevel(const char *root)
{
    char *argv[] = {"git", "-C", (char *)root, "rev-parse", "--show-toplevel", NULL};
    hs_proc_result r;
    hs_proc_run(argv, NULL, 60, &r);
    char *top = NULL;
    if (!r.failed_start && !r.timed_out && r.status == 0 && r.output && r.output[0] == '/') {
        r.output[strcspn(r.output, "\n")] = '\0';
        top = hs_realpath(r.output);
    }
    hs_proc_result_free(&r);
    return top;
}

static bool run_ok(char *const argv[], const char *dir, double timeout, char **err, const char *what)
{
    hs_proc_result r;
    hs_proc_run(argv, dir, timeout, &r);
    bool ok = !r.failed_start && !r.timed_out && r.status == 0;
    if (!ok) {
        char *tail = hs_tail_lines(r.output ? r.output : "", 20);
        *err = hs_printf("%s failed (status %d%s):\n%s", what, r.status, r.timed_out ? ", timed out" : "", tail);
        free(tail);
    }
    hs_proc_result_free(&r);
    return ok;
}

/* Makes one variant's copy; false with *err. */
static bool make_variant(variant *v, const hs_bench_options *o, const char *top, const char *local_diff,
                         const char *workdir, char **err)
{
    v->checkout = hs_path_join(workdir, v->name);
    if (top) {
        char *argv[] = {"git", "-C", (char *)top, "worktree", "add", "--detach", "--quiet", "--", v->checkout, "HEAD",
                        NULL};
        char *what = hs_printf("git worktree add for the %s copy", v->name);
        bool ok = run_ok(argv, NULL, 600, err, what);
        free(what);
        if (!ok)
            return false;
        v->worktree = true;
        char *sub = hs_path_relative(top, o->root);
        v->dir = strcmp(sub, o->root) == 0 || strcmp(sub, ".") == 0 || !sub[0] ? hs_xstrdup(v->checkout)
                                                                               : hs_path_join(v->checkout, sub);
        free(sub);
        if (local_diff) {
            char *apply[] = {"git", "-C", v->checkout, "apply", "--binary", "--", (char *)local_diff, NULL};
            what = hs_printf("applying the tree's uncommitted changes to the %s copy", v->name);
            ok = run_ok(apply, NULL, 600, err, what);
            free(what);
            if (!ok)
                return false;
        }
    } else {
        char *src = hs_path_join(o->root, ".");
        char *argv[] = {"cp", "-a", "--", src, v->checkout, NULL};
        char *what = hs_printf("copying %s for the %s variant", o->root, v->name);
        bool ok = run_ok(argv, NULL, 1800, err, what);
        free(what);
        free(src);
        if (!ok)
            return false;
        v->dir = hs_xstrdup(v->checkout);
    }
    return true;
}

/* Removes a variant's copy. False when git could not remove its worktree entry (the folder
 * is deleted anyway, so the entry is stale and `git worktree prune` drops it). */
static bool remove_variant(variant *v, const char *top)
{
    if (!v->checkout)
        return true;
    bool removed = true;
    if (v->worktree) {
        char *argv[] = {"git", "-C", (char *)top, "worktree", "remove", "--force", "--", v->checkout, NULL};
        hs_proc_result r;
        hs_proc_run(argv, NULL, 600, &r);
        removed = !r.failed_start && !r.timed_out && r.status == 0;
        hs_proc_result_free(&r);
    }
    char *rm[] = {"rm", "-rf", "--", v->checkout, NULL};
    hs_proc_result r;
    hs_proc_run(rm, NULL, 600, &r);
    hs_proc_result_free(&r);
    free(v->checkout);
    free(v->dir);
    v->checkout = v->dir = NULL;
    return removed;
}

/* The metric in a run's output: the last match of the regex, its first group when it has one,
 * read as a number. False when there is none. */
static bool read_metric(const regex_t *re, const char *text, double *value)
{
    regmatch_t m[2];
    const char *p = text;
    bool found = false;
    int flags = 0;
    while (regexec(re, p, 2, m, flags) == 0) {
        regmatch_t g = m[1].rm_so >= 0 ? m[1] : m[0];
        char *s = hs_xstrndup(p + g.rm_so, (size_t)(g.rm_eo - g.rm_so));
        char *q = s;
        while (*q && !((*q >= '0' && *q <= '9') || ((*q == '-' || *q == '.') && q[1] >= '0' && q[1] <= '9')))
            q++;
        char *end;
        double v = strtod(q, &end);
        if (end != q) {
            *value = v;
            found = true;
        }
        free(s);
        if (m[0].rm_eo == 0)
            break;
        p += m[0].rm_eo;
        flags = REG_NOTBOL;
    }
    return found;
}

/* One benchmark run; false with *err. */
static bool bench_once(const hs_bench_options *o, const variant *v, const regex_t *re, int run, double *value,
                       char **err)
{
    hs_proc_result r;
    setenv("HOTSCAN_VARIANT", v->name, 1);
    hs_proc_shell(o->bench, v->dir, o->bench_timeout, &r);
    bool ok = !r.failed_start && !r.timed_out && r.status == 0;
    if (ok && re && !read_metric(re, r.output ? r.output : "", value)) {
        char *tail = hs_tail_lines(r.output ? r.output : "", 20);
        *err = hs_printf("the benchmark on the %s variant (%s run %d) printed nothing that matches --metric '%s'; "
                         "its output ends:\n%s", v->name, run < 0 ? "warm-up" : "measured", abs(run), o->metric, tail);
        free(tail);
        hs_proc_result_free(&r);
        return false;
    }
    if (ok && !re)
        *value = o->cpu_time ? r.cpu_seconds : r.seconds;
    if (!ok) {
        char *tail = hs_tail_lines(r.output ? r.output : "", 20);
        *err = hs_printf("the benchmark failed on the %s variant (%s run %d, status %d%s, in %s); its log ends:\n%s",
                         v->name, run < 0 ? "warm-up" : "measured", abs(run), r.status, r.timed_out ? ", timed out" : "", v->dir, tail);
        free(tail);
    }
    hs_proc_result_free(&r);
    return ok;
}

static json_t *summary_json(const double *x, size_t n)
{
    hs_sample_summary s;
    hs_summarize(x, n, &s);
    json_t *values = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(values, json_real(x[i]));
    return json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:o}", "median", s.median, "q1", s.q1, "q3", s.q3,
                     "min", s.min, "max", s.max, "mad_relative", s.mad_rel, "values", values);
}

json_t *hs_bench_run(const hs_bench_options *o, const char *workdir, char **err)
{
    regex_t re;
    bool have_re = false;
    if (o->metric) {
        int rc = regcomp(&re, o->metric, REG_EXTENDED | REG_NEWLINE);
        if (rc != 0) {
            char msg[256];
            regerror(rc, &re, msg, sizeof msg);
            *err = hs_printf("--metric '%s': %s", o->metric, msg);
            return NULL;
        }
        have_re = true;
    }
    json_t *result = NULL;
    char *top = git_toplevel(o->root);
    char *local_diff = NULL;
    json_t *notes = json_array();
    variant vs[2] = {{.name = "baseline"}, {.name = "patched"}};
    double *values[2] = {hs_xcalloc((size_t)o->runs, sizeof(double)), hs_xcalloc((size_t)o->runs, sizeof(double))};
    if (top) {
        /* The copies start from HEAD; the tree's uncommitted changes go into both. */
        char *argv[] = {"git", "-C", top, "diff", "HEAD", "--binary", NULL};
        hs_proc_result r;
        hs_proc_run(argv, NULL, 600, &r);
        if (r.status == 0 && r.output && r.output[0]) {
            local_diff = hs_path_join(workdir, "uncommitted.diff");
            FILE *f = fopen(local_diff, "w");
            if (f) {
                fputs(r.output, f);
                fclose(f);
            }
            json_array_append_new(notes, json_string("the tree's uncommitted changes (git diff HEAD) are applied to both copies"));
        }
        hs_proc_result_free(&r);
        char *others[] = {"git", "-C", (char *)o->root, "ls-files", "--others", "--exclude-standard", "--", ".", NULL};
        hs_proc_run(others, NULL, 600, &r);
        if (r.status == 0 && r.output && r.output[0]) {
            size_t n = 0;
            for (const char *p = r.output; *p; p++)
                n += *p == '\n';
            json_array_append_new(notes, json_sprintf("%zu untracked file%s of the tree %s not in the copies (git "
                                                      "worktrees hold tracked files only)",
                                                      n, n == 1 ? "" : "s", n == 1 ? "is" : "are"));
        }
        hs_proc_result_free(&r);
    }
    for (int i = 0; i < 2; i++) {
        if (o->log)
            fprintf(o->log, "hotscan: validate: making the %s copy (%s)\n", vs[i].name, top ? "git worktree" : "copy");
        if (!make_variant(&vs[i], o, top, local_diff, workdir, err))
            goto done;
    }
    if (!hs_patch_apply(o->diff_path, vs[1].dir, err))
        goto done;
    for (int i = 0; i < 2; i++) {
        if (o->log)
            fprintf(o->log, "hotscan: validate: building the %s variant\n", vs[i].name);
        hs_proc_result r;
        setenv("HOTSCAN_VARIANT", vs[i].name, 1);
        hs_proc_shell(o->build, vs[i].dir, o->build_timeout, &r);
        if (r.failed_start || r.timed_out || r.status != 0) {
            char *tail = hs_tail_lines(r.output ? r.output : "", 20);
            *err = hs_printf("the build failed on the %s variant (status %d%s, in %s); its log ends:\n%s", vs[i].name,
                             r.status, r.timed_out ? ", timed out" : "", vs[i].dir, tail);
            free(tail);
            hs_proc_result_free(&r);
            goto done;
        }
        hs_proc_result_free(&r);
    }
    if (o->log)
        fprintf(o->log, "hotscan: validate: %d warm-up and %d measured runs per variant, A B B A order\n", o->warmup,
                o->runs);
    double ignored;
    for (int k = 0; k < o->warmup; k++)
        for (int i = 0; i < 2; i++)
            if (!bench_once(o, &vs[i], have_re ? &re : NULL, -(k + 1), &ignored, err))
                goto done;
    for (int k = 0; k < o->runs; k++) {
        int first = k % 2; /* A B, B A, A B, ... */
        for (int j = 0; j < 2; j++) {
            int i = j == 0 ? first : 1 - first;
            if (!bench_once(o, &vs[i], have_re ? &re : NULL, k + 1, &values[i][k], err))
                goto done;
        }
    }
    {
        size_t n = (size_t)o->runs;
        hs_sample_summary a, b;
        hs_summarize(values[0], n, &a);
        hs_summarize(values[1], n, &b);
        double ratio = a.median != 0 ? b.median / a.median : NAN, lo, hi;
        double level = 1.0 - o->alpha;
        hs_bootstrap_ratio(values[0], n, values[1], n, level, 4000, &lo, &hi);
        double p = hs_mann_whitney_p(values[0], n, values[1], n);
        bool significant = p < o->alpha && (hi < 1.0 || lo > 1.0);
        bool better = o->higher_better ? ratio > 1.0 : ratio < 1.0;
        double gain = o->higher_better ? ratio : 1.0 / ratio;
        const char *verdict = !significant ? "no significant change" : better ? "significant improvement"
                                                                               : "significant regression";
        result = json_pack("{s:s, s:s, s:b, s:i, s:i, s:s, s:o, s:o, s:f, s:[f,f], s:f, s:s, s:f, s:f, s:b, s:s, s:o}",
                           "metric", o->metric ? o->metric : o->cpu_time ? "CPU time (s)" : "wall time (s)", "unit", o->metric ? "" : "s",
                           "higher_is_better", o->higher_better, "runs", o->runs, "warmup", o->warmup,
                           "order", "A B B A (alternating pairs)", "baseline", summary_json(values[0], n),
                           "patched", summary_json(values[1], n), "ratio", ratio, "ratio_interval", lo, hi,
                           "interval_level", level, "test", "two-sided Mann-Whitney U (normal approximation, tie "
                           "and continuity corrected); interval: percentile bootstrap of the ratio of medians",
                           "p_value", p, "alpha", o->alpha, "significant", significant, "verdict", verdict,
                           "notes", json_incref(notes));
        json_object_set_new(result, "gain", json_real(gain));
    }
done:
    unsetenv("HOTSCAN_VARIANT");
    bool stale = false;
    for (int i = 0; i < 2; i++)
        stale |= !remove_variant(&vs[i], top);
    /* Prune only when one of our own entries was left stale: prune drops every stale entry
     * of the user's repository, not just ours. */
    if (top && stale) {
        char *argv[] = {"git", "-C", top, "worktree", "prune", NULL};
        hs_proc_result r;
        hs_proc_run(argv, NULL, 600, &r);
        hs_proc_result_free(&r);
    }
    if (local_diff)
        unlink(local_diff);
    free(local_diff);
    free(top);
    free(values[0]);
    free(values[1]);
    json_decref(notes);
    if (have_re)
        regfree(&re);
    return result;
}
