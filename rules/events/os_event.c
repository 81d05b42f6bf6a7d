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

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define RULE_ID "os-event"

static const char *s(json_t *o, const char *k)
{
    const char *v = json_string_value(json_object_get(o, k));
    return v ? v : "";
}

static json_int_t num(json_t *o, const char *k)
{
    return json_integer_value(json_object_get(o, k));
}

/* Site kinds every object lists, in plan order; other kinds are added when seen. */
static const char *const site_kinds[] = {"create", "set", "reset", "wait", "wait_time",
                                         "is_set", "destroy"};
#define N_SITE_KINDS (sizeof site_kinds / sizeof site_kinds[0])

typedef struct {
    const char *key;     /* the declaration's USR */
    const char *name;    /* display name */
    json_t *decls;       /* event_object facts, borrowed */
    json_t *uses;        /* event use facts, borrowed */
    json_t *decl;        /* the declaration to point at: a definition when there is one */
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
    o->decls = json_array();
    o->uses = json_array();
    hs_strmap_put(t->index, key, o);
    hs_vec_push(&t->list, o);
    return o;
}

static int cmp_location(json_t *a, json_t *b)
{
    int c = strcmp(s(a, "file"), s(b, "file"));
    if (c)
        return c;
    if (num(a, "line") != num(b, "line"))
        return num(a, "line") < num(b, "line") ? -1 : 1;
    if (num(a, "column") != num(b, "column"))
        return num(a, "column") < num(b, "column") ? -1 : 1;
    return 0;
}

static int cmp_location_ptr(const void *pa, const void *pb)
{
    return cmp_location(*(json_t *const *)pa, *(json_t *const *)pb);
}

static int cmp_object(const void *pa, const void *pb)
{
    const event_object *a = *(event_object *const *)pa, *b = *(event_object *const *)pb;
    int c = strcmp(a->name, b->name);
    return c ? c : strcmp(a->key, b->key);
}

/* A definition wins; among equals, the first by file and line. */
static json_t *choose_declaration(json_t *decls)
{
    json_t *best = NULL;
    size_t i;
    json_t *d;
    json_array_foreach(decls, i, d) {
        bool def = json_is_true(json_object_get(d, "definition"));
        bool best_def = best && json_is_true(json_object_get(best, "definition"));
        if (!best || (def && !best_def) || (def == best_def && cmp_location(d, best) < 0))
            best = d;
    }
    return best;
}

static size_t count_kind(json_t *uses, const char *kind)
{
    size_t n = 0, i;
    json_t *u;
    json_array_foreach(uses, i, u) n += strcmp(s(u, "kind"), kind) == 0;
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

static char *object_phrase(json_t *use)
{
    if (s(use, "object_name")[0])
        return hs_xstrdup(s(use, "object_name"));
    if (s(use, "object_text")[0])
        return hs_printf("`%s` (not traced to a global, static or field)", s(use, "object_text"));
    if (strcmp(s(use, "kind"), "create") == 0)
        return hs_xstrdup("(its result is not stored in a global, static or field here)");
    return hs_xstrdup("(object not known here)");
}

static void add_declaration_related(json_t *finding, json_t *decl, const char *name)
{
    char *msg = hs_printf("declaration of %s", name);
    hs_finding_add_related(finding, s(decl, "file"), (unsigned)num(decl, "line"),
                           (unsigned)num(decl, "column"), msg);
    free(msg);
}

static void flag_use(hs_judge_ctx *ctx, json_t *use, event_object *o)
{
    const char *kind = s(use, "kind");
    char *what = object_phrase(use);
    /* A project's own event API added with --rules is not InnoDB's. */
    bool innodb = strncmp(s(use, "api"), "os_event_", 9) == 0;
    char *message = hs_printf("%s() %s %s %s; to move it to a condition variable and a normal "
                              "mutex (MDEV-21452), %s",
                              s(use, "api"), verb_for(kind), innodb ? "InnoDB os_event" : "event",
                              what, migration_for(kind));
    json_t *f = hs_finding_new(RULE_ID, "warning", "high", use, s(use, "function_name"), message);
    if (o && o->decl)
        add_declaration_related(f, o->decl, o->name);
    json_object_set_new(f, "api", json_string(s(use, "api")));
    json_object_set_new(f, "kind", json_string(kind));
    json_object_set_new(f, "object", json_string(o ? o->name : ""));
    /* Two uses from one macro invocation share its text: the API tells them apart. */
    char *basis = hs_printf("%s|%s", s(use, "api"), s(use, "text"));
    json_object_set_new(f, "fingerprint_basis", json_string(basis));
    free(basis);
    json_array_append_new(ctx->findings, f);
    free(what);
    free(message);
}

/* "1 create, 2 set, 1 reset, 1 wait" over the kinds present, in plan order. */
static char *use_summary(event_object *o)
{
    hs_buf b;
    hs_buf_init(&b);
    hs_strmap *done = hs_strmap_create();
    for (size_t k = 0; k < N_SITE_KINDS; k++) {
        size_t n = count_kind(o->uses, site_kinds[k]);
        hs_strmap_put(done, site_kinds[k], (void *)1);
        if (n)
            hs_buf_printf(&b, "%s%zu %s", b.len ? ", " : "", n, site_kinds[k]);
    }
    size_t i;
    json_t *u;
    json_array_foreach(o->uses, i, u) {
        const char *kind = s(u, "kind");
        if (hs_strmap_has(done, kind))
            continue;
        hs_strmap_put(done, kind, (void *)1);
        hs_buf_printf(&b, "%s%zu %s", b.len ? ", " : "", count_kind(o->uses, kind), kind);
    }
    hs_strmap_delete(done);
    if (!b.len)
        hs_buf_puts(&b, "none in the scanned code");
    return hs_buf_take(&b);
}

static void flag_declaration(hs_judge_ctx *ctx, json_t *decl, event_object *o)
{
    char *uses = use_summary(o);
    const char *what = strstr(s(decl, "type"), "os_event") ? "an InnoDB os_event" : "an event";
    char *message = hs_printf("%s is %s (%s): replace it with a condition variable and use the "
                              "mutex that guards its condition (MDEV-21452); its uses: %s (see "
                              "\"objects\" in the JSON report for the plan)",
                              o->name, what, s(decl, "type"), uses);
    json_t *f = hs_finding_new(RULE_ID, "warning", "high", decl, "", message);
    if (o->decl && o->decl != decl)
        add_declaration_related(f, o->decl, o->name);
    json_object_set_new(f, "kind", json_string("declaration"));
    json_object_set_new(f, "object", json_string(o->name));
    char *basis = hs_printf("declaration|%s|%s", s(decl, "type"), o->name);
    json_object_set_new(f, "fingerprint_basis", json_string(basis));
    json_array_append_new(ctx->findings, f);
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

static char *plan_for(event_object *o)
{
    json_t *u = o->uses;
    if (json_array_size(u) == 0)
        return hs_printf("No os_event API use of %s was traced in the scanned code (it may be "
                         "used through a parameter, a local or a file not scanned): find its uses, "
                         "then replace it with a condition variable guarded by the mutex that "
                         "protects the state it announces, or remove it.",
                         o->name);
    size_t creates = count_kind(u, "create"), sets = count_kind(u, "set") + count_kind(u, "try_set"),
           resets = count_kind(u, "reset"), waits = count_kind(u, "wait"),
           timed = count_kind(u, "wait_time"), polls = count_kind(u, "is_set"),
           destroys = count_kind(u, "destroy");
    size_t other = json_array_size(u) - (creates + sets + resets + waits + timed + polls + destroys);
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

static json_t *site_of(json_t *use)
{
    json_t *site = json_pack("{s:s, s:I, s:I, s:s, s:s}", "file", s(use, "file"), "line",
                             (json_int_t)num(use, "line"), "column", (json_int_t)num(use, "column"),
                             "function", s(use, "function_name"), "api", s(use, "api"));
    return site;
}

static json_t *object_entry(event_object *o)
{
    json_t *entry = json_object();
    json_object_set_new(entry, "object", json_string(o->name));
    json_object_set_new(entry, "usr", json_string(o->key));
    if (o->decl) {
        json_t *d = json_pack("{s:s, s:I, s:I}", "file", s(o->decl, "file"), "line",
                              (json_int_t)num(o->decl, "line"), "column",
                              (json_int_t)num(o->decl, "column"));
        if (s(o->decl, "type")[0])
            json_object_set_new(d, "type", json_string(s(o->decl, "type")));
        json_object_set_new(entry, "declaration", d);
    } else {
        json_object_set_new(entry, "declaration", json_null());
    }
    json_t *sites = json_object();
    for (size_t k = 0; k < N_SITE_KINDS; k++)
        json_object_set_new(sites, site_kinds[k], json_array());
    size_t n = json_array_size(o->uses);
    json_t **sorted = hs_xcalloc(n ? n : 1, sizeof(json_t *));
    for (size_t i = 0; i < n; i++)
        sorted[i] = json_array_get(o->uses, i);
    qsort(sorted, n, sizeof(json_t *), cmp_location_ptr);
    for (size_t i = 0; i < n; i++) {
        const char *kind = s(sorted[i], "kind");
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

static void judge(hs_judge_ctx *ctx)
{
    json_t *events = ctx->program->events, *decls = ctx->program->event_objects;
    object_table t = {.index = hs_strmap_create()};
    size_t i;
    json_t *e;
    json_array_foreach(decls, i, e) {
        event_object *o = object_get(&t, s(e, "object"), s(e, "object_name"));
        json_array_append(o->decls, e);
    }
    json_array_foreach(events, i, e) {
        if (s(e, "object")[0]) {
            event_object *o = object_get(&t, s(e, "object"), s(e, "object_name"));
            json_array_append(o->uses, e);
        }
    }
    for (size_t k = 0; k < t.list.len; k++) {
        event_object *o = t.list.items[k];
        o->decl = choose_declaration(o->decls);
        /* An object whose type is not a listed event type: its uses know its declaration. */
        for (size_t u = 0; !o->decl && u < json_array_size(o->uses); u++)
            o->decl = json_object_get(json_array_get(o->uses, u), "object_declaration");
    }
    json_array_foreach(events, i, e) {
        event_object *o = s(e, "object")[0] ? hs_strmap_get(t.index, s(e, "object")) : NULL;
        flag_use(ctx, e, o);
    }
    json_array_foreach(decls, i, e) flag_declaration(ctx, e, hs_strmap_get(t.index, s(e, "object")));

    if (t.list.len)
        qsort(t.list.items, t.list.len, sizeof(void *), cmp_object);
    json_t *objects = json_array();
    for (size_t k = 0; k < t.list.len; k++) {
        event_object *o = t.list.items[k];
        json_array_append_new(objects, object_entry(o));
        json_decref(o->decls);
        json_decref(o->uses);
        free(o);
    }
    hs_vec_free(&t.list);
    hs_strmap_delete(t.index);
    if (json_array_size(objects) > 0)
        json_object_set_new(ctx->extra, "objects", objects);
    else
        json_decref(objects);
}

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
    .judge = judge,
};
