/*
 * atomic_facts.c - reads the atomics family's facts ("atomics") from a TU's facts document
 * into typed hs_atomic_op records (atomic_facts.h), each operation once per place.
 */
#include "atomic_facts.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hotscan/common.h"

static void *create(void)
{
    hs_atomic_store *s = hs_xcalloc(1, sizeof *s);
    /* Keyed by strings interned in the model (the maps keep no copies). */
    s->plain_at = hs_strmap_create_borrowing();
    s->tus_of = hs_strmap_create_borrowing();
    s->vars_in = hs_strmap_create_borrowing();
    return s;
}

static void destroy(void *store)
{
    hs_atomic_store *s = store;
    if (!s)
        return;
    for (size_t i = 0; i < s->len; i++) {
        if (s->ops[i].plain)
            free(s->ops[i].plain->update_sites);
        free(s->ops[i].plain);
    }
    free(s->ops);
    hs_strmap_delete(s->plain_at);
    const char *key;
    void *tus;
    for (size_t it = 0; hs_strmap_next(s->tus_of, &it, &key, &tus);)
        free(tus);
    hs_strmap_delete(s->tus_of);
    for (size_t it = 0; s->vars_in && hs_strmap_next(s->vars_in, &it, &key, &tus);) {
        hs_vec_free(tus);
        free(tus);
    }
    hs_strmap_delete(s->vars_in);
    free(s);
}

/* The merge's own indexes go once every TU is merged: the rules read neither. */
static void end_merge(void *store)
{
    hs_atomic_store *s = store;
    hs_strmap_delete(s->plain_at);
    s->plain_at = NULL;
    const char *key;
    void *vars;
    for (size_t it = 0; hs_strmap_next(s->vars_in, &it, &key, &vars);) {
        hs_vec_free(vars);
        free(vars);
    }
    hs_strmap_delete(s->vars_in);
    s->vars_in = NULL;
}

/* The enum value `names` gives the string `key` holds (names[i] is value i); `none` when
 * the key is absent, not a string, or names nothing listed. */
static int name_of(json_t *o, const char *key, const char *const *names, size_t n, int none)
{
    const char *v = json_string_value(json_object_get(o, key));
    for (size_t i = 0; v && i < n; i++)
        if (names[i] && strcmp(v, names[i]) == 0)
            return (int)i;
    return none;
}

#define NAME_OF(o, key, names, none) name_of((o), (key), (names), sizeof(names) / sizeof((names)[0]), (none))

static const char *const op_names[] = {
    [HS_AOP_FETCH_ADD] = "fetch_add", [HS_AOP_ADD_FETCH] = "add_fetch", [HS_AOP_FETCH_SUB] = "fetch_sub",
    [HS_AOP_SUB_FETCH] = "sub_fetch", [HS_AOP_LOAD] = "load",           [HS_AOP_STORE] = "store",
    [HS_AOP_EXCHANGE] = "exchange",   [HS_AOP_CAS] = "cas",             [HS_AOP_BITWISE] = "bitwise",
    [HS_AOP_WAIT] = "wait",           [HS_AOP_OTHER] = "other",         [HS_AOP_ESCAPE] = "escape",
    [HS_AOP_PLAIN] = "plain",         [HS_AOP_INACTIVE] = "inactive", [HS_AOP_RETURNS] = "returns",
};

static const char *const order_names[] = {
    [HS_AORDER_RELAXED] = "relaxed", [HS_AORDER_CONSUME] = "consume", [HS_AORDER_ACQUIRE] = "acquire",
    [HS_AORDER_RELEASE] = "release", [HS_AORDER_ACQ_REL] = "acq_rel", [HS_AORDER_SEQ_CST] = "seq_cst",
    [HS_AORDER_UNKNOWN] = "unknown", [HS_AORDER_NA] = "n/a",
};

static const char *const use_names[] = {
    [HS_AUSE_DISCARDED] = "discarded", [HS_AUSE_VALUE] = "value",
    [HS_AUSE_RETURNED] = "returned",   [HS_AUSE_CONDITION] = "condition",
    [HS_AUSE_LOOP_CONDITION] = "loop_condition", [HS_AUSE_VERSION_CHECK] = "version_check",
};

static const char *const form_names[] = {
    [HS_AFORM_MEMBER] = "member", [HS_AFORM_OPERATOR] = "operator", [HS_AFORM_C11] = "c11",
    [HS_AFORM_C11_OPERATOR] = "c11_operator", [HS_AFORM_GNU] = "gnu", [HS_AFORM_SYNC] = "sync",
    [HS_AFORM_WRAPPER] = "wrapper", [HS_AFORM_ESCAPE] = "escape", [HS_AFORM_ACCESSOR] = "accessor",
};

static void read_plain_uses(hs_intern *in, json_t *counts, const char *kind, hs_plain_uses *out)
{
    out->count = hs_facts_int(counts, kind, 0);
    char at[64]; /* "<kind>_at": the kinds are read_plain's names, all short */
    snprintf(at, sizeof at, "%s_at", kind);
    hs_facts_place(in, counts, at, &out->first);
}

/* Appends the sites of "updates_sites" not listed yet (a header's are in each TU's). */
static void read_update_sites(hs_intern *in, json_t *counts, hs_atomic_plain *out)
{
    size_t i;
    json_t *o;
    json_array_foreach(json_object_get(counts, "updates_sites"), i, o) {
        hs_plain_update u = {0};
        hs_facts_site(in, o, &u.site);
        if (!u.site.file)
            continue;
        bool listed = false;
        for (size_t k = 0; k < out->update_sites_len && !listed; k++)
            listed = out->update_sites[k].site.file == u.site.file && out->update_sites[k].site.offset == u.site.offset;
        if (listed)
            continue;
        u.function_name = hs_facts_str(in, o, "function_name");
        u.text = hs_facts_str(in, o, "text");
        u.beside = hs_facts_bool(o, "beside");
        size_t cap = out->update_sites_len;
        out->update_sites = hs_array_append(out->update_sites, &out->update_sites_len, &cap, sizeof u);
        out->update_sites[out->update_sites_len - 1] = u;
    }
}

static void read_plain(hs_intern *in, json_t *counts, hs_atomic_plain *out)
{
    read_plain_uses(in, counts, "reads", &out->reads);
    read_plain_uses(in, counts, "loads_condition", &out->loads_condition);
    read_plain_uses(in, counts, "loads_limit", &out->loads_limit);
    read_plain_uses(in, counts, "loads_bounds_index", &out->loads_bounds_index);
    read_plain_uses(in, counts, "loads_loop_condition", &out->loads_loop_condition);
    read_plain_uses(in, counts, "writes_constant", &out->writes_constant);
    read_plain_uses(in, counts, "writes_computed", &out->writes_computed);
    read_plain_uses(in, counts, "updates", &out->updates);
    read_plain_uses(in, counts, "decrements", &out->decrements);
    read_plain_uses(in, counts, "address_taken", &out->address_taken);
    read_update_sites(in, counts, out);
}

/* {offset, length, text} of "span", {file, offset, length, text} of "spelled". */
static bool read_text(hs_intern *in, json_t *o, const char *key, hs_atomic_text *out)
{
    json_t *t = json_object_get(o, key);
    if (!t)
        return false;
    out->file = hs_facts_str(in, t, "file");
    out->offset = hs_facts_uint(t, "offset");
    out->length = hs_facts_uint(t, "length");
    out->text = hs_facts_str(in, t, "text");
    return true;
}

static void read_one(hs_intern *in, json_t *o, size_t tu_index, hs_atomic_op *a)
{
    hs_facts_site(in, o, &a->site);
    a->text = hs_facts_str(in, o, "text");
    a->macro = hs_facts_bool(o, "macro");
    a->ordinal = hs_facts_int(o, "ordinal", 0);
    a->tu_index = tu_index;

    a->var = hs_facts_str(in, o, "var");
    if (!a->var)
        a->var = hs_intern_str(in, ""); /* facts without a variable are judged together */
    a->var_name = hs_facts_str(in, o, "var_name");
    a->var_visible = hs_facts_bool(o, "var_visible");
    hs_facts_place(in, o, "var_decl", &a->var_decl);
    a->var_field = hs_facts_str(in, o, "var_field");

    a->op = NAME_OF(o, "op", op_names, HS_AOP_UNLISTED);
    a->op_name = hs_facts_str(in, o, "op");
    a->order = NAME_OF(o, "order", order_names, HS_AORDER_UNLISTED);
    a->form = NAME_OF(o, "form", form_names, HS_AFORM_NONE);
    a->api = hs_facts_str(in, o, "api");
    a->use = NAME_OF(o, "use", use_names, HS_AUSE_NONE);
    a->limit_test = hs_facts_bool(o, "limit_test");
    a->through_sink = hs_facts_bool(o, "through_sink");
    a->dead_store = hs_facts_bool(o, "dead_store");
    a->alias_pair = json_integer_value(json_object_get(o, "alias_targets")) == 2;
    a->value_constant = hs_facts_bool(o, "value_constant");
    a->value_parameter = hs_facts_bool(o, "value_parameter");
    json_t *value = json_object_get(o, "value");
    a->has_value = json_is_integer(value);
    a->value = a->has_value ? (long long)json_integer_value(value) : 0;
    a->value_text = hs_facts_str(in, o, "value_text");
    a->has_operand = hs_facts_bool(o, "value_operand");
    a->value_narrow = hs_facts_bool(o, "value_narrow");
    a->whole_statement = hs_facts_bool(o, "whole_statement");
    a->operand_integer = hs_facts_bool(o, "operand_integer");
    a->sum_keeps_type = hs_facts_bool(o, "sum_keeps_type");
    a->operand_repeatable = hs_facts_bool(o, "operand_repeatable");
    a->through_pointer = hs_facts_bool(o, "through_pointer");
    a->bounds_index = hs_facts_bool(o, "bounds_index");
    a->object_text = hs_facts_str(in, o, "object_text");
    a->sink = hs_facts_str(in, o, "sink");

    a->accessor_of = hs_facts_str(in, o, "accessor_of");
    a->dependent_member = hs_facts_str(in, o, "dependent_member");
    a->callee = hs_facts_str(in, o, "callee");
    a->arg = (int)hs_facts_int(o, "arg", -1);
    a->function = hs_facts_str(in, o, "function");
    a->function_name = hs_facts_str(in, o, "function_name");

    a->has_span = read_text(in, o, "span", &a->span);
    a->macro_name = hs_facts_str(in, o, "macro_name");
    a->has_spelled = read_text(in, o, "spelled", &a->spelled);
    a->has_order_arg = json_object_get(o, "order_offset") != NULL;
    a->order_offset = hs_facts_uint(o, "order_offset");
    a->order_length = hs_facts_uint(o, "order_length");

    if (a->op == HS_AOP_PLAIN) {
        /* Apart, so the many operations do not each carry a summary's room. */
        a->plain = hs_xcalloc(1, sizeof *a->plain);
        read_plain(in, json_object_get(o, "plain"), a->plain);
    }
}

/* Adds one TU's counts of a kind of plain use; the first place stays the first TU's. */
static void add_plain_uses(hs_plain_uses *into, const hs_plain_uses *more)
{
    into->count += more->count;
    if (!into->first.file)
        into->first = more->first;
}

/* Folds a TU's plain summary into the variable's program-wide one. */
static void add_plain(hs_atomic_plain *into, const hs_atomic_plain *more)
{
    add_plain_uses(&into->reads, &more->reads);
    add_plain_uses(&into->loads_condition, &more->loads_condition);
    add_plain_uses(&into->loads_limit, &more->loads_limit);
    add_plain_uses(&into->loads_bounds_index, &more->loads_bounds_index);
    add_plain_uses(&into->loads_loop_condition, &more->loads_loop_condition);
    add_plain_uses(&into->writes_constant, &more->writes_constant);
    add_plain_uses(&into->writes_computed, &more->writes_computed);
    add_plain_uses(&into->updates, &more->updates);
    add_plain_uses(&into->decrements, &more->decrements);
    add_plain_uses(&into->address_taken, &more->address_taken);
}

/* Counts the TU once for the variable `var` (TUs merge in order). */
static void count_tu(hs_atomic_store *s, hs_program *p, const char *var, size_t tu_index)
{
    hs_atomic_tus *t = hs_strmap_get(s->tus_of, var);
    if (!t) {
        t = hs_xcalloc(1, sizeof *t);
        hs_strmap_put(s->tus_of, hs_intern_str(p->strings, var), t);
    } else if (t->last_tu == tu_index) {
        return;
    }
    t->count++;
    t->last_tu = tu_index;
}

size_t hs_atomic_tu_count(const hs_atomic_store *s, const char *var)
{
    const hs_atomic_tus *t = hs_strmap_get(s->tus_of, var ? var : "");
    return t ? t->count : 0;
}

/* Notes that `function`'s operations touch `var` (each pair once). */
static void note_var_in(hs_atomic_store *s, hs_program *p, const char *function, const char *var)
{
    hs_vec *vars = hs_strmap_get(s->vars_in, function);
    if (!vars) {
        vars = hs_xcalloc(1, sizeof *vars);
        hs_strmap_put(s->vars_in, hs_intern_str(p->strings, function), vars);
    }
    const char *interned = hs_intern_str(p->strings, var);
    for (size_t i = 0; i < vars->len; i++)
        if (vars->items[i] == interned)
            return;
    hs_vec_push(vars, (void *)interned);
}

/*
 * Counts the TU for the variables of the functions it defines but has no operation facts
 * of: with the header skip (extract.h) a worker walks a shared header function once, so
 * only the first TU that has it reports its operations, and the count of TUs that see a
 * variable would depend on how TUs landed on workers. The first TU that defines the
 * function merged before and walked it, so `vars_in` knows them. A skipped body is listed
 * in `skipped_bodies`, not `functions`; a walked one with no operations in `functions`.
 */
static void count_defined_function(hs_atomic_store *s, hs_program *p, const char *usr, hs_strmap *walked,
                                   size_t tu_index)
{
    if (!usr || hs_strmap_has(walked, usr))
        return;
    hs_vec *vars = hs_strmap_get(s->vars_in, usr);
    for (size_t k = 0; vars && k < vars->len; k++)
        count_tu(s, p, vars->items[k], tu_index);
}

static void count_skipped_bodies(hs_atomic_store *s, hs_program *p, json_t *tu_facts, hs_strmap *walked,
                                 size_t tu_index)
{
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(tu_facts, "functions"), i, f) {
        if (json_is_true(json_object_get(f, "defined")))
            count_defined_function(s, p, json_string_value(json_object_get(f, "usr")), walked, tu_index);
    }
    json_array_foreach(json_object_get(tu_facts, "skipped_bodies"), i, f)
        count_defined_function(s, p, json_string_value(f), walked, tu_index);
}

static void merge(void *store, hs_program *p, json_t *tu_facts, size_t tu_index)
{
    hs_atomic_store *s = store;
    size_t i;
    json_t *o;
    hs_strmap *walked = hs_strmap_create(); /* functions with operation facts in this TU */
    json_array_foreach(json_object_get(tu_facts, "atomics"), i, o) {
        const char *fact_var = json_string_value(json_object_get(o, "var"));
        count_tu(s, p, fact_var ? fact_var : "", tu_index);
        const char *fact_fn = json_string_value(json_object_get(o, "function"));
        if (fact_fn && fact_fn[0] && fact_var) {
            note_var_in(s, p, fact_fn, fact_var);
            hs_strmap_put(walked, fact_fn, (void *)1);
        }
        /* Each TU's plain summary of a variable (file = the TU, offset 0) is added to the
         * variable's one summary: kept per TU, they grew the model by every TU that
         * includes a header with integer globals. The rule reads only whether any TU
         * used it so (a count above 0), which the sum keeps. */
        const char *op = json_string_value(json_object_get(o, "op"));
        if (op && strcmp(op, op_names[HS_AOP_PLAIN]) == 0) {
            const char *var = json_string_value(json_object_get(o, "var"));
            size_t at = (size_t)(uintptr_t)hs_strmap_get(s->plain_at, var ? var : "");
            if (at) {
                hs_atomic_plain more = {0};
                json_t *counts = json_object_get(o, "plain");
                read_plain(p->strings, counts, &more);
                free(more.update_sites);
                add_plain(s->ops[at - 1].plain, &more);
                read_update_sites(p->strings, counts, s->ops[at - 1].plain);
                continue;
            }
            s->ops = hs_array_append(s->ops, &s->len, &s->cap, sizeof *s->ops);
            read_one(p->strings, o, tu_index, &s->ops[s->len - 1]);
            hs_strmap_put(s->plain_at, hs_intern_str(p->strings, var ? var : ""), (void *)(uintptr_t)s->len);
            continue;
        }
        /* An operation in a header several TUs include is one fact. */
        if (!hs_program_first_fact(p, "atomic", o))
            continue;
        s->ops = hs_array_append(s->ops, &s->len, &s->cap, sizeof *s->ops);
        hs_atomic_op *a = &s->ops[s->len - 1];
        read_one(p->strings, o, tu_index, a);
    }
    count_skipped_bodies(s, p, tu_facts, walked, tu_index);
    hs_strmap_delete(walked);
}

const hs_fact_family hs_family_atomics = {
    .name = "atomics",
    .create = create,
    .destroy = destroy,
    .merge = merge,
    .end_merge = end_merge,
};
