/*
 * os_event.c - os-event: every use of InnoDB's os_event API and every declaration of an
 * event object, grouped by object into a migration plan (MDEV-21452: use condition
 * variables and normal mutexes instead of os_event).
 *
 * An os_event carries its own mutex, condition variable and signal count, so a waiter
 * takes the event's mutex in addition to the one that guards the state the event
 * announces. The migration keeps that state under the mutex that already guards it and
 * turns each use into a condition-variable operation: set -> broadcast under the mutex;
 * reset + wait_low(sig) -> a predicate loop around the condition wait; wait_time -> a
 * timed wait; create/destroy -> init/destroy of the condition variable.
 *
 * Besides the findings, the report gets an "objects" list: per event object, its
 * declaration and its sites by kind, and a one-sentence plan. Paths there are absolute.
 */
#include "hotscan/common.h"
#include "hotscan/findings.h"
#include "hotscan/rules.h"
#include "hotscan/strmap.h"
#include "event_facts.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define RULE_ID "os-event"

/* Site kinds every object lists, in plan order; other kinds are added when seen. */
static const char *const site_kinds[] = {"create", "set", "reset", "wait", "wait_time",
                                         "is_set", "destroy"};
#define N_SITE_KINDS (sizeof site_kinds / sizeof site_kinds[0])

/* Where an object is declared: its own declaration fact, or what a use knows of it. */
typedef struct {
    const char *file;
    unsigned line, column;
    const char *type;              /* "" when only a use names the place */
    const hs_event_object *fact;   /* the declaration fact, or NULL */
} decl_ref;

typedef struct {
    const char *key;     /* the declaration's USR */
    const char *name;    /* display name */
    hs_vec decls;        /* const hs_event_object* */
    hs_vec uses;         /* const hs_event_use* */
    bool has_decl;       /* `decl` is set: a definition when there is one */
    decl_ref decl;
} event_object;

typedef struct {
    hs_strmap *index;    /* key -> event_object* */
    hs_vec list;         /* event_object* */
} object_table;

static event_object *object_get(object_table *t, const char *key, const char *name)
{
    event_object *o = hs_strmap_get(t->index, key);
    if (o) {
        if (!o->name[0] && name[0])
            o->name = name;
        return o;
    }
    o = hs_xcalloc(1, sizeof *o);
    o->key = key;
    o->name = name;
    hs_strmap_put(t->index, key, o);
    hs_vec_push(&t->list, o);
    return o;
}

static int cmp_location(const char *fa, unsigned la, unsigned ca, const char *fb, unsigned lb, unsigned cb)
{
    int c = strcmp(fa ? fa : "", fb ? fb : "");
    if (c)
        return c;
    if (la != lb)
        return la < lb ? -1 : 1;
    if (ca != cb)
        return ca < cb ? -1 : 1;
    return 0;
}

static int cmp_use_ptr(const void *pa, const void *pb)
{
    const hs_event_use *a = *(const hs_event_use *const *)pa, *b = *(const hs_event_use *const *)pb;
    return cmp_location(a->site.file, a->site.line, a->site.column, b->site.file, b->site.line, b->site.column);
}

static int cmp_object(const void *pa, const void *pb)
{
    const event_object *a = *(event_object *const *)pa, *b = *(event_object *const *)pb;
    int c = strcmp(a->name, b->name);
    return c ? c : strcmp(a->key, b->key);
}

/* A definition wins; among equals, the first by file and line. */
static const hs_event_object *choose_declaration(const hs_vec *decls)
{
    const hs_event_object *best = NULL;
    for (size_t i = 0; i < decls->len; i++) {
        const hs_event_object *d = decls->items[i];
        if (!best || (d->definition && !best->definition) ||
            (d->definition == best->definition &&
             cmp_location(d->site.file, d->site.line, d->site.column, best->site.file, best->site.line,
                          best->site.column) < 0))
            best = d;
    }
    return best;
}

static size_t count_kind(const hs_vec *uses, const char *kind)
{
    size_t n = 0;
    for (size_t i = 0; i < uses->len; i++)
        n += strcmp(((const hs_event_use *)uses->items[i])->kind, kind) == 0;
    return n;
}

/* "set" and "try_set" both become a broadcast. */
static bool is_set_kind(const char *kind)
{
    return strcmp(kind, "set") == 0 || strcmp(kind, "try_set") == 0;
}

/* What the use becomes, by kind: the second half of the message. */
static const char *migration_for(const char *kind)
{
    if (is_set_kind(kind))
        return "make the change it announces under the mutex that guards that condition and "
               "broadcast a condition variable while holding that mutex";
    if (strcmp(kind, "reset") == 0)
        return "a reset whose signal count feeds os_event_wait_low(sig) becomes a predicate "
               "loop under the mutex that guards the condition: "
               "while (!condition) cond_wait(&cond, &mutex)";
    if (strcmp(kind, "wait") == 0)
        return "wait in a predicate loop on a condition variable under the mutex that guards "
               "the condition: while (!condition) cond_wait(&cond, &mutex)";
    if (strcmp(kind, "wait_time") == 0)
        return "use a timed condition wait (cond_timedwait) in a predicate loop under the "
               "mutex that guards the condition";
    if (strcmp(kind, "is_set") == 0)
        return "test the condition itself under the mutex that guards it";
    if (strcmp(kind, "create") == 0)
        return "initialize a condition variable instead (and a mutex for its condition if "
               "none guards it yet)";
    if (strcmp(kind, "destroy") == 0)
        return "destroy the condition variable instead";
    return "move it to a condition variable plus the mutex that guards its condition";
}

static const char *verb_for(const char *kind)
{
    if (is_set_kind(kind))
        return "signals";
    if (strcmp(kind, "reset") == 0)
        return "resets";
    if (strcmp(kind, "wait") == 0)
        return "waits on";
    if (strcmp(kind, "wait_time") == 0)
        return "waits with a timeout on";
    if (strcmp(kind, "is_set") == 0)
        return "polls";
    if (strcmp(kind, "create") == 0)
        return "creates";
    if (strcmp(kind, "destroy") == 0)
        return "destroys";
    return "uses";
}

static char *object_phrase(const hs_event_use *use)
{
    if (use->object_name[0])
        return hs_xstrdup(use->object_name);
    if (use->object_text[0])
        return hs_printf("`%s` (not traced to a global, static or field)", use->object_text);
    if (strcmp(use->kind, "create") == 0)
        return hs_xstrdup("(its result is not stored in a global, static or field here)");
    return hs_xstrdup("(object not known here)");
}

static void add_declaration_related(json_t *finding, const decl_ref *decl, const char *name)
{
    char *msg = hs_printf("declaration of %s", name);
    hs_finding_add_related(finding, decl->file ? decl->file : "", decl->line, decl->column, msg);
    free(msg);
}

static void flag_use(hs_judge_ctx *ctx, const hs_event_use *use, const event_object *o)
{
    const char *kind = use->kind;
    char *what = object_phrase(use);
    /* A project's own event API added with --rules is not InnoDB's. */
    bool innodb = strncmp(use->api, "os_event_", 9) == 0;
    char *message = hs_printf("%s() %s %s %s; to move it to a condition variable and a normal "
                              "mutex (MDEV-21452), %s",
                              use->api, verb_for(kind), innodb ? "InnoDB os_event" : "event",
                              what, migration_for(kind));
    json_t *f = hs_finding_at(RULE_ID, "warning", "high", &use->site, use->function_name, message);
    if (o && o->has_decl)
        add_declaration_related(f, &o->decl, o->name);
    json_object_set_new(f, "api", json_string(use->api));
    json_object_set_new(f, "kind", json_string(kind));
    json_object_set_new(f, "object", json_string(o ? o->name : ""));
    /* Two uses from one macro invocation share its text: the API tells them apart. */
    char *basis = hs_printf("%s|%s", use->api, use->text);
    json_object_set_new(f, "fingerprint_basis", json_string(basis));
    free(basis);
    hs_judge_add_finding(ctx, f);
    free(what);
    free(message);
}

/* "1 create, 2 set, 1 reset, 1 wait" over the kinds present, in plan order. */
static char *use_summary(const event_object *o)
{
    hs_buf b;
    hs_buf_init(&b);
    hs_strmap *done = hs_strmap_create();
    for (size_t k = 0; k < N_SITE_KINDS; k++) {
        size_t n = count_kind(&o->uses, site_kinds[k]);
        hs_strmap_put(done, site_kinds[k], (void *)1);
        if (n)
            hs_buf_printf(&b, "%s%zu %s", b.len ? ", " : "", n, site_kinds[k]);
    }
    for (size_t i = 0; i < o->uses.len; i++) {
        const char *kind = ((const hs_event_use *)o->uses.items[i])->kind;
        if (hs_strmap_has(done, kind))
            continue;
        hs_strmap_put(done, kind, (void *)1);
        hs_buf_printf(&b, "%s%zu %s", b.len ? ", " : "", count_kind(&o->uses, kind), kind);
    }
    hs_strmap_delete(done);
    if (!b.len)
        hs_buf_puts(&b, "none in the scanned code");
    return hs_buf_take(&b);
}

static void flag_declaration(hs_judge_ctx *ctx, const hs_event_object *decl, const event_object *o)
{
    char *uses = use_summary(o);
    const char *what = strstr(decl->type, "os_event") ? "an InnoDB os_event" : "an event";
    char *message = hs_printf("%s is %s (%s): replace it with a condition variable and use the "
                              "mutex that guards its condition (MDEV-21452); its uses: %s (see "
                              "\"objects\" in the JSON report for the plan)",
                              o->name, what, decl->type, uses);
    json_t *f = hs_finding_at(RULE_ID, "warning", "high", &decl->site, "", message);
    if (o->has_decl && o->decl.fact != decl)
        add_declaration_related(f, &o->decl, o->name);
    json_object_set_new(f, "kind", json_string("declaration"));
    json_object_set_new(f, "object", json_string(o->name));
    char *basis = hs_printf("declaration|%s|%s", decl->type, o->name);
    json_object_set_new(f, "fingerprint_basis", json_string(basis));
    hs_judge_add_finding(ctx, f);
    free(basis);
    free(uses);
    free(message);
}

/* ---- the plan -------------------------------------------------------------------- */

/* One step of the plan: "what (n site[s])", only when there are sites. */
static void plan_step(hs_buf *b, size_t n, const char *what)
{
    if (n)
        hs_buf_printf(b, "%s%s (%zu site%s)", b->len ? "; " : "", what, n, n == 1 ? "" : "s");
}

static char *plan_for(const event_object *o)
{
    const hs_vec *u = &o->uses;
    if (u->len == 0)
        return hs_printf("No os_event API use of %s was traced in the scanned code (it may be "
                         "used through a parameter, a local or a file not scanned): find its uses, "
                         "then replace it with a condition variable guarded by the mutex that "
                         "protects the state it announces, or remove it.",
                         o->name);
    size_t creates = count_kind(u, "create"), sets = count_kind(u, "set") + count_kind(u, "try_set"),
           resets = count_kind(u, "reset"), waits = count_kind(u, "wait"),
           timed = count_kind(u, "wait_time"), polls = count_kind(u, "is_set"),
           destroys = count_kind(u, "destroy");
    size_t other = u->len - (creates + sets + resets + waits + timed + polls + destroys);
    hs_buf steps;
    hs_buf_init(&steps);
    plan_step(&steps, creates, "create -> init a condition variable");
    plan_step(&steps, sets, "set -> broadcast it while holding the mutex that guards the condition");
    if (resets && waits)
        plan_step(&steps, resets + waits,
                  "reset + wait_low(sig) -> one predicate loop on the condition wait");
    else if (waits)
        plan_step(&steps, waits, "wait -> a predicate loop on the condition wait");
    else
        plan_step(&steps, resets,
                  "reset -> goes away: the predicate loop around the wait replaces the signal count");
    plan_step(&steps, timed, "wait_time -> a timed condition wait in a predicate loop");
    plan_step(&steps, polls, "is_set -> test the condition under the mutex");
    plan_step(&steps, destroys, "destroy -> destroy the condition variable");
    plan_step(&steps, other, "other uses -> the matching condition-variable operation");
    const char *warning = "";
    if ((waits || timed) && !sets)
        warning = "; no set of it was traced (sets through a parameter or a local are listed "
                  "without an object), so find who signals it first";
    else if (sets && !(waits || timed || polls))
        warning = "; no wait on it was traced (waits through a parameter or a local are listed "
                  "without an object), so find its waiters first";
    char *plan = hs_printf("Replace %s with a condition variable guarded by the mutex that protects "
                           "the state it announces: %s%s.",
                           o->name, steps.data, warning);
    hs_buf_free(&steps);
    return plan;
}

static json_t *site_of(const hs_event_use *use)
{
    return json_pack("{s:s, s:I, s:I, s:s, s:s}", "file", use->site.file ? use->site.file : "", "line",
                     (json_int_t)use->site.line, "column", (json_int_t)use->site.column, "function",
                     use->function_name, "api", use->api);
}

static json_t *object_entry(const event_object *o)
{
    json_t *entry = json_object();
    json_object_set_new(entry, "object", json_string(o->name));
    json_object_set_new(entry, "usr", json_string(o->key));
    if (o->has_decl) {
        json_t *d = json_pack("{s:s, s:I, s:I}", "file", o->decl.file ? o->decl.file : "", "line",
                              (json_int_t)o->decl.line, "column", (json_int_t)o->decl.column);
        if (o->decl.type[0])
            json_object_set_new(d, "type", json_string(o->decl.type));
        json_object_set_new(entry, "declaration", d);
    } else {
        json_object_set_new(entry, "declaration", json_null());
    }
    json_t *sites = json_object();
    for (size_t k = 0; k < N_SITE_KINDS; k++)
        json_object_set_new(sites, site_kinds[k], json_array());
    size_t n = o->uses.len;
    const hs_event_use **sorted = hs_xcalloc(n ? n : 1, sizeof *sorted);
    for (size_t i = 0; i < n; i++)
        sorted[i] = o->uses.items[i];
    qsort(sorted, n, sizeof *sorted, cmp_use_ptr);
    for (size_t i = 0; i < n; i++) {
        const char *kind = sorted[i]->kind;
        json_t *list = json_object_get(sites, kind);
        if (!list) {
            list = json_array();
            json_object_set_new(sites, kind, list);
        }
        json_array_append_new(list, site_of(sorted[i]));
    }
    free(sorted);
    json_object_set_new(entry, "sites", sites);
    char *plan = plan_for(o);
    json_object_set_new(entry, "plan", json_string(plan));
    free(plan);
    return entry;
}

/* The declaration to point at: a definition when there is one; for an object whose type
 * is not a listed event type, the first use that knows its declaration. */
static void choose_decl_ref(event_object *o)
{
    const hs_event_object *d = choose_declaration(&o->decls);
    if (d) {
        o->decl = (decl_ref){d->site.file, d->site.line, d->site.column, d->type, d};
        o->has_decl = true;
        return;
    }
    for (size_t u = 0; u < o->uses.len; u++) {
        const hs_event_use *use = o->uses.items[u];
        if (use->object_declaration.file) {
            o->decl = (decl_ref){use->object_declaration.file, use->object_declaration.line,
                                 use->object_declaration.column, "", NULL};
            o->has_decl = true;
            return;
        }
    }
}

static void judge(hs_judge_ctx *ctx)
{
    const hs_event_store *facts = hs_event_facts(ctx->program);
    object_table t = {.index = hs_strmap_create()};
    for (size_t i = 0; i < facts->n_objects; i++) {
        const hs_event_object *e = &facts->objects[i];
        hs_vec_push(&object_get(&t, e->object, e->object_name)->decls, (void *)e);
    }
    for (size_t i = 0; i < facts->n_uses; i++) {
        const hs_event_use *e = &facts->uses[i];
        if (e->object[0])
            hs_vec_push(&object_get(&t, e->object, e->object_name)->uses, (void *)e);
    }
    for (size_t k = 0; k < t.list.len; k++)
        choose_decl_ref(t.list.items[k]);
    for (size_t i = 0; i < facts->n_uses; i++) {
        const hs_event_use *e = &facts->uses[i];
        flag_use(ctx, e, e->object[0] ? hs_strmap_get(t.index, e->object) : NULL);
    }
    for (size_t i = 0; i < facts->n_objects; i++) {
        const hs_event_object *e = &facts->objects[i];
        flag_declaration(ctx, e, hs_strmap_get(t.index, e->object));
    }

    if (t.list.len)
        qsort(t.list.items, t.list.len, sizeof(void *), cmp_object);
    json_t *objects = json_array();
    for (size_t k = 0; k < t.list.len; k++) {
        event_object *o = t.list.items[k];
        json_array_append_new(objects, object_entry(o));
        hs_vec_free(&o->decls);
        hs_vec_free(&o->uses);
        free(o);
    }
    hs_vec_free(&t.list);
    hs_strmap_delete(t.index);
    if (json_array_size(objects) > 0)
        json_object_set_new(ctx->extra, "objects", objects);
    else
        json_decref(objects);
}

static const hs_fact_family *const reads[] = {&hs_family_events, NULL};

static const char *const data_sections[] = {"events", "event_types", NULL};

const hs_rule hs_rule_os_event = {
    .id = RULE_ID,
    .summary = "A use of InnoDB's os_event API, to move to a condition variable and a mutex.",
    .description = "InnoDB's os_event pairs its own mutex and condition variable with a signal "
                   "count, so every wait and wake takes a second mutex beside the one that "
                   "guards the condition (MDEV-21452). Each use (create, set, reset, wait, "
                   "wait_time, is_set, destroy, also through macros) and each declaration of an "
                   "event object is reported, named by its object; the JSON report's \"objects\" "
                   "list groups the sites per event into a migration plan: set -> broadcast "
                   "under the mutex, reset + wait_low(sig) -> a predicate loop on a condition "
                   "wait, wait_time -> a timed wait, destroy -> destroy the condition variable.",
    .doc = "docs/rules/os-event.md",
    .default_severity = "warning",
    .precision = "very-high", /* docs/rules/os-event.md, "Precision" */
    .data_sections = data_sections,
    .judge = judge,
    .reads = reads,
};
