/*
 * edits.c - edit plans from a report's verified fixes, and writing them safely (see edits.h).
 *
 * Building a plan is where every safety rule of `hotscan apply` lives, so that the patch
 * writer, the export-fixes writer and `scan --fix` agree with it: each edit's path must
 * resolve to a regular file under the root; identical edits (same real file, offset, length
 * and text) count once however many findings, TUs or symlinked paths reach them; different
 * edits that overlap are all refused; a file whose hash or size differs from the report's
 * "files" map is refused whole; and a fix is all or nothing.
 */
#define _GNU_SOURCE
#include "hotscan/edits.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hotscan/strmap.h"
#include "hotscan/tempfiles.h"

char *hs_content_hash(const char *data, size_t size)
{
    return hs_printf("%016llx", hs_hash64(data, size, 0));
}

/* ---- building a plan ---- */

typedef struct file_group file_group;

/* The first verified fix of one finding. */
typedef struct {
    size_t finding_index;
    const char *fingerprint;   /* borrowed; NULL when the finding has none */
    char *label;               /* "finding <fingerprint>" or "finding #i" */
    size_t edit_count;
    bool refused;
} fix_rec;

/* One edit as the report gives it, resolved to a file group when its path resolved. */
typedef struct {
    fix_rec *fix;
    const char *written;       /* the path as written in the report (borrowed) */
    file_group *group;         /* NULL when the path did not resolve under the root */
    size_t offset, length;
    const char *replacement;   /* borrowed from the report */
    bool conflict;
} cand;

struct file_group {
    char *real_path;
    char *rel_path;
    hs_vec names;              /* char*: every spelling the report used for this file */
    char *content;
    size_t size;
    bool refused;              /* unreadable or changed since the scan */
    bool digest;               /* the report's "files" map holds its hash */
    hs_vec cands;              /* cand* */
};

typedef struct {
    json_t *report;
    const char *root;          /* as written in the report */
    hs_edit_plan *plan;
    hs_strmap *groups;         /* real path -> file_group* */
    hs_vec group_list;         /* file_group*, in order of first use */
    hs_vec fixes;              /* fix_rec* */
    hs_vec cands;              /* cand* */
} builder;

static void problem(hs_edit_plan *plan, char *message)
{
    hs_vec_push(&plan->problems, message);
}

static const char *fix_scope(const fix_rec *fix)
{
    return fix->edit_count > 1 ? "none of the edits of its fix were applied"
                               : "its fix was not applied";
}

static void add_name(file_group *g, const char *name)
{
    for (size_t i = 0; i < g->names.len; i++)
        if (strcmp(g->names.items[i], name) == 0)
            return;
    hs_vec_push(&g->names, hs_xstrdup(name));
}

/* The group for a real path, created (and its file read) on first use. */
static file_group *group_for(builder *b, const char *real_path, const char *written)
{
    file_group *g = hs_strmap_get(b->groups, real_path);
    if (g) {
        add_name(g, written);
        return g;
    }
    g = hs_xcalloc(1, sizeof *g);
    g->real_path = hs_xstrdup(real_path);
    g->rel_path = hs_path_relative(b->plan->root, real_path);
    add_name(g, written);
    g->content = hs_read_file(real_path, &g->size);
    if (!g->content) {
        problem(b->plan, hs_printf("%s: cannot read it (%s); its edits were not applied", written,
                                   strerror(errno)));
        g->refused = true;
    }
    hs_strmap_put(b->groups, real_path, g);
    hs_vec_push(&b->group_list, g);
    return g;
}

static bool size_value(json_t *v, size_t *out)
{
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return false;
    *out = (size_t)json_integer_value(v);
    return true;
}

/* Resolves one edit of a fix; refuses the fix when the edit is malformed or leads outside. */
static void add_edit(builder *b, fix_rec *fix, json_t *edit, size_t k)
{
    const char *file = json_string_value(json_object_get(edit, "file"));
    const char *replacement = json_string_value(json_object_get(edit, "replacement"));
    size_t offset, length;
    if (!file || !file[0] || !replacement || !size_value(json_object_get(edit, "offset"), &offset) ||
        !size_value(json_object_get(edit, "length"), &length)) {
        problem(b->plan, hs_printf("%s: edit %zu of the fix for %s is malformed (it needs file, "
                                   "offset, length and replacement); %s",
                                   file && file[0] ? file : "(no file)", k + 1, fix->label,
                                   fix_scope(fix)));
        fix->refused = true;
        return;
    }
    cand *c = hs_xcalloc(1, sizeof *c);
    c->fix = fix;
    c->written = file;
    c->offset = offset;
    c->length = length;
    c->replacement = replacement;
    hs_vec_push(&b->cands, c);

    char *joined = hs_path_join(b->root, file);
    char *real = hs_realpath(joined);
    int saved = errno;
    free(joined);
    if (!real) {
        problem(b->plan, hs_printf("%s: cannot resolve it under the root (%s); %s (%s)", file,
                                   strerror(saved), fix_scope(fix), fix->label));
        fix->refused = true;
        return;
    }
    if (!hs_path_is_under(b->plan->root, real)) {
        problem(b->plan, hs_printf("%s: outside the root %s (it resolves to %s); %s (%s)", file,
                                   b->plan->root, real, fix_scope(fix), fix->label));
        fix->refused = true;
        free(real);
        return;
    }
    struct stat st;
    if (stat(real, &st) != 0 || !S_ISREG(st.st_mode)) {
        problem(b->plan, hs_printf("%s: not a regular file; %s (%s)", file, fix_scope(fix),
                                   fix->label));
        fix->refused = true;
        free(real);
        return;
    }
    c->group = group_for(b, real, file);
    hs_vec_push(&c->group->cands, c);
    free(real);
}

/* The first verified fix of each finding, with its edits resolved. */
static void collect_fixes(builder *b, json_t *findings)
{
    size_t i;
    json_t *finding;
    json_array_foreach(findings, i, finding) {
        json_t *chosen = NULL;
        size_t j;
        json_t *fix;
        json_array_foreach(json_object_get(finding, "fixes"), j, fix) {
            if (json_is_true(json_object_get(fix, "verified"))) {
                chosen = fix;
                break;
            }
        }
        if (!chosen)
            continue;
        json_t *edits = json_object_get(chosen, "edits");
        fix_rec *rec = hs_xcalloc(1, sizeof *rec);
        rec->finding_index = i;
        rec->fingerprint = json_string_value(json_object_get(finding, "fingerprint"));
        rec->label = rec->fingerprint ? hs_printf("finding %s", rec->fingerprint)
                                      : hs_printf("finding #%zu", i + 1);
        rec->edit_count = json_array_size(edits);
        hs_vec_push(&b->fixes, rec);
        size_t k;
        json_t *edit;
        json_array_foreach(edits, k, edit)
            add_edit(b, rec, edit, k);
    }
}

/* Refuses a file whose hash or size differs from what the report's "files" map recorded. */
static void check_unchanged(builder *b, file_group *g, json_t *files)
{
    if (g->refused || !json_is_object(files))
        return;
    char *hash = NULL;
    for (size_t i = 0; i <= g->names.len && !g->refused; i++) {
        const char *name = i < g->names.len ? g->names.items[i] : g->rel_path;
        json_t *entry = json_object_get(files, name);
        if (!json_is_object(entry))
            continue;
        const char *want = json_string_value(json_object_get(entry, "hash"));
        if (want)
            g->digest = true;
        size_t want_size;
        bool has_size = size_value(json_object_get(entry, "size"), &want_size);
        if (!hash)
            hash = hs_content_hash(g->content, g->size);
        if ((want && strcmp(want, hash) != 0) || (has_size && want_size != g->size)) {
            problem(b->plan, hs_printf("%s: changed since the scan (hash %s, %zu bytes then; %s, "
                                       "%zu bytes now); its edits were not applied: rescan",
                                       name, want ? want : "?", has_size ? want_size : g->size,
                                       hash, g->size));
            hs_vec_push(&b->plan->stale, hs_xstrdup(name));
            g->refused = true;
        }
    }
    free(hash);
}

static int compare_cands(const void *pa, const void *pb)
{
    const cand *a = *(cand *const *)pa, *b = *(cand *const *)pb;
    if (a->offset != b->offset)
        return a->offset < b->offset ? -1 : 1;
    if (a->length != b->length)
        return a->length < b->length ? -1 : 1;
    int c = strcmp(a->replacement, b->replacement);
    if (c)
        return c;
    if (a->fix->finding_index != b->fix->finding_index)
        return a->fix->finding_index < b->fix->finding_index ? -1 : 1;
    return 0;
}

static bool same_edit(const cand *a, const cand *b)
{
    return a->offset == b->offset && a->length == b->length &&
           strcmp(a->replacement, b->replacement) == 0;
}

/*
 * Sorted by offset (insertions first), does `later` collide with `first`? They collide when
 * they share a byte, when an insertion falls strictly inside a replaced range, or when two
 * different insertions go to the same place (their order would be a guess).
 */
static bool collide(const cand *first, const cand *later)
{
    if (first->length == 0)
        return later->length == 0 && later->offset == first->offset;
    return later->offset < first->offset + first->length &&
           (later->length > 0 || later->offset > first->offset);
}

static char *describe(const cand *c)
{
    if (c->length == 0)
        return hs_printf("the insertion at byte %zu (%s)", c->offset, c->fix->label);
    return hs_printf("the edit of bytes %zu-%zu (%s)", c->offset, c->offset + c->length,
                     c->fix->label);
}

/* Edits beyond the end of the file, then overlapping different edits: their fixes refused. */
static void check_edits(builder *b, file_group *g)
{
    hs_vec live = {0};
    for (size_t i = 0; i < g->cands.len; i++) {
        cand *c = g->cands.items[i];
        if (g->refused) {
            c->fix->refused = true;
            continue;
        }
        if (c->fix->refused)
            continue;
        if (c->offset > g->size || c->length > g->size - c->offset) {
            problem(b->plan, hs_printf("%s: the edit of bytes %zu-%zu (%s) lies beyond the end of "
                                       "the file (%zu bytes); %s",
                                       c->written, c->offset, c->offset + c->length, c->fix->label,
                                       g->size, fix_scope(c->fix)));
            c->fix->refused = true;
            continue;
        }
        hs_vec_push(&live, c);
    }
    if (live.len > 1)
        qsort(live.items, live.len, sizeof(void *), compare_cands);
    for (size_t i = 0; i < live.len; i++) {
        cand *a = live.items[i];
        for (size_t j = i + 1; j < live.len; j++) {
            cand *c = live.items[j];
            if (c->offset > a->offset + a->length)
                break;
            if (same_edit(a, c) || !collide(a, c))
                continue;
            /* Report each colliding pair once, not once per duplicate of it. */
            bool reported = (i > 0 && same_edit(live.items[i - 1], a)) ||
                            same_edit(live.items[j - 1], c);
            a->conflict = c->conflict = true;
            if (reported)
                continue;
            char *da = describe(a), *dc = describe(c);
            problem(b->plan, hs_printf("%s: %s and %s overlap; neither was applied", c->written,
                                       da, dc));
            free(da);
            free(dc);
        }
    }
    for (size_t i = 0; i < live.len; i++) {
        cand *c = live.items[i];
        if (c->conflict)
            c->fix->refused = true;
    }
    hs_vec_free(&live);
}

static char *edit_key(const cand *c)
{
    return hs_printf("%s%s\x1f%zu\x1f%zu\x1f%s", c->group ? "" : "?",
                     c->group ? c->group->real_path : c->written, c->offset, c->length,
                     c->replacement);
}

/* The accepted edits of one file, deduplicated, as the plan's hs_file_edits (or NULL). */
static hs_file_edits *accepted_edits(file_group *g, hs_strmap *accepted)
{
    if (g->refused)
        return NULL;
    hs_vec live = {0};
    for (size_t i = 0; i < g->cands.len; i++) {
        cand *c = g->cands.items[i];
        if (!c->fix->refused && !(c->length == 0 && !c->replacement[0]))
            hs_vec_push(&live, c);
    }
    if (!live.len) {
        hs_vec_free(&live);
        return NULL;
    }
    qsort(live.items, live.len, sizeof(void *), compare_cands);
    hs_file_edits *fe = hs_xcalloc(1, sizeof *fe);
    fe->path = hs_xstrdup(g->rel_path);
    fe->real_path = hs_xstrdup(g->real_path);
    fe->content = g->content;
    fe->size = g->size;
    fe->digest = g->digest;
    g->content = NULL;
    for (size_t i = 0; i < live.len; i++) {
        cand *c = live.items[i];
        if (i > 0 && same_edit(live.items[i - 1], c))
            continue;
        hs_edit *e = hs_xcalloc(1, sizeof *e);
        e->offset = c->offset;
        e->length = c->length;
        e->replacement = hs_xstrdup(c->replacement);
        e->finding = c->fix->fingerprint;
        e->finding_index = c->fix->finding_index;
        hs_vec_push(&fe->edits, e);
        char *key = edit_key(c);
        hs_strmap_put(accepted, key, (void *)1);
        free(key);
    }
    hs_vec_free(&live);
    return fe;
}

static int compare_files(const void *pa, const void *pb)
{
    const hs_file_edits *a = *(hs_file_edits *const *)pa, *b = *(hs_file_edits *const *)pb;
    return strcmp(a->path, b->path);
}

static void builder_free(builder *b)
{
    for (size_t i = 0; i < b->group_list.len; i++) {
        file_group *g = b->group_list.items[i];
        free(g->real_path);
        free(g->rel_path);
        for (size_t k = 0; k < g->names.len; k++)
            free(g->names.items[k]);
        hs_vec_free(&g->names);
        free(g->content);
        hs_vec_free(&g->cands);
        free(g);
    }
    hs_vec_free(&b->group_list);
    for (size_t i = 0; i < b->fixes.len; i++) {
        fix_rec *f = b->fixes.items[i];
        free(f->label);
        free(f);
    }
    hs_vec_free(&b->fixes);
    for (size_t i = 0; i < b->cands.len; i++)
        free(b->cands.items[i]);
    hs_vec_free(&b->cands);
    hs_strmap_delete(b->groups);
}

bool hs_edit_plan_build(json_t *report, hs_edit_plan *plan, char **err)
{
    return hs_edit_plan_build_confined(report, NULL, plan, err);
}

bool hs_edit_plan_build_confined(json_t *report, const char *confine, hs_edit_plan *plan, char **err)
{
    memset(plan, 0, sizeof *plan);
    *err = NULL;
    const char *root = json_string_value(json_object_get(report, "root"));
    if (!json_is_object(report) || !root || !root[0]) {
        *err = hs_xstrdup("the report has no \"root\" (is it a hotscan JSON report?)");
        return false;
    }
    json_t *findings = json_object_get(report, "findings");
    if (findings && !json_is_array(findings)) {
        *err = hs_xstrdup("the report's \"findings\" is not an array");
        return false;
    }
    if (root[0] != '/') {
        *err = hs_printf("the report's root '%s' is not an absolute path", root);
        return false;
    }
    char *report_root = hs_realpath(root);
    if (!report_root) {
        *err = hs_printf("the report's root %s: %s", root, strerror(errno));
        return false;
    }
    if (confine) {
        plan->root = hs_realpath(confine);
        if (!plan->root) {
            *err = hs_printf("%s: %s", confine, strerror(errno));
            free(report_root);
            return false;
        }
        free(report_root);
    } else {
        plan->root = report_root;
    }

    builder b = {.report = report, .root = root, .plan = plan, .groups = hs_strmap_create()};
    collect_fixes(&b, findings);
    json_t *files = json_object_get(report, "files");
    for (size_t i = 0; i < b.group_list.len; i++)
        check_unchanged(&b, b.group_list.items[i], files);
    for (size_t i = 0; i < b.group_list.len; i++)
        check_edits(&b, b.group_list.items[i]);

    hs_strmap *accepted = hs_strmap_create();
    for (size_t i = 0; i < b.group_list.len; i++) {
        hs_file_edits *fe = accepted_edits(b.group_list.items[i], accepted);
        if (fe)
            hs_vec_push(&plan->files, fe);
    }
    if (plan->files.len > 1)
        qsort(plan->files.items, plan->files.len, sizeof(void *), compare_files);

    /* Refused: distinct edits of the chosen fixes that did not make it into the plan. */
    hs_strmap *refused = hs_strmap_create();
    for (size_t i = 0; i < b.cands.len; i++) {
        cand *c = b.cands.items[i];
        if (c->length == 0 && !c->replacement[0])
            continue;
        char *key = edit_key(c);
        if (!hs_strmap_has(accepted, key))
            hs_strmap_put(refused, key, (void *)1);
        free(key);
    }
    /* A malformed edit never became a candidate; count it too. */
    for (size_t i = 0; i < b.fixes.len; i++) {
        fix_rec *f = b.fixes.items[i];
        size_t have = 0;
        for (size_t k = 0; k < b.cands.len; k++)
            have += ((cand *)b.cands.items[k])->fix == f;
        plan->refused += f->edit_count - have;
    }
    plan->refused += hs_strmap_size(refused);
    hs_strmap_delete(refused);
    hs_strmap_delete(accepted);
    builder_free(&b);
    return true;
}

void hs_edit_plan_free(hs_edit_plan *plan)
{
    if (!plan)
        return;
    for (size_t i = 0; i < plan->files.len; i++) {
        hs_file_edits *fe = plan->files.items[i];
        for (size_t k = 0; k < fe->edits.len; k++) {
            hs_edit *e = fe->edits.items[k];
            free(e->replacement);
            free(e);
        }
        hs_vec_free(&fe->edits);
        free(fe->path);
        free(fe->real_path);
        free(fe->content);
        free(fe);
    }
    hs_vec_free(&plan->files);
    for (size_t i = 0; i < plan->problems.len; i++)
        free(plan->problems.items[i]);
    hs_vec_free(&plan->problems);
    for (size_t i = 0; i < plan->stale.len; i++)
        free(plan->stale.items[i]);
    hs_vec_free(&plan->stale);
    free(plan->root);
    memset(plan, 0, sizeof *plan);
}

char *hs_file_edits_apply(const hs_file_edits *fe, size_t *size_out)
{
    hs_buf out;
    hs_buf_init(&out);
    size_t pos = 0;
    for (size_t i = 0; i < fe->edits.len; i++) {
        const hs_edit *e = fe->edits.items[i];
        hs_buf_append(&out, fe->content + pos, e->offset - pos);
        hs_buf_puts(&out, e->replacement);
        pos = e->offset + e->length;
    }
    hs_buf_append(&out, fe->content + pos, fe->size - pos);
    *size_out = out.len;
    return hs_buf_take(&out);
}

/* ---- writing ---- */

/* One file of a plan while it is being written. */
typedef struct {
    hs_file_edits *fe;
    struct stat st;
    char *tmp;        /* its temporary file, once written */
    bool failed;      /* not written: a check or a write failed */
    bool dropped;     /* not written: every edit's fix failed elsewhere */
} write_slot;

/* The checks made under the folder lock, just before writing. */
static bool check_file(const hs_edit_plan *plan, const hs_file_edits *fe, struct stat *st,
                       FILE *log)
{
    /* The path must still lead, without a symlink anywhere, to the file the plan read. */
    char *now = hs_realpath(fe->real_path);
    bool same = now && strcmp(now, fe->real_path) == 0;
    free(now);
    if (!same) {
        if (log)
            fprintf(log, "hotscan: %s: no longer resolves to %s; skipped\n", fe->path,
                    fe->real_path);
        return false;
    }
    if (lstat(fe->real_path, st) != 0 || !S_ISREG(st->st_mode)) {
        if (log)
            fprintf(log, "hotscan: %s: no longer a regular file; skipped\n", fe->path);
        return false;
    }
    /* Without a digest, the report's own time is all that says the offsets still hold: a
     * file modified since (by an editor, or by another run that applied a fix) is refused.
     * A modification in the same clock tick counts as later. */
    const struct timespec *until = &plan->trust_until;
    if (!fe->digest && plan->trust_until_set &&
        (st->st_mtim.tv_sec > until->tv_sec ||
         (st->st_mtim.tv_sec == until->tv_sec && st->st_mtim.tv_nsec >= until->tv_nsec))) {
        if (log)
            fprintf(log, "hotscan: %s: modified since the report was written, and the report "
                         "holds no digest of it to tell whether its offsets still hold; "
                         "skipped: rescan\n", fe->path);
        return false;
    }
    if (!(st->st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) || access(fe->real_path, W_OK) != 0) {
        if (log)
            fprintf(log, "hotscan: %s: not writable (mode %04o); skipped\n", fe->path,
                    (unsigned)(st->st_mode & 07777));
        return false;
    }
    size_t size;
    char *current = hs_read_file(fe->real_path, &size);
    bool unchanged = current && size == fe->size && memcmp(current, fe->content, size) == 0;
    free(current);
    if (!unchanged) {
        if (log)
            fprintf(log, "hotscan: %s: changed while the fixes were being applied; skipped\n",
                    fe->path);
        return false;
    }
    return true;
}

static bool write_temp(write_slot *s, FILE *log)
{
    size_t new_size;
    char *data = hs_file_edits_apply(s->fe, &new_size);
    const char *step;
    s->tmp = hs_temp_write_beside(s->fe->real_path, data, new_size, &s->st, &step);
    int saved = errno;
    free(data);
    if (!s->tmp && log)
        fprintf(log, "hotscan: %s: cannot %s (%s); the file is unchanged\n", s->fe->path, step,
                strerror(saved));
    return s->tmp != NULL;
}

/*
 * A fix is whole or not at all, across files too: every edit, in any file, of a fix that
 * also edits a file that was not written is left out. `blocked[k]` names the file that
 * blocks finding k (NULL: none). Returns true when an edit was left out.
 */
static bool drop_blocked(write_slot *slots, size_t n, const char **blocked, size_t *refused,
                         FILE *log)
{
    bool any = false;
    for (size_t i = 0; i < n; i++) {
        write_slot *s = &slots[i];
        if (s->failed || s->dropped)
            continue;
        hs_vec *edits = &s->fe->edits;
        size_t keep = 0;
        for (size_t k = 0; k < edits->len; k++) {
            hs_edit *e = edits->items[k];
            const char *by = blocked[e->finding_index];
            if (!by) {
                edits->items[keep++] = e;
                continue;
            }
            if (log)
                fprintf(log, "hotscan: %s: the edit of bytes %zu-%zu (finding %s) was not applied: "
                             "its fix also edits %s, which was not written\n",
                        s->fe->path, e->offset, e->offset + e->length,
                        e->finding ? e->finding : "?", by);
            free(e->replacement);
            free(e);
            (*refused)++;
            any = true;
        }
        if (keep != edits->len) {
            edits->len = keep;
            hs_temp_discard(s->tmp); /* its content changed */
            s->tmp = NULL;
            if (keep == 0)
                s->dropped = true;
        }
    }
    return any;
}

static void block_fixes_of(write_slot *s, const char **blocked)
{
    for (size_t k = 0; k < s->fe->edits.len; k++) {
        hs_edit *e = s->fe->edits.items[k];
        if (!blocked[e->finding_index])
            blocked[e->finding_index] = s->fe->path;
    }
}

int hs_apply_plan(hs_edit_plan *plan, bool dry_run, FILE *log, hs_apply_result *res)
{
    hs_apply_result local = {0};
    if (!res)
        res = &local;
    memset(res, 0, sizeof *res);
    size_t n = plan->files.len;
    if (n == 0)
        return 0;
    write_slot *slots = hs_xcalloc(n, sizeof *slots);
    size_t max_finding = 0;
    for (size_t i = 0; i < n; i++) {
        slots[i].fe = plan->files.items[i];
        for (size_t k = 0; k < slots[i].fe->edits.len; k++) {
            hs_edit *e = slots[i].fe->edits.items[k];
            if (e->finding_index > max_finding)
                max_finding = e->finding_index;
        }
    }
    const char **blocked = hs_xcalloc(max_finding + 1, sizeof *blocked);

    /* 1. Lock every folder, in one order (so two runs never wait for each other in a
     *    circle), and clear what killed runs left there. */
    hs_vec dirs = {0};
    for (size_t i = 0; i < n; i++)
        hs_vec_push(&dirs, hs_dirname(slots[i].fe->real_path));
    qsort(dirs.items, dirs.len, sizeof(void *), hs_compare_strings);
    int *locks = hs_xcalloc(n, sizeof *locks);
    size_t nlocks = 0;
    for (size_t i = 0; i < dirs.len; i++) {
        if (i > 0 && strcmp(dirs.items[i], dirs.items[i - 1]) == 0)
            continue;
        if (dry_run)
            continue;
        int fd = hs_dir_lock(dirs.items[i]);
        if (fd < 0) {
            int saved = errno;
            /* Its files fail their checks below: mark them. */
            for (size_t k = 0; k < n; k++) {
                char *d = hs_dirname(slots[k].fe->real_path);
                if (strcmp(d, dirs.items[i]) == 0 && !slots[k].failed) {
                    slots[k].failed = true;
                    if (log)
                        fprintf(log, "hotscan: %s: cannot lock its folder (%s); skipped\n",
                                slots[k].fe->path, strerror(saved));
                }
                free(d);
            }
            continue;
        }
        locks[nlocks++] = fd;
        hs_remove_stale_temps(dirs.items[i], log);
    }

    /* 2. Check every file before writing any. */
    for (size_t i = 0; i < n; i++)
        if (!slots[i].failed && !check_file(plan, slots[i].fe, &slots[i].st, log))
            slots[i].failed = true;

    /* 3. Temporary files for all, leaving out the fixes of files that fail, until no new
     *    failure: then nothing written so far depends on a file that will not be. */
    for (;;) {
        for (size_t i = 0; i < n; i++)
            if (slots[i].failed)
                block_fixes_of(&slots[i], blocked);
        drop_blocked(slots, n, blocked, &res->edits_refused, log);
        bool new_failure = false;
        for (size_t i = 0; i < n && !dry_run; i++) {
            write_slot *s = &slots[i];
            if (s->failed || s->dropped || s->tmp)
                continue;
            if (!write_temp(s, log)) {
                s->failed = true;
                new_failure = true;
            }
        }
        if (!new_failure)
            break;
    }

    /* 4. Rename them all over the originals, with the terminating signals held: a signal
     *    acts before the first rename or after the last, never between two files of a fix. */
    int failed = 0;
    sigset_t held;
    hs_cleanup_hold(&held);
    for (size_t i = 0; i < n; i++) {
        write_slot *s = &slots[i];
        if (s->failed) {
            res->edits_refused += s->fe->edits.len;
            failed++;
            continue;
        }
        if (s->dropped) {
            failed++;
            continue;
        }
        if (!dry_run && !hs_temp_commit(s->tmp, s->fe->real_path)) {
            if (log)
                fprintf(log, "hotscan: %s: cannot rename the temporary file over it (%s); the "
                             "file is unchanged\n", s->fe->path, strerror(errno));
            s->tmp = NULL;
            res->edits_refused += s->fe->edits.len;
            failed++;
            continue;
        }
        s->tmp = NULL;
        res->files_written++;
        res->edits_applied += s->fe->edits.len;
        hs_vec_push(&res->written, s->fe);
    }
    hs_cleanup_release(&held);
    for (size_t i = 0; i < nlocks; i++)
        hs_dir_unlock(locks[i]);
    free(locks);
    for (size_t i = 0; i < dirs.len; i++)
        free(dirs.items[i]);
    hs_vec_free(&dirs);
    free(blocked);
    free(slots);
    if (res == &local)
        hs_vec_free(&local.written);
    return failed;
}

void hs_apply_result_free(hs_apply_result *res)
{
    hs_vec_free(&res->written);
}

bool hs_file_edits_write(hs_file_edits *fe, bool dry_run, FILE *log)
{
    hs_edit_plan one = {0};
    hs_vec_push(&one.files, fe);
    int failed = hs_apply_plan(&one, dry_run, log, NULL);
    hs_vec_free(&one.files);
    return failed == 0;
}

bool hs_edit_plan_build_fresh(json_t *report, hs_edit_plan *plan, char **err)
{
    if (!hs_edit_plan_build(report, plan, err))
        return false;
    if (plan->stale.len == 0)
        return true;
    hs_buf msg;
    hs_buf_init(&msg);
    hs_buf_puts(&msg, "changed since the scan, rescan first:");
    for (size_t i = 0; i < plan->stale.len; i++)
        hs_buf_printf(&msg, " %s", (const char *)plan->stale.items[i]);
    *err = hs_buf_take(&msg);
    hs_edit_plan_free(plan);
    return false;
}
