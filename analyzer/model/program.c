/*
 * program.c - merges per-TU facts into the program model and answers call-graph
 * questions: which functions are hot (and by which shortest path), and which are
 * reachable only from cold code.
 */
#include "hotscan/program.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

hs_program *hs_program_create(void)
{
    hs_program *p = hs_xcalloc(1, sizeof *p);
    p->strings = hs_intern_create();
    size_t nfam;
    const hs_fact_family *const *families = hs_fact_families(&nfam);
    p->stores = hs_xcalloc(nfam ? nfam : 1, sizeof *p->stores);
    for (size_t i = 0; i < nfam; i++)
        p->stores[i] = families[i]->create();
    p->functions = hs_strmap_create_borrowing(); /* keyed by the functions' interned USRs */
    p->seen = hs_keyset_create();
    p->slot_targets = hs_strmap_create();
    p->overriders = hs_strmap_create();
    return p;
}

void hs_program_delete(hs_program *p)
{
    if (!p)
        return;
    size_t nfam;
    const hs_fact_family *const *families = hs_fact_families(&nfam);
    for (size_t i = 0; i < nfam; i++)
        if (p->stores[i])
            families[i]->destroy(p->stores[i]);
    free(p->stores);
    for (size_t i = 0; i < p->function_list.len; i++) {
        hs_function *f = p->function_list.items[i];
        hs_vec_free(&f->callees);
        hs_vec_free(&f->callers);
        free(f);
    }
    hs_vec_free(&p->function_list);
    for (size_t i = 0; i < p->edges.len; i++) {
        hs_call_edge *e = p->edges.items[i];
        free(e->const_args);
        free(e->guards);
        free(e);
    }
    hs_vec_free(&p->edges);
    for (size_t i = 0; i < p->indirect_sites.len; i++) {
        hs_indirect_site *site = p->indirect_sites.items[i];
        free(site->const_args);
        free(site->guards);
        free(site);
    }
    hs_vec_free(&p->indirect_sites);
    hs_vec_free(&p->virtual_edges);
    hs_strmap_delete_lists(p->slot_targets, NULL);
    hs_strmap_delete_lists(p->overriders, NULL);
    hs_strmap_delete(p->functions);
    hs_keyset_delete(p->seen);
    hs_buf_free(&p->fact_key);
    hs_intern_delete(p->strings);
    free(p);
}

hs_function *hs_program_function(hs_program *p, const char *usr, const char *name)
{
    hs_function *f = hs_strmap_get(p->functions, usr);
    if (f)
        return f;
    f = hs_xcalloc(1, sizeof *f);
    f->usr = hs_intern_str(p->strings, usr);
    f->name = hs_intern_str(p->strings, name ? name : usr);
    f->hot_depth = -1;
    hs_strmap_put(p->functions, f->usr, f);
    hs_vec_push(&p->function_list, f);
    return f;
}

hs_call_edge *hs_program_add_call(hs_program *p, hs_function *caller, hs_function *callee,
                                  const char *file, unsigned line, unsigned column, bool in_loop)
{
    hs_call_edge *e = hs_xcalloc(1, sizeof *e);
    e->caller = caller;
    e->callee = callee;
    e->file = hs_intern_str(p->strings, file ? file : "");
    e->line = line;
    e->column = column;
    e->in_loop = in_loop;
    hs_vec_push(&p->edges, e);
    hs_vec_push(&caller->callees, e);
    hs_vec_push(&callee->callers, e);
    return e;
}

static const char *str(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

/*
 * The de-duplication keys ("call|caller|callee|file|line|column" and the like), built in
 * the model's scratch buffer without printf: one is made for every fact of every TU, and
 * vasprintf was a tenth of the supervisor's instructions. The bytes are what
 * "%s|%s|...|%u" would print.
 */
static hs_buf *key_start(hs_program *p, const char *tag)
{
    p->fact_key.len = 0;
    hs_buf_append(&p->fact_key, tag, strlen(tag));
    return &p->fact_key;
}

static void key_str(hs_buf *key, const char *s)
{
    hs_buf_append(key, "|", 1);
    hs_buf_append(key, s, strlen(s));
}

/* Not snprintf: it was 5% of the supervisor, for two numbers a fact. */
static void key_int(hs_buf *key, long long v)
{
    char num[1 + HS_INT_TEXT_MAX] = "|";
    hs_buf_append(key, num, 1 + hs_int_text(num + 1, v));
}

/* True the first time the key is offered: facts seen by several TUs count once. Only the
 * key's digest is kept. */
static bool key_first_time(hs_program *p, const hs_buf *key)
{
    return hs_keyset_add(p->seen, key->data, key->len);
}

bool hs_program_first_fact(hs_program *p, const char *kind, json_t *fact)
{
    hs_buf *key = key_start(p, kind);
    key_str(key, str(fact, "file"));
    key_int(key, hs_facts_uint(fact, "offset"));
    key_str(key, str(fact, "function"));
    key_str(key, str(fact, "var"));
    key_int(key, hs_facts_int(fact, "ordinal", 0));
    return key_first_time(p, key);
}

void hs_program_end_merge(hs_program *p)
{
    if (!p->seen)
        return;
    hs_keyset_delete(p->seen);
    p->seen = NULL;
    size_t nfam;
    const hs_fact_family *const *families = hs_fact_families(&nfam);
    for (size_t i = 0; i < nfam; i++)
        if (families[i]->end_merge)
            families[i]->end_merge(p->stores[i]);
}

void *hs_program_store(const hs_program *p, const hs_fact_family *family)
{
    size_t nfam;
    const hs_fact_family *const *families = hs_fact_families(&nfam);
    for (size_t i = 0; i < nfam; i++) {
        if (families[i] != family)
            continue;
        if (!p->stores[i]) {
            /* A rule's `reads` left this family out (rules.h): a programming error. */
            fprintf(stderr, "hotscan: internal error: the %s facts were read after their store was freed\n",
                    family->name);
            abort();
        }
        return p->stores[i];
    }
    return NULL;
}

void hs_program_release_store(hs_program *p, const hs_fact_family *family)
{
    size_t nfam;
    const hs_fact_family *const *families = hs_fact_families(&nfam);
    for (size_t i = 0; i < nfam; i++) {
        if (families[i] == family && p->stores[i]) {
            families[i]->destroy(p->stores[i]);
            p->stores[i] = NULL;
        }
    }
}

/* One facts document (a TU's, or one of its unreferenced bodies') into the model. */
static void merge_document(hs_program *p, json_t *facts, size_t tu_index)
{
    size_t i;
    json_t *fj;
    json_array_foreach(json_object_get(facts, "functions"), i, fj) {
        hs_function *f = hs_program_function(p, str(fj, "usr"), str(fj, "name"));
        f->hot_attr |= hs_facts_bool(fj, "hot");
        /* Like GCC, treat functions that never return (assert, panic) as cold. */
        f->cold_attr |= hs_facts_bool(fj, "cold") ||
                        hs_facts_bool(fj, "noreturn");
        bool defined = hs_facts_bool(fj, "defined");
        if (!f->file || (defined && !f->defined)) {
            f->file = hs_intern_str(p->strings, str(fj, "file"));
            f->line = hs_facts_uint(fj, "line");
            f->column = hs_facts_uint(fj, "column");
        }
        f->defined |= defined;
    }
    json_t *cj;
    json_array_foreach(json_object_get(facts, "calls"), i, cj) {
        const char *slot = str(cj, "slot");
        if (slot[0]) {
            hs_buf *key = key_start(p, "icall");
            key_str(key, str(cj, "caller"));
            key_str(key, slot);
            key_str(key, str(cj, "file"));
            key_int(key, hs_facts_uint(cj, "line"));
            key_int(key, hs_facts_uint(cj, "column"));
            if (!key_first_time(p, key))
                continue;
            hs_indirect_site *site = hs_xcalloc(1, sizeof *site);
            site->caller = hs_program_function(p, str(cj, "caller"), NULL);
            site->slot = hs_intern_str(p->strings, slot);
            site->via = hs_intern_str(p->strings, str(cj, "via"));
            site->file = hs_intern_str(p->strings, str(cj, "file"));
            site->line = hs_facts_uint(cj, "line");
            site->column = hs_facts_uint(cj, "column");
            site->in_loop = hs_facts_bool(cj, "in_loop");
            site->error_path = hs_facts_bool(cj, "error_path");
            site->conditional = hs_facts_bool(cj, "cond");
            site->rare = hs_facts_str(p->strings, cj, "rare");
            site->loop = hs_facts_uint(cj, "loop");
            site->const_args = hs_facts_const_args(json_object_get(cj, "const_args"), &site->n_const_args);
            site->guards = hs_facts_guards(json_object_get(cj, "guards"), &site->n_guards);
            hs_vec_push(&p->indirect_sites, site);
            continue;
        }
        hs_buf *key = key_start(p, "call");
        key_str(key, str(cj, "caller"));
        key_str(key, str(cj, "callee"));
        key_str(key, str(cj, "file"));
        key_int(key, hs_facts_uint(cj, "line"));
        key_int(key, hs_facts_uint(cj, "column"));
        if (!key_first_time(p, key))
            continue;
        hs_function *caller = hs_program_function(p, str(cj, "caller"), NULL);
        hs_function *callee = hs_program_function(p, str(cj, "callee"), str(cj, "callee_name"));
        hs_call_edge *e = hs_program_add_call(p, caller, callee, str(cj, "file"), hs_facts_uint(cj, "line"),
                                              hs_facts_uint(cj, "column"),
                                              hs_facts_bool(cj, "in_loop"));
        e->error_path = hs_facts_bool(cj, "error_path");
        e->conditional = hs_facts_bool(cj, "cond");
        e->rare = hs_facts_str(p->strings, cj, "rare");
        e->loop = hs_facts_uint(cj, "loop");
        e->const_args = hs_facts_const_args(json_object_get(cj, "const_args"), &e->n_const_args);
        e->guards = hs_facts_guards(json_object_get(cj, "guards"), &e->n_guards);
        /* A callee declared noreturn in a header hotscan does not visit is still cold. */
        callee->cold_attr |= hs_facts_bool(cj, "callee_noreturn");
        callee->variadic |= hs_facts_bool(cj, "callee_variadic");
        if (hs_facts_bool(cj, "virtual")) {
            e->is_virtual = true;
            e->via = hs_intern_str(p->strings, callee->name);
            hs_vec_push(&p->virtual_edges, e);
        }
    }
    json_t *sj;
    json_array_foreach(json_object_get(facts, "fn_stores"), i, sj) {
        hs_buf *key = key_start(p, "store");
        key_str(key, str(sj, "slot"));
        key_str(key, str(sj, "function"));
        if (key_first_time(p, key))
            hs_strmap_push(p->slot_targets, str(sj, "slot"),
                         hs_program_function(p, str(sj, "function"), str(sj, "function_name")));
    }
    json_array_foreach(json_object_get(facts, "overrides"), i, sj) {
        hs_buf *key = key_start(p, "override");
        key_str(key, str(sj, "method"));
        key_str(key, str(sj, "base"));
        if (!key_first_time(p, key))
            continue;
        hs_program_function(p, str(sj, "base"), str(sj, "base_name"));
        hs_strmap_push(p->overriders, str(sj, "base"),
                     hs_program_function(p, str(sj, "method"), str(sj, "method_name")));
    }
    size_t nfam;
    const hs_fact_family *const *families = hs_fact_families(&nfam);
    for (size_t f = 0; f < nfam; f++)
        families[f]->merge(p->stores[f], p, facts, tu_index);
}

void hs_program_merge(hs_program *p, json_t *facts)
{
    if (!p->seen) {
        fprintf(stderr, "hotscan: internal error: a TU merged after the merge ended\n");
        abort();
    }
    p->translation_units++;
    size_t tu_index = (size_t)json_integer_value(json_object_get(facts, "tu_index"));
    merge_document(p, facts, tu_index);
    /* The header bodies this TU walked though none of its code refers to them (liveness,
     * analyzer/extract/extract.c): each text key's first document in TU order only, which
     * is there however TUs landed on workers. */
    size_t i;
    json_t *entry;
    json_array_foreach(json_object_get(facts, "unreferenced"), i, entry) {
        json_t *doc = json_object_get(entry, "facts");
        if (!json_is_object(doc))
            continue;
        hs_buf *key = key_start(p, "unreferenced");
        key_str(key, str(entry, "key"));
        if (key_first_time(p, key))
            merge_document(p, doc, tu_index);
    }
}

/*
 * Whether the --hot name `name` names the function called `qualified`: the whole qualified
 * name, or its last components on a `::` boundary, as a person writes it (`Get` names any
 * function or method called Get, `DBImpl::Get` names `rocksdb::DBImpl::Get`). A leading
 * `::` asks for the whole name (`::Get`: a global function).
 */
static bool names_function(const char *qualified, const char *name)
{
    if (strncmp(name, "::", 2) == 0)
        return strcmp(qualified, name + 2) == 0;
    size_t q = strlen(qualified), n = strlen(name);
    if (n == 0 || q < n || strcmp(qualified + q - n, name) != 0)
        return false;
    return q == n || (q >= n + 2 && qualified[q - n - 1] == ':' && qualified[q - n - 2] == ':');
}

static bool named_hot(const hs_function *f, char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (names_function(f->name, names[i]))
            return true;
    return false;
}

bool hs_program_names_function(const hs_program *p, const char *name)
{
    for (size_t i = 0; i < p->function_list.len; i++)
        if (names_function(((const hs_function *)p->function_list.items[i])->name, name))
            return true;
    return false;
}

static void *copy_array(const void *src, size_t n, size_t size)
{
    if (!n)
        return NULL;
    void *dst = hs_xcalloc(n, size);
    memcpy(dst, src, n * size);
    return dst;
}

/* An edge the resolution adds, one per possible target of an indirect call site. */
static hs_call_edge *add_resolved_call(hs_program *p, hs_function *caller, hs_function *callee,
                                       const char *file, unsigned line, unsigned column, bool in_loop,
                                       bool error_path)
{
    hs_call_edge *e = hs_program_add_call(p, caller, callee, file, line, column, in_loop);
    e->error_path = error_path;
    e->indirect = true;
    p->indirect_edges++;
    return e;
}

static bool wide_edge(const hs_call_edge *e)
{
    return e->targets > HS_WIDE_INDIRECT_TARGETS;
}

bool hs_call_edge_weak(const hs_call_edge *e, bool loggers)
{
    return wide_edge(e) || e->rare || e->dead || e->once || (loggers && e->callee->variadic);
}

static bool weak_edge(const hs_call_edge *e)
{
    return hs_call_edge_weak(e, true);
}

bool hs_function_called_only_from_main(const hs_function *f)
{
    for (size_t i = 0; i < f->callers.len; i++) {
        const hs_call_edge *e = f->callers.items[i];
        if (!e->caller || !e->caller->name || strcmp(e->caller->name, "main") != 0)
            return false;
    }
    return f->callers.len > 0;
}

/*
 * Marks guarded edges out of strongly reached functions dead when every strong edge into
 * their caller passes a constant that rules the arm out (`stamp(0)` calling a function
 * whose `if (fresh)` arm makes the call). A hot root is entered from outside: its edges are
 * never dead. True when an edge was newly marked.
 */
static bool mark_dead_edges(hs_program *p)
{
    bool changed = false;
    for (size_t i = 0; i < p->edges.len; i++) {
        hs_call_edge *e = p->edges.items[i];
        const hs_function *f = e->caller;
        if (e->dead || !e->n_guards || f->hot_root || f->hot_depth < 0)
            continue;
        size_t strong = 0;
        bool all_rule_out = true;
        for (size_t k = 0; all_rule_out && k < f->callers.len; k++) {
            const hs_call_edge *in = f->callers.items[k];
            if (in->caller->hot_depth < 0 || in->error_path || weak_edge(in))
                continue;
            strong++;
            all_rule_out = hs_guards_contradicted(e->guards, e->n_guards, in->const_args, in->n_const_args);
        }
        if (strong && all_rule_out) {
            e->dead = true;
            changed = true;
        }
    }
    return changed;
}

/* Why the path to `f` is weak: the first weak edge on it, in words. */
static const char *weak_why(const hs_function *f)
{
    const hs_call_edge *first = NULL;
    for (const hs_function *g = f; g && g->hot_via && g->hot_depth > 0; g = g->hot_via->caller)
        if (weak_edge(g->hot_via))
            first = g->hot_via;
    if (!first)
        return NULL;
    if (first->dead)
        return "it is reached only through a branch its caller's hot callers rule out with constant "
               "arguments";
    if (first->once)
        return "it is reached only through a call that a hot root only main calls (an event loop) "
               "makes outside its loops, once per run";
    if (first->callee->variadic && !first->rare)
        return "it is reached only through a call of a function that takes `...` (a logger or a "
               "formatter): output, not per-request work";
    if (!first->rare)
        return "it is reached only through an indirect call with very many possible targets";
    if (strcmp(first->rare, "once") == 0)
        return "it is reached only from a branch that sets the static its condition tests: a one-time "
               "initialisation";
    if (strcmp(first->rare, "unlikely") == 0)
        return "it is reached only from a branch marked unlikely";
    if (strcmp(first->rare, "threshold") == 0)
        return "it is reached only from a branch taken when a value exceeds a configured limit";
    return "it is reached only from an error-handling branch";
}

/* Breadth-first over call edges from `queue`, never entering cold functions; with
 * `narrow`, never following an indirect call with very many targets either. */
static void bfs_hot(hs_vec *queue, bool narrow)
{
    for (size_t head = 0; head < queue->len; head++) {
        hs_function *f = queue->items[head];
        for (size_t i = 0; i < f->callees.len; i++) {
            hs_call_edge *e = f->callees.items[i];
            hs_function *g = e->callee;
            if (g->hot_depth >= 0 || g->cold_attr || e->error_path || (narrow && weak_edge(e)))
                continue;
            g->hot_depth = f->hot_depth + 1;
            g->hot_via = e;
            hs_vec_push(queue, g);
        }
    }
}

/* Every override of `base`, transitively, each once (cached per base in `closures`). */
static hs_vec *override_closure(hs_program *p, hs_strmap *closures, hs_function *base)
{
    hs_vec *all = hs_strmap_get(closures, base->usr);
    if (all)
        return all;
    all = hs_xcalloc(1, sizeof *all);
    hs_strmap_put(closures, base->usr, all);
    hs_strmap *seen = hs_strmap_create();
    hs_strmap_put(seen, base->usr, (void *)1);
    hs_vec queue = {0};
    hs_vec_push(&queue, base);
    for (size_t head = 0; head < queue.len; head++) {
        hs_function *b = queue.items[head];
        hs_vec *direct = hs_strmap_get(p->overriders, b->usr);
        for (size_t i = 0; direct && i < direct->len; i++) {
            hs_function *m = direct->items[i];
            if (hs_strmap_has(seen, m->usr))
                continue;
            hs_strmap_put(seen, m->usr, (void *)1);
            hs_vec_push(all, m);
            hs_vec_push(&queue, m);
        }
    }
    hs_vec_free(&queue);
    hs_strmap_delete(seen);
    return all;
}

void hs_program_resolve_indirect(hs_program *p)
{
    if (p->indirect_resolved)
        return;
    p->indirect_resolved = true;
    for (size_t i = 0; i < p->indirect_sites.len; i++) {
        const hs_indirect_site *site = p->indirect_sites.items[i];
        const hs_vec *targets = hs_strmap_get(p->slot_targets, site->slot);
        for (size_t k = 0; targets && k < targets->len; k++) {
            hs_call_edge *e = add_resolved_call(p, site->caller, targets->items[k], site->file, site->line,
                                                site->column, site->in_loop, site->error_path);
            e->via = site->via;
            e->targets = (unsigned)targets->len;
            e->rare = site->rare;
            e->conditional = site->conditional;
            e->loop = site->loop;
            e->n_const_args = site->n_const_args;
            e->const_args = copy_array(site->const_args, site->n_const_args, sizeof *e->const_args);
            e->n_guards = site->n_guards;
            e->guards = copy_array(site->guards, site->n_guards, sizeof *e->guards);
        }
    }
    if (!p->virtual_edges.len)
        return;
    hs_strmap *closures = hs_strmap_create();
    for (size_t i = 0; i < p->virtual_edges.len; i++) {
        hs_call_edge *v = p->virtual_edges.items[i];
        const hs_vec *all = override_closure(p, closures, v->callee);
        v->targets = (unsigned)all->len + 1;
        for (size_t k = 0; k < all->len; k++) {
            hs_call_edge *e = add_resolved_call(p, v->caller, all->items[k], v->file, v->line, v->column,
                                                v->in_loop, v->error_path);
            e->is_virtual = true;
            e->via = v->via;
            e->targets = v->targets;
            e->rare = v->rare;
            e->loop = v->loop;
            e->n_const_args = v->n_const_args;
            e->const_args = copy_array(v->const_args, v->n_const_args, sizeof *e->const_args);
            e->n_guards = v->n_guards;
            e->guards = copy_array(v->guards, v->n_guards, sizeof *e->guards);
        }
    }
    hs_strmap_delete_lists(closures, NULL);
}

void hs_program_compute_hotness(hs_program *p, char **hot_names, size_t n_hot_names)
{
    hs_program_resolve_indirect(p);
    size_t n = p->function_list.len;
    hs_vec queue = {0};
    for (size_t i = 0; i < p->edges.len; i++)
        ((hs_call_edge *)p->edges.items[i])->dead = false;
    for (size_t i = 0; i < n; i++) {
        hs_function *f = p->function_list.items[i];
        f->hot_depth = -1;
        f->hot_via = NULL;
        f->hot_narrow = false;
        f->hot_weak_why = NULL;
        f->hot_root = !f->cold_attr && (f->hot_attr || f->profile_root || named_hot(f, hot_names, n_hot_names));
        if (f->hot_root) {
            f->hot_depth = 0;
            hs_vec_push(&queue, f);
        }
    }
    for (size_t i = 0; i < p->edges.len; i++) {
        hs_call_edge *e = p->edges.items[i];
        e->once = e->caller->hot_root && !e->in_loop && hs_function_called_only_from_main(e->caller);
    }
    /* First without wide indirect calls (> HS_WIDE_INDIRECT_TARGETS targets): what that
     * reaches is hot_narrow, by its shortest such path. Then on from everything reached,
     * in the same order, over all edges: a function only a wide call reaches gets a path
     * through one, and a path shown never takes a wide call when it need not. */
    bfs_hot(&queue, true);
    /* Dead arms shrink the strong set, which can make more arms dead: again until stable
     * (each round only adds dead edges, so it ends). */
    for (int round = 0; round < 8 && mark_dead_edges(p); round++) {
        for (size_t i = 0; i < queue.len; i++) {
            hs_function *f = queue.items[i];
            if (!f->hot_root) {
                f->hot_depth = -1;
                f->hot_via = NULL;
            }
        }
        size_t roots = 0;
        for (size_t i = 0; i < queue.len; i++)
            if (((hs_function *)queue.items[i])->hot_root)
                queue.items[roots++] = queue.items[i];
        queue.len = roots;
        bfs_hot(&queue, true);
    }
    for (size_t i = 0; i < queue.len; i++)
        ((hs_function *)queue.items[i])->hot_narrow = true;
    bfs_hot(&queue, false);
    for (size_t i = 0; i < queue.len; i++) {
        hs_function *f = queue.items[i];
        f->hot_weak_why = f->hot_narrow ? NULL : weak_why(f);
    }
    hs_vec_free(&queue);

    /*
     * Cold-only: not reachable from any warm entry point (a non-cold function nothing
     * calls, or a hot root) without passing through a cold function, yet reachable
     * from a cold one. Functions in unreached cycles stay warm: nothing proves them cold.
     */
    unsigned char *state = hs_xcalloc(n ? n : 1, 1); /* bit 1: warm, bit 2: from cold */
    hs_strmap *index = hs_strmap_create();
    for (size_t i = 0; i < n; i++)
        hs_strmap_put(index, ((hs_function *)p->function_list.items[i])->usr, (void *)(i + 1));
    /* Pass 1 marks what cold functions reach (bit 2). Pass 2 spreads warmth (bit 1) from
     * every non-cold function that nothing calls, every hot root, and every non-cold
     * function cold code does not reach (which covers cycles nothing else calls). */
    for (int pass = 0; pass < 2; pass++) {
        unsigned char bit = pass == 0 ? 2 : 1;
        hs_vec q = {0};
        for (size_t i = 0; i < n; i++) {
            hs_function *f = p->function_list.items[i];
            bool start = pass == 0 ? f->cold_attr
                                   : !f->cold_attr && (f->callers.len == 0 || f->hot_root ||
                                                       !(state[i] & 2));
            if (start) {
                state[i] |= bit;
                hs_vec_push(&q, f);
            }
        }
        for (size_t head = 0; head < q.len; head++) {
            hs_function *f = q.items[head];
            for (size_t k = 0; k < f->callees.len; k++) {
                hs_function *g = ((hs_call_edge *)f->callees.items[k])->callee;
                size_t gi = (size_t)(uintptr_t)hs_strmap_get(index, g->usr) - 1;
                if ((state[gi] & bit) || (bit == 1 && g->cold_attr))
                    continue;
                state[gi] |= bit;
                hs_vec_push(&q, g);
            }
        }
        hs_vec_free(&q);
    }
    for (size_t i = 0; i < n; i++) {
        hs_function *f = p->function_list.items[i];
        f->cold_only = f->cold_attr || (!(state[i] & 1) && (state[i] & 2));
    }
    hs_strmap_delete(index);
    free(state);
}

void hs_program_hot_path(const hs_function *f, hs_vec *edges_out)
{
    edges_out->items = NULL;
    edges_out->len = edges_out->cap = 0;
    size_t depth = f->hot_depth > 0 ? (size_t)f->hot_depth : 0;
    if (depth == 0)
        return;
    hs_call_edge **tmp = hs_xcalloc(depth, sizeof *tmp);
    const hs_function *g = f;
    size_t k = depth;
    while (g && g->hot_via && k > 0) {
        tmp[--k] = g->hot_via;
        g = g->hot_via->caller;
    }
    for (size_t i = k; i < depth; i++)
        hs_vec_push(edges_out, tmp[i]);
    free(tmp);
}
