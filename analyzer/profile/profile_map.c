/*
 * profile_map.c - joins a read profile (profile.c) to the merged program: each frame to the
 * program's defined functions (reduced names; same-named functions told apart by the frame's
 * source file), per function its self and inclusive samples and the symbols it was seen
 * calling, profile roots by inclusive share, sampled call edges the static graph lacks; then
 * each finding's shares, low confidence for never-sampled functions, and the ranking.
 */
#include "hotscan/profile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    hs_function *f;
    unsigned long long self, incl;
    size_t stamp;          /* last stack counted in incl, + 1 */
    hs_strmap *callees;    /* normalized symbol -> samples (uintptr_t) of direct calls seen */
    hs_strmap *files;      /* the source files its frames were seen in (profiles with source lines) */
    hs_strmap *callers;    /* the program function seen calling it (name) -> samples (uintptr_t) */
} fstat;

struct hs_profile_map {
    const hs_profile *prof;
    double threshold;
    hs_strmap *stats;      /* USR -> fstat* */
    hs_strmap *by_name;    /* qualified name -> hs_vec* of defined hs_function* */
    hs_strmap *by_last;    /* its last component (inlined frames are often named so) -> the same */
    unsigned long long mapped, unmapped;
    size_t roots, sampled_edges, functions_sampled;
};

/* An API or symbol name as a key: reduced, inline namespaces (_V2, __1, __cxx11) left out,
 * libc's and the vDSO's prefixes (__GI_, __vdso_, leading underscores) and a 64 suffix
 * dropped: "__GI___clock_gettime64" and "clock_gettime" meet. */
static char *symbol_key(const char *name)
{
    char *r = hs_profile_reduce_name(name);
    hs_buf b;
    hs_buf_init(&b);
    const char *s = r;
    while (*s) {
        const char *e = strstr(s, "::");
        size_t len = e ? (size_t)(e - s) : strlen(s);
        bool inline_ns = e && ((len >= 3 && s[0] == '_' && s[1] == 'V' && s[2] >= '0' && s[2] <= '9') ||
                               (len == 3 && strncmp(s, "__1", 3) == 0) ||
                               (len == 7 && strncmp(s, "__cxx11", 7) == 0));
        if (!inline_ns) {
            hs_buf_append(&b, s, len);
            if (e)
                hs_buf_append(&b, "::", 2);
        }
        s = e ? e + 2 : s + len;
    }
    free(r);
    char *k = hs_buf_take(&b);
    if (!k)
        return hs_xstrdup("");
    char *p = k;
    for (;;) {
        if (strncmp(p, "__GI_", 5) == 0)
            p += 5;
        else if (strncmp(p, "__vdso_", 7) == 0)
            p += 7;
        else if (*p == '_' && !strchr(p, ':'))
            p++;
        else
            break;
    }
    size_t n = strlen(p);
    if (n > 2 && !strchr(p, ':') && strcmp(p + n - 2, "64") == 0)
        n -= 2;
    char *out = hs_xstrndup(p, n);
    free(k);
    return out;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* How well a profile's source file names a function's file: 0 not at all, else the length
 * of the matching tail (whole path components). */
static size_t file_match(const char *fn_file, const char *prof_file)
{
    if (!fn_file || !prof_file)
        return 0;
    size_t a = strlen(fn_file), b = strlen(prof_file);
    size_t k = 0;
    while (k < a && k < b && fn_file[a - 1 - k] == prof_file[b - 1 - k])
        k++;
    /* The match must cover the profile's base name and end at a component boundary. */
    if (k < strlen(base_name(prof_file)))
        return 0;
    if (k < a && k < b && fn_file[a - 1 - k] != '/')
        return 0;
    if (k < a && k == b && fn_file[a - 1 - k] != '/')
        return 0;
    return k;
}

/* The program functions a frame stands for: none, one, or several (overloads, or
 * same-named static functions the profile cannot tell apart). */
static void map_frame(hs_profile_map *m, const hs_profile_frame *fr, hs_vec *out)
{
    char *name = hs_profile_reduce_name(fr->name);
    hs_vec *cands = hs_strmap_get(m->by_name, name);
    /* DWARF names inlined frames without their scope ("repeat<...>"): the last component. */
    if (!cands && !strstr(name, "::"))
        cands = hs_strmap_get(m->by_last, name);
    free(name);
    if (!cands)
        return;
    if (cands->len > 1 && fr->file) {
        size_t best = 0;
        for (size_t i = 0; i < cands->len; i++) {
            size_t k = file_match(((hs_function *)cands->items[i])->file, fr->file);
            best = k > best ? k : best;
        }
        if (best) {
            for (size_t i = 0; i < cands->len; i++)
                if (file_match(((hs_function *)cands->items[i])->file, fr->file) == best)
                    hs_vec_push(out, cands->items[i]);
            return;
        }
    }
    for (size_t i = 0; i < cands->len; i++)
        hs_vec_push(out, cands->items[i]);
}

static fstat *stat_of(hs_profile_map *m, hs_function *f)
{
    fstat *s = hs_strmap_get(m->stats, f->usr);
    if (!s) {
        s = hs_xcalloc(1, sizeof *s);
        s->f = f;
        s->callees = hs_strmap_create();
        s->files = hs_strmap_create();
        s->callers = hs_strmap_create();
        hs_strmap_put(m->stats, f->usr, s);
    }
    return s;
}

static bool has_static_edge(const hs_function *caller, const hs_function *callee)
{
    for (size_t i = 0; i < caller->callees.len; i++)
        if (((const hs_call_edge *)caller->callees.items[i])->callee == callee)
            return true;
    return false;
}

hs_profile_map *hs_profile_map_program(const hs_profile *prof, hs_program *p, double threshold_pct)
{
    hs_profile_map *m = hs_xcalloc(1, sizeof *m);
    m->prof = prof;
    m->threshold = threshold_pct;
    m->stats = hs_strmap_create();
    m->by_name = hs_strmap_create();
    m->by_last = hs_strmap_create();
    for (size_t i = 0; i < p->function_list.len; i++) {
        hs_function *f = p->function_list.items[i];
        if (!f->defined || !f->name || !*f->name)
            continue;
        const char *last = strrchr(f->name, ':');
        hs_strmap *maps[2] = {m->by_name, last ? m->by_last : NULL};
        const char *keys_[2] = {f->name, last ? last + 1 : NULL};
        for (int k = 0; k < 2 && maps[k]; k++) {
            hs_vec *v = hs_strmap_get(maps[k], keys_[k]);
            if (!v) {
                v = hs_xcalloc(1, sizeof *v);
                hs_strmap_put(maps[k], keys_[k], v);
            }
            hs_vec_push(v, f);
        }
    }
    /* Each frame once: its functions, and its symbol key (for callee shares). */
    size_t nf = prof->n_frames;
    hs_vec *fmap = hs_xcalloc(nf ? nf : 1, sizeof *fmap);
    char **keys = hs_xcalloc(nf ? nf : 1, sizeof *keys);
    for (size_t i = 0; i < nf; i++)
        map_frame(m, &prof->frames[i], &fmap[i]);
    hs_strmap *edges = hs_strmap_create(); /* "callerUSR\x1f" "calleeUSR" -> samples */
    hs_strmap *edge_ends = hs_strmap_create(); /* the same key -> the callee (its caller below) */
    hs_vec edge_callers = {0};
    hs_strmap *counted = hs_strmap_create(); /* "calleeUSR\x1e" "caller name" -> stack index + 1 */
    hs_buf key;
    hs_buf_init(&key);
    for (size_t si = 0; si < prof->n_stacks; si++) {
        const hs_profile_stack *s = &prof->stacks[si];
        bool mapped = false;
        size_t below = (size_t)-1; /* the nearest mapped position towards the leaf */
        for (size_t k = 0; k < s->n; k++) {
            hs_vec *fs = &fmap[s->frames[k]];
            if (!fs->len)
                continue;
            mapped = true;
            for (size_t j = 0; j < fs->len; j++) {
                hs_function *f = fs->items[j];
                fstat *st = stat_of(m, f);
                if (k == 0)
                    st->self += s->samples;
                const char *ffile = prof->frames[s->frames[k]].file;
                if (ffile && !hs_strmap_has(st->files, ffile))
                    hs_strmap_put(st->files, ffile, NULL);
                if (st->stamp != si + 1) {
                    st->stamp = si + 1;
                    st->incl += s->samples;
                }
                /* What it was seen calling directly (mapped or not): the clock symbol, a wrapper. */
                if (k > 0) {
                    uint32_t callee_id = s->frames[k - 1];
                    if (!keys[callee_id])
                        keys[callee_id] = symbol_key(prof->frames[callee_id].name);
                    uintptr_t c = (uintptr_t)hs_strmap_get(st->callees, keys[callee_id]);
                    hs_strmap_put(st->callees, keys[callee_id], (void *)(c + s->samples));
                }
                /* A sampled call edge to the nearest program frame below. */
                if (below != (size_t)-1) {
                    hs_vec *cs = &fmap[s->frames[below]];
                    for (size_t c = 0; c < cs->len; c++) {
                        hs_function *callee = cs->items[c];
                        if (callee == f)
                            continue;
                        fstat *cst = stat_of(m, callee);
                        /* Once per sample: a frame that maps to two functions of one name,
                         * or recursion, must not count a caller twice. */
                        key.len = 0;
                        hs_buf_puts(&key, callee->usr);
                        hs_buf_append(&key, "\x1e", 1);
                        hs_buf_puts(&key, f->name);
                        if ((uintptr_t)hs_strmap_get(counted, key.data) != si + 1) {
                            hs_strmap_put(counted, key.data, (void *)(uintptr_t)(si + 1));
                            uintptr_t nc = (uintptr_t)hs_strmap_get(cst->callers, f->name);
                            hs_strmap_put(cst->callers, f->name, (void *)(nc + s->samples));
                        }
                        key.len = 0;
                        hs_buf_puts(&key, f->usr);
                        hs_buf_append(&key, "\x1f", 1);
                        hs_buf_puts(&key, callee->usr);
                        uintptr_t n = (uintptr_t)hs_strmap_get(edges, key.data);
                        if (!n) {
                            hs_strmap_put(edge_ends, key.data, callee);
                            hs_vec_push(&edge_callers, f);
                            hs_vec_push(&edge_callers, (void *)hs_strmap_key(edge_ends, key.data));
                        }
                        hs_strmap_put(edges, key.data, (void *)(n + s->samples));
                    }
                }
            }
            below = k;
        }
        if (mapped)
            m->mapped += s->samples;
        else
            m->unmapped += s->samples;
    }
    /* Roots by inclusive share; sampled edges the static graph lacks. */
    const char *k;
    void *v;
    for (size_t it = 0; hs_strmap_next(m->stats, &it, &k, &v);) {
        fstat *st = v;
        m->functions_sampled++;
        if (prof->samples && 100.0 * (double)st->incl / (double)prof->samples >= threshold_pct) {
            st->f->profile_root = true;
            m->roots++;
        }
    }
    for (size_t i = 0; i + 1 < edge_callers.len; i += 2) {
        hs_function *caller = edge_callers.items[i];
        const char *ekey = edge_callers.items[i + 1];
        hs_function *callee = hs_strmap_get(edge_ends, ekey);
        if (has_static_edge(caller, callee))
            continue;
        hs_call_edge *e = hs_program_add_call(p, caller, callee, caller->file, caller->line, caller->column, false);
        e->sampled = true;
        e->samples = (uintptr_t)hs_strmap_get(edges, ekey);
        m->sampled_edges++;
    }
    hs_vec_free(&edge_callers);
    hs_strmap_delete(counted);
    hs_strmap_delete(edges);
    hs_strmap_delete(edge_ends);
    hs_buf_free(&key);
    for (size_t i = 0; i < nf; i++) {
        hs_vec_free(&fmap[i]);
        free(keys[i]);
    }
    free(fmap);
    free(keys);
    return m;
}

void hs_profile_map_delete(hs_profile_map *m)
{
    if (!m)
        return;
    const char *k;
    void *v;
    for (size_t it = 0; hs_strmap_next(m->stats, &it, &k, &v);) {
        fstat *st = v;
        hs_strmap_delete(st->callees);
        hs_strmap_delete(st->files);
        hs_strmap_delete(st->callers);
        free(st);
    }
    hs_strmap_delete(m->stats);
    for (size_t it = 0; hs_strmap_next(m->by_name, &it, &k, &v);) {
        hs_vec_free(v);
        free(v);
    }
    hs_strmap_delete(m->by_name);
    for (size_t it = 0; hs_strmap_next(m->by_last, &it, &k, &v);) {
        hs_vec_free(v);
        free(v);
    }
    hs_strmap_delete(m->by_last);
    free(m);
}

/* A share in percent, rounded to 0.01 so reports are stable. */
static double pct(unsigned long long n, unsigned long long total)
{
    return total ? round(10000.0 * (double)n / (double)total) / 100.0 : 0;
}

/* The finding's function: by name, the one defined in the finding's file when several are
 * (the finding's file is relative to --root, the function's is as the database names it:
 * compared by whole trailing path components). */
static fstat *finding_stat(hs_profile_map *m, json_t *finding, bool *known)
{
    const char *name = json_string_value(json_object_get(finding, "function"));
    const char *file = json_string_value(json_object_get(finding, "file"));
    *known = false;
    hs_vec *cands = name ? hs_strmap_get(m->by_name, name) : NULL;
    if (!cands)
        return NULL;
    *known = true;
    if (cands->len == 1)
        return hs_strmap_get(m->stats, ((hs_function *)cands->items[0])->usr);
    size_t best_match = 0;
    fstat *by_file = NULL, *best = NULL;
    for (size_t i = 0; i < cands->len; i++) {
        hs_function *f = cands->items[i];
        fstat *st = hs_strmap_get(m->stats, f->usr);
        size_t k = file ? file_match(f->file, file) : 0;
        if (k > best_match) {
            best_match = k;
            by_file = st;
        }
        if (st && (!best || st->incl > best->incl))
            best = st;
    }
    return best_match ? by_file : best;
}

/* Whether the profile saw the function's code in the finding's file: always when it has no
 * source files for it (folded stacks, --no-srcline). Functions of one name and USR in several
 * programs of a tree (each program's main) are one function to hotscan; the file tells
 * which body was sampled. */
static bool sampled_in_file(const fstat *st, const char *file)
{
    if (!file || hs_strmap_size(st->files) == 0)
        return true;
    const char *k;
    void *v;
    for (size_t it = 0; hs_strmap_next(st->files, &it, &k, &v);)
        if (file_match(file, k))
            return true;
    return false;
}

/* The (up to) three program functions seen calling it most: [{"function", "share",
 * "samples"}], most first; a function that is a hot root by its own inclusive share (ustime)
 * is hot because of who calls it, and this says who (call). */
static json_t *top_callers(const fstat *st, unsigned long long total)
{
    const char *best[3] = {NULL, NULL, NULL};
    uintptr_t n[3] = {0, 0, 0};
    const char *k;
    void *v;
    for (size_t it = 0; hs_strmap_next(st->callers, &it, &k, &v);) {
        uintptr_t c = (uintptr_t)v;
        for (int i = 0; i < 3; i++) {
            if (!best[i] || c > n[i] || (c == n[i] && strcmp(k, best[i]) < 0)) {
                for (int j = 2; j > i; j--) {
                    best[j] = best[j - 1];
                    n[j] = n[j - 1];
                }
                best[i] = k;
                n[i] = c;
                break;
            }
        }
    }
    json_t *a = json_array();
    for (int i = 0; i < 3 && best[i]; i++)
        json_array_append_new(a, json_pack("{s:s, s:f, s:I}", "function", best[i], "share", pct(n[i], total),
                                           "samples", (json_int_t)n[i]));
    return a;
}

void hs_profile_annotate(hs_profile_map *m, json_t *findings, bool keep_unsampled)
{
    unsigned long long total = m->prof->samples;
    size_t i;
    json_t *finding;
    json_array_foreach(findings, i, finding) {
        bool known;
        fstat *st = finding_stat(m, finding, &known);
        const char *file = json_string_value(json_object_get(finding, "file"));
        /* Sampled, but only in another file: that body (another program's main) never was. */
        bool other_file = st && st->incl > 0 && !sampled_in_file(st, file);
        if (other_file)
            st = NULL;
        json_t *prof = json_object();
        unsigned long long self = st ? st->self : 0, incl = st ? st->incl : 0;
        json_object_set_new(prof, "sampled", json_boolean(incl > 0));
        json_object_set_new(prof, "self", json_real(pct(self, total)));
        json_object_set_new(prof, "inclusive", json_real(pct(incl, total)));
        json_object_set_new(prof, "self_samples", json_integer((json_int_t)self));
        json_object_set_new(prof, "inclusive_samples", json_integer((json_int_t)incl));
        double share = pct(self, total);
        const char *api = json_string_value(json_object_get(finding, "api"));
        uintptr_t symbol_samples = 0;
        if (api && st) {
            char *want = symbol_key(api);
            symbol_samples = (uintptr_t)hs_strmap_get(st->callees, want);
            /* The call's own share; 0 when the profile never saw the function make it. */
            json_object_set_new(prof, "symbol", json_string(api));
            json_object_set_new(prof, "symbol_share", json_real(pct(symbol_samples, total)));
            json_object_set_new(prof, "symbol_samples", json_integer((json_int_t)symbol_samples));
            share = pct(symbol_samples, total);
            free(want);
        }
        json_object_set_new(prof, "share", json_real(share));
        if (st)
            json_object_set_new(prof, "callers", top_callers(st, total));
        /* What was never sampled: the function (or its body in this file), or, in a function
         * sampled only in what it calls, the call and the function's own code (a start-up
         * read in main, which is hot by inclusive share alone). Either is low unless
         * --keep-unsampled. A call never sampled in a function whose own code was (time() in
         * trx_start_low: cheap beside clock()) keeps its confidence and ranks by its 0. */
        const char *unsampled = incl == 0                                ? (other_file ? "file" : "function")
                                : api && symbol_samples == 0 && self == 0 ? "call"
                                                                          : NULL;
        const char *fn = json_string_value(json_object_get(finding, "function"));
        if (unsampled && fn && *fn) {
            json_object_set_new(prof, "unsampled", json_string(unsampled));
            const char *c = json_string_value(json_object_get(finding, "confidence"));
            if (!keep_unsampled && c && strcmp(c, "low") != 0) {
                json_object_set_new(prof, "confidence_was", json_string(c));
                json_object_set_new(finding, "confidence", json_string("low"));
            }
        }
        json_object_set_new(finding, "profile", prof);
    }
}

json_t *hs_profile_summary(const hs_profile_map *m)
{
    return json_pack("{s:s, s:s, s:I, s:I, s:I, s:f, s:f, s:I, s:I, s:I}", "file", m->prof->path, "format",
                     hs_profile_format_name(m->prof->format), "samples", (json_int_t)m->prof->samples,
                     "mapped", (json_int_t)m->mapped, "unmapped", (json_int_t)m->unmapped,
                     "mapped_share", pct(m->mapped, m->prof->samples), "threshold", m->threshold,
                     "roots", (json_int_t)m->roots, "functions_sampled", (json_int_t)m->functions_sampled,
                     "sampled_edges", (json_int_t)m->sampled_edges);
}

static double share_of(json_t *finding)
{
    json_t *p = json_object_get(finding, "profile");
    return p ? json_number_value(json_object_get(p, "share")) : -1;
}

static double inclusive_of(json_t *finding)
{
    json_t *p = json_object_get(finding, "profile");
    return p ? json_number_value(json_object_get(p, "inclusive")) : -1;
}

void hs_findings_rank_by_profile(json_t *findings)
{
    /* Insertion sort: stable, and reports are small. */
    size_t n = json_array_size(findings);
    json_t **items = hs_xcalloc(n ? n : 1, sizeof *items);
    for (size_t i = 0; i < n; i++)
        items[i] = json_incref(json_array_get(findings, i));
    for (size_t i = 1; i < n; i++) {
        json_t *x = items[i];
        double s = share_of(x), in = inclusive_of(x);
        size_t j = i;
        while (j > 0 && (share_of(items[j - 1]) < s ||
                         (share_of(items[j - 1]) == s && inclusive_of(items[j - 1]) < in))) {
            items[j] = items[j - 1];
            j--;
        }
        items[j] = x;
    }
    json_array_clear(findings);
    for (size_t i = 0; i < n; i++) {
        json_t *p = json_object_get(items[i], "profile");
        if (p)
            json_object_set_new(p, "rank", json_integer((json_int_t)i + 1));
        json_array_append_new(findings, items[i]);
    }
    free(items);
}
