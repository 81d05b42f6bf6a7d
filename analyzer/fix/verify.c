/*
 * verify.c - the fix stage (verify.h): applies fixes' edits to the scanned files in memory
 * and reparses the TU with them, keeping only fixes that add no compile error.
 *
 * One reparse per TU, not per fix: a TU's fixes whose edits do not overlap are checked
 * together (issue 10: on perfschema, one reparse per fix made the fix stage 50 s for a TU
 * that parses in 1.1 s). A group that adds an error is split in halves and each half
 * checked again, down to the one fix to blame, so a bad fix costs about 2 log2(n) extra
 * reparses of its TU and the good ones are still kept. With the facts cache on, each
 * reparse's verdict is kept (facts_cache.c) and an unchanged rerun reparses nothing.
 */
#define _GNU_SOURCE
#include "hotscan/verify.h"

#include <stdlib.h>
#include <string.h>

#include "hotscan/common.h"
#include "hotscan/edits.h"
#include "hotscan/facts_cache.h"
#include "hotscan/strmap.h"

/* One edit as verification reads it. */
typedef struct {
    const char *file, *replacement;
    size_t offset, length;
} edit_view;

static edit_view view_of(json_t *e)
{
    edit_view v = {json_string_value(json_object_get(e, "file")),
                   json_string_value(json_object_get(e, "replacement")),
                   (size_t)json_integer_value(json_object_get(e, "offset")),
                   (size_t)json_integer_value(json_object_get(e, "length"))};
    return v;
}

static bool same_edit(const edit_view *a, const edit_view *b)
{
    return strcmp(a->file, b->file) == 0 && a->offset == b->offset && a->length == b->length &&
           strcmp(a->replacement, b->replacement) == 0;
}

/* Two different edits of one place: both replace bytes they share, or both insert at one
 * offset (their order would be a guess). The same edit twice is not a conflict. */
static bool edits_conflict(const edit_view *a, const edit_view *b)
{
    if (strcmp(a->file, b->file) != 0 || same_edit(a, b))
        return false;
    if (a->offset == b->offset)
        return true;
    return a->offset < b->offset + b->length && b->offset < a->offset + a->length;
}

static int by_offset(const void *pa, const void *pb)
{
    const edit_view *a = pa, *b = pb;
    return a->offset < b->offset ? -1 : a->offset > b->offset ? 1 : 0;
}

/* Applies the edits of `edits` (json edit objects) that are for `file` to its content;
 * identical edits once. NULL when they overlap or run past the end. */
static char *apply_edits_to(const char *content, size_t size, json_t *const *edits, size_t nedits,
                            const char *file)
{
    edit_view *mine = hs_xcalloc(nedits ? nedits : 1, sizeof *mine);
    size_t n = 0;
    for (size_t i = 0; i < nedits; i++) {
        edit_view v = view_of(edits[i]);
        if (!v.file || !v.replacement || strcmp(v.file, file) != 0)
            continue;
        bool dup = false;
        for (size_t k = 0; k < n && !dup; k++)
            dup = same_edit(&mine[k], &v);
        if (!dup)
            mine[n++] = v;
    }
    qsort(mine, n, sizeof *mine, by_offset);
    hs_buf out;
    hs_buf_init(&out);
    size_t pos = 0;
    bool ok = true;
    for (size_t k = 0; k < n && ok; k++) {
        ok = mine[k].offset >= pos && mine[k].offset + mine[k].length <= size &&
             (k == 0 || mine[k].offset != mine[k - 1].offset);
        if (!ok)
            break;
        hs_buf_append(&out, content + pos, mine[k].offset - pos);
        hs_buf_puts(&out, mine[k].replacement);
        pos = mine[k].offset + mine[k].length;
    }
    free(mine);
    if (ok)
        hs_buf_append(&out, content + pos, size - pos);
    char *r = hs_buf_take(&out);
    if (!ok) {
        free(r);
        return NULL;
    }
    return r;
}

/* A fix as the stage tracks it. */
typedef struct {
    json_t *fix;     /* the finding's fix object: gets "verified" or "rejected" */
    size_t tu;       /* the TU that saw the finding: where it is reparsed */
    hs_vec edits;    /* its json edit objects (borrowed) */
} pending_fix;

/* Fixes of one TU checked by one reparse. */
typedef struct {
    size_t tu;
    hs_vec fixes;    /* pending_fix* */
} fix_group;

/* The file's content as read, cached; a json string, or json null when unreadable. */
static json_t *content_of(hs_strmap *contents, const char *file)
{
    json_t *content = hs_strmap_get(contents, file);
    if (!content) {
        size_t size = 0;
        char *text = hs_read_file(file, &size);
        content = text ? json_stringn(text, size) : json_null();
        hs_strmap_put(contents, file, content);
        free(text);
    }
    return content;
}

/* The unsaved files for a group: each file it edits, with all its fixes' edits applied.
 * NULL with *why when a file cannot be read or the edits cannot be applied. */
static json_t *group_unsaved(hs_strmap *contents, const fix_group *g, const char **why)
{
    hs_vec all = {0};
    for (size_t i = 0; i < g->fixes.len; i++) {
        const pending_fix *p = g->fixes.items[i];
        for (size_t k = 0; k < p->edits.len; k++)
            hs_vec_push(&all, p->edits.items[k]);
    }
    json_t *unsaved = json_array();
    hs_strmap *done = hs_strmap_create();
    for (size_t i = 0; i < all.len && unsaved; i++) {
        const char *file = json_string_value(json_object_get(all.items[i], "file"));
        if (!file || hs_strmap_has(done, file))
            continue;
        hs_strmap_put(done, file, (void *)1);
        json_t *content = content_of(contents, file);
        char *changed = json_is_string(content)
                            ? apply_edits_to(json_string_value(content), json_string_length(content),
                                             (json_t *const *)all.items, all.len, file)
                            : NULL;
        if (!changed) {
            *why = json_is_string(content) ? "its edits could not be applied to the file as read"
                                           : "a file it edits could not be read";
            json_decref(unsaved);
            unsaved = NULL;
            break;
        }
        json_array_append_new(unsaved, json_pack("{s:s, s:s%}", "file", file, "content", changed, strlen(changed)));
        free(changed);
    }
    hs_strmap_delete(done);
    hs_vec_free(&all);
    return unsaved;
}

static bool conflicts_with_group(const fix_group *g, const pending_fix *p)
{
    for (size_t i = 0; i < g->fixes.len; i++) {
        const pending_fix *q = g->fixes.items[i];
        for (size_t a = 0; a < p->edits.len; a++) {
            edit_view ea = view_of(p->edits.items[a]);
            for (size_t b = 0; b < q->edits.len; b++) {
                edit_view eb = view_of(q->edits.items[b]);
                if (edits_conflict(&ea, &eb))
                    return true;
            }
        }
    }
    return false;
}

static fix_group *group_new(size_t tu)
{
    fix_group *g = hs_xcalloc(1, sizeof *g);
    g->tu = tu;
    return g;
}

static void group_delete(fix_group *g)
{
    hs_vec_free(&g->fixes);
    free(g);
}

static void reject(pending_fix *p, const char *why)
{
    json_object_set_new(p->fix, "verified", json_false());
    json_object_set_new(p->fix, "rejected", json_string(why));
}

/* Each fix into the first group of its TU it does not conflict with, in finding order.
 * `one_each`: a group per fix, as before issue 10 (bench/fix_cost.py compares the two). */
static void group_fixes(hs_vec *fixes, hs_vec *groups, bool one_each)
{
    for (size_t i = 0; i < fixes->len; i++) {
        pending_fix *p = fixes->items[i];
        fix_group *into = NULL;
        for (size_t k = 0; k < groups->len && !into && !one_each; k++) {
            fix_group *g = groups->items[k];
            if (g->tu == p->tu && !conflicts_with_group(g, p))
                into = g;
        }
        if (!into) {
            into = group_new(p->tu);
            hs_vec_push(groups, into);
        }
        hs_vec_push(&into->fixes, p);
    }
}

/* The group's fixes as two groups of its TU, first half and second, onto `next`. */
static void split_in_halves(const fix_group *g, hs_vec *next)
{
    size_t half = g->fixes.len / 2;
    fix_group *a = group_new(g->tu), *b = group_new(g->tu);
    for (size_t k = 0; k < g->fixes.len; k++)
        hs_vec_push(k < half ? &a->fixes : &b->fixes, g->fixes.items[k]);
    hs_vec_push(next, a);
    hs_vec_push(next, b);
}

/* Reparses every group once, all at a time in the worker pool. Groups that pass verify
 * their fixes; a failing group of one rejects its fix; larger failing groups come back
 * in `next` as two halves. */
static void verify_round(hs_vec *groups, hs_vec *next, hs_strmap *contents, hs_tu_input **tus,
                         const int *baseline, const hs_pool_options *pool, FILE *log, size_t *reparses,
                         size_t *from_cache)
{
    hs_verify_job *jobs = hs_xcalloc(groups->len ? groups->len : 1, sizeof *jobs);
    fix_group **sent = hs_xcalloc(groups->len ? groups->len : 1, sizeof *sent);
    size_t n = 0;
    for (size_t i = 0; i < groups->len; i++) {
        fix_group *g = groups->items[i];
        const char *why = NULL;
        json_t *unsaved = group_unsaved(contents, g, &why);
        if (!unsaved && g->fixes.len > 1) {
            /* One fix's edits do not apply: find it the same way as a compile error. */
            split_in_halves(g, next);
            group_delete(g);
            continue;
        }
        if (!unsaved) {
            reject(g->fixes.items[0], why);
            group_delete(g);
            continue;
        }
        jobs[n].tu = g->tu;
        jobs[n].unsaved = unsaved;
        sent[n++] = g;
    }
    if (n) {
        hs_tu_result *results = hs_xcalloc(n, sizeof *results);
        /* Verdicts kept by the facts cache (an unchanged rerun) are not reparsed. */
        hs_verify_job *misses = hs_xcalloc(n, sizeof *misses);
        size_t *miss_of = hs_xcalloc(n, sizeof *miss_of), nmiss = 0;
        for (size_t j = 0; j < n; j++) {
            results[j].facts = hs_facts_cache_verdict_get(pool->cache, tus[jobs[j].tu], pool->root, jobs[j].unsaved);
            if (results[j].facts) {
                ++*from_cache;
                continue;
            }
            miss_of[nmiss] = j;
            misses[nmiss++] = jobs[j];
        }
        hs_tu_result *fresh = hs_xcalloc(nmiss ? nmiss : 1, sizeof *fresh);
        char *err = NULL;
        hs_pool_options o = *pool;
        o.progress = false;
        long long parse_start = hs_facts_cache_clock();
        if (nmiss && !hs_verify_all(tus, misses, nmiss, &o, fresh, &err)) {
            fprintf(log, "hotscan: warning: fix-its could not be verified: %s\n", err);
            free(err);
        }
        *reparses += nmiss;
        for (size_t m = 0; m < nmiss; m++) {
            size_t j = miss_of[m];
            results[j] = fresh[m];
            if (results[j].facts) {
                hs_facts_cache_verdict_put(pool->cache, tus[jobs[j].tu], pool->root, jobs[j].unsaved,
                                           results[j].facts, parse_start);
                json_object_del(results[j].facts, "inputs");
            }
        }
        free(fresh);
        free(misses);
        free(miss_of);
        for (size_t j = 0; j < n; j++) {
            fix_group *g = sent[j];
            json_t *r = results[j].facts;
            bool passed = r && json_integer_value(json_object_get(r, "errors")) <= baseline[g->tu];
            if (passed) {
                for (size_t k = 0; k < g->fixes.len; k++)
                    json_object_set_new(((pending_fix *)g->fixes.items[k])->fix, "verified", json_true());
            } else if (g->fixes.len == 1 || !r) {
                /* A worker that failed (timeout, memory) fails every fix it held: retrying
                 * halves would cost as much again for the same answer. */
                char *why = r ? hs_printf("the edit would add a compile error: %s",
                                          json_string_value(json_object_get(r, "first")))
                              : hs_printf("it could not be verified: %s",
                                          results[j].error ? results[j].error : "no result");
                for (size_t k = 0; k < g->fixes.len; k++)
                    reject(g->fixes.items[k], why);
                free(why);
            } else {
                split_in_halves(g, next);
            }
            json_decref(r);
            free(results[j].error);
            json_decref(jobs[j].unsaved);
            group_delete(g);
        }
        free(results);
    }
    free(jobs);
    free(sent);
}

/*
 * Verifies every fix by reparsing the TU that saw its finding with the fix's edits
 * applied in memory: a fix that adds a compile error is dropped, and the finding says
 * why. Also records each edited file's content hash in the report's "files" map, so
 * `hotscan apply` can refuse files that changed since.
 */
void hs_fix_verify(json_t *findings, hs_tu_input **tus, const int *baseline, const hs_pool_options *pool,
                   json_t *files_map, const char *root, FILE *log)
{
    hs_strmap *contents = hs_strmap_create(); /* absolute path -> json string (content) */
    hs_vec fixes = {0};                       /* pending_fix* */
    size_t i;
    json_t *f;
    json_array_foreach(findings, i, f) {
        json_t *tu = json_object_get(f, "tu_index");
        size_t k;
        json_t *fix;
        json_array_foreach(json_object_get(f, "fixes"), k, fix) {
            if (!json_is_integer(tu)) {
                json_object_set_new(fix, "verified", json_false());
                json_object_set_new(fix, "rejected", json_string("it could not be verified: no TU saw it"));
                continue;
            }
            pending_fix *p = hs_xcalloc(1, sizeof *p);
            p->fix = fix;
            p->tu = (size_t)json_integer_value(tu);
            size_t e;
            json_t *edit;
            json_array_foreach(json_object_get(fix, "edits"), e, edit) hs_vec_push(&p->edits, edit);
            hs_vec_push(&fixes, p);
        }
    }
    /* bench/fix_cost.py only: no verification at all (the fixes stay unverified), or one
     * reparse per fix. */
    hs_vec none = {0}, groups = {0};
    group_fixes(getenv("HOTSCAN_BENCH_NO_VERIFY") ? &none : &fixes, &groups,
                getenv("HOTSCAN_BENCH_VERIFY_PER_FIX") != NULL);
    size_t reparses = 0, rounds = 0, from_cache = 0;
    double cpu_before = hs_cpu_seconds_with_children();
    while (groups.len) {
        hs_vec next = {0};
        verify_round(&groups, &next, contents, tus, baseline, pool, log, &reparses, &from_cache);
        hs_vec_free(&groups);
        groups = next;
        rounds++;
    }
    /* bench/fix_cost.py and tests/cli: how much the stage reparsed, appended to a file. */
    const char *stats = getenv("HOTSCAN_BENCH_VERIFY_STATS");
    FILE *sf = stats && stats[0] ? fopen(stats, "a") : NULL;
    if (sf) {
        /* The stage's CPU: this process's and its reparsing workers' (reaped by now). */
        fprintf(sf, "verify: %zu fix-its, %zu reparses in %zu rounds, %zu verdicts from the facts cache, %.2f CPU-s\n",
                fixes.len, reparses, rounds, from_cache, hs_cpu_seconds_with_children() - cpu_before);
        fclose(sf);
    }
    for (size_t k = 0; k < fixes.len; k++) {
        pending_fix *p = fixes.items[k];
        hs_vec_free(&p->edits);
        free(p);
    }
    hs_vec_free(&fixes);
    /* Drop rejected fixes from the findings, keeping the reason on the finding. */
    json_array_foreach(findings, i, f) {
        json_t *fixlist = json_object_get(f, "fixes");
        for (size_t k = json_array_size(fixlist); k-- > 0;) {
            json_t *fix = json_array_get(fixlist, k);
            json_t *rejected = json_object_get(fix, "rejected");
            if (rejected) {
                json_object_set(f, "fix_unavailable", rejected);
                json_array_remove(fixlist, k);
                continue;
            }
            size_t e;
            json_t *edit;
            json_array_foreach(json_object_get(fix, "edits"), e, edit) {
                const char *file = json_string_value(json_object_get(edit, "file"));
                json_t *content = file ? hs_strmap_get(contents, file) : NULL;
                if (!json_is_string(content))
                    continue;
                char *rel = hs_path_relative(root, file);
                char *hash = hs_content_hash(json_string_value(content), json_string_length(content));
                json_object_set_new(files_map, rel, json_pack("{s:s, s:i}", "hash", hash, "size",
                                                              (json_int_t)json_string_length(content)));
                free(hash);
                free(rel);
            }
        }
        json_object_del(f, "tu_index");
    }
    const char *key;
    void *value;
    for (size_t it = 0; hs_strmap_next(contents, &it, &key, &value);)
        json_decref(value);
    hs_strmap_delete(contents);
}
