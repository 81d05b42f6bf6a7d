/*
 * atomic_vars.c - groups the atomics family's operation facts by variable for its rules
 * (atomic_vars.h): accessor calls, a template's member tests, wrapper calls and object paths
 * are resolved here once, as both atomic-seqcst-counter and atomic-mixed-access need them.
 */
#include "atomic_vars.h"

#include <stdlib.h>
#include <string.h>

bool hs_atomic_var_is_parameter(const char *usr)
{
    return usr && strncmp(usr, "param:", 6) == 0;
}

/* Makes `to` an operation on `from`'s variable: the five identity members of hs_atomic_op
 * (a wrapper's inner operation on the object its call passes, an accessor's call as a load of
 * the variable it returns). */
static void take_variable(hs_atomic_op *to, const hs_atomic_op *from)
{
    to->var = from->var;
    to->var_name = from->var_name;
    to->var_visible = from->var_visible;
    to->var_decl = from->var_decl;
    to->var_field = from->var_field;
}

/*
 * The operations the wrapper parameter `param` stands for, appended to `out` as made for the
 * call `call` (owned by `made`): false when the wrapper does with it something the rule
 * cannot follow (passes it where no facts are, an operation it does not model).
 */
static bool expand_wrapper(hs_strmap *vars, const char *param, const hs_atomic_op *call, int depth, hs_vec *out,
                           hs_vec *made)
{
    const hs_atomic_var *p = hs_strmap_get(vars, param);
    if (!p || depth > 4)
        return false;
    for (size_t i = 0; i < p->uses.len; i++) {
        const hs_atomic_op *w = p->uses.items[i];
        if (w->op == HS_AOP_ESCAPE && w->callee) {
            char *inner = hs_printf("param:%s:%d", w->callee, w->arg);
            /* The inner call's result use is the outer wrapper's: keep the outer call's. */
            bool ok = expand_wrapper(vars, inner, call, depth + 1, out, made);
            free(inner);
            if (!ok)
                return false;
            continue;
        }
        if (w->op == HS_AOP_ESCAPE || w->op == HS_AOP_OTHER || w->op == HS_AOP_PLAIN)
            return false;
        hs_atomic_op *v = hs_xcalloc(1, sizeof *v);
        *v = *w;
        v->site = call->site;
        v->text = call->text;
        v->macro = call->macro;
        v->ordinal = call->ordinal;
        v->tu_index = call->tu_index;
        take_variable(v, call);
        v->form = HS_AFORM_WRAPPER;
        v->api = call->api;
        v->function = call->function;
        v->function_name = call->function_name;
        v->sink = call->sink;
        if (w->use == HS_AUSE_RETURNED) {
            v->use = call->use;
            v->limit_test = call->limit_test;
        }
        v->has_span = v->has_spelled = v->has_order_arg = false;
        v->macro_name = NULL;
        v->callee = NULL;
        v->via = call;
        hs_vec_push(made, v);
        hs_vec_push(out, v);
    }
    return true;
}

/*
 * `PFS_atomic::add_u32(&x.m_u32, 1)` where add_u32's body does `ptr->fetch_add(value)`:
 * the call is the wrapper's operations on x.m_u32. Each escape into a project
 * function whose parameter the function operates on is replaced by those operations; an
 * escape into a function hotscan has no facts of stays an escape.
 */
static void resolve_wrapper_calls(hs_strmap *vars, const hs_vec *order, hs_vec *made)
{
    for (size_t k = 0; k < order->len; k++) {
        if (hs_atomic_var_is_parameter(order->items[k]))
            continue;
        hs_atomic_var *v = hs_strmap_get(vars, order->items[k]);
        hs_vec uses = {0};
        for (size_t i = 0; i < v->uses.len; i++) {
            const hs_atomic_op *u = v->uses.items[i];
            if (u->op == HS_AOP_ESCAPE && u->callee) {
                char *param = hs_printf("param:%s:%d", u->callee, u->arg);
                hs_vec ops = {0};
                bool ok = expand_wrapper(vars, param, u, 0, &ops, made);
                free(param);
                for (size_t j = 0; ok && j < ops.len; j++)
                    hs_vec_push(&uses, ops.items[j]);
                hs_vec_free(&ops);
                if (ok)
                    continue;
            }
            hs_vec_push(&uses, (void *)u);
        }
        hs_vec_free(&v->uses);
        v->uses = uses;
    }
}

/*
 * Object paths and their field (MySQL bug 100432). `events_waits_history_long_index.m_u32`
 * and `digest_monotonic_index.m_u32` are two variables, each judged on its own uses: one
 * wrapper struct used for unrelated globals no longer shares one verdict. But an access
 * through a pointer (`p->m_u32`, the field's own USR) may be any of them, so a path's verdict
 * also reads the field's pointer accesses, and the field's verdict reads every path's.
 */
static void link_paths(hs_strmap *vars, const hs_vec *order)
{
    for (size_t k = 0; k < order->len; k++) {
        hs_atomic_var *v = hs_strmap_get(vars, order->items[k]);
        hs_atomic_var *field = v->field ? hs_strmap_get(vars, v->field) : NULL;
        if (field && field != v)
            hs_vec_push(&field->paths, v);
    }
    for (size_t k = 0; k < order->len; k++) {
        hs_atomic_var *v = hs_strmap_get(vars, order->items[k]);
        for (size_t i = 0; i < v->uses.len; i++)
            hs_vec_push(&v->judged, v->uses.items[i]);
        hs_atomic_var *field = v->field ? hs_strmap_get(vars, v->field) : NULL;
        if (field && field != v)
            for (size_t i = 0; i < field->uses.len; i++)
                hs_vec_push(&v->judged, field->uses.items[i]);
        for (size_t p = 0; p < v->paths.len; p++) {
            const hs_atomic_var *path = v->paths.items[p];
            for (size_t i = 0; i < path->uses.len; i++)
                hs_vec_push(&v->judged, path->uses.items[i]);
        }
    }
}

/* The last component of a qualified name or object path: `refs_` of `rocksdb::LRUElement::refs_`,
 * `opens` of `CountedFileSystem::counters_.opens`. */
static const char *member_name(const char *name)
{
    const char *last = name;
    for (const char *p = name; *p; p++)
        if (*p == ':' || *p == '.')
            last = p + 1;
    return last;
}

/*
 * Each load of a dependent type's member in a template's condition (`while (t && t->refs_)`,
 * `T *t`) is a use of every atomic field of that name: a template's body has no declaration
 * for the member, and its instantiations are not walked. A field is a variable whose
 * identity (USR) or field USR names one ("@FI@"); globals and locals are not members.
 */
static void apply_dependent_members(hs_strmap *vars, const hs_vec *order, const hs_vec *dependent, hs_vec *made)
{
    if (!dependent->len)
        return;
    hs_strmap *by_name = hs_strmap_create(); /* member name -> hs_vec* of the loads */
    for (size_t i = 0; i < dependent->len; i++) {
        const hs_atomic_op *u = dependent->items[i];
        hs_strmap_push(by_name, u->dependent_member, (void *)u);
    }
    size_t n = order->len; /* only the variables of real operations */
    for (size_t k = 0; k < n; k++) {
        hs_atomic_var *v = hs_strmap_get(vars, order->items[k]);
        const hs_atomic_op *first = v->uses.len ? v->uses.items[0] : NULL;
        if (!first || !first->var_name)
            continue;
        bool field = strstr(order->items[k], "@FI@") || (first->var_field && strstr(first->var_field, "@FI@"));
        if (!field)
            continue;
        hs_vec *list = hs_strmap_get(by_name, member_name(first->var_name));
        for (size_t i = 0; list && i < list->len; i++) {
            hs_atomic_op *load = hs_xcalloc(1, sizeof *load);
            *load = *(const hs_atomic_op *)list->items[i];
            take_variable(load, first);
            load->dependent_member = NULL;
            hs_vec_push(made, load);
            hs_vec_push(&v->uses, load);
        }
    }
    hs_strmap_delete_lists(by_name, NULL);
}

hs_atomic_vars *hs_atomic_vars_create(const hs_atomic_store *atomics)
{
    hs_atomic_vars *vars = hs_xcalloc(1, sizeof *vars);
    vars->by_usr = hs_strmap_create();
    /* Accessors of the whole program: function USR -> its "returns" fact. A call
     * in a condition that its TU could not resolve (the accessor's header body was walked for
     * another TU, or another .cc defines it) is a load of what the accessor returns. */
    hs_strmap *returns = hs_strmap_create();
    for (size_t i = 0; i < atomics->len; i++) {
        const hs_atomic_op *u = &atomics->ops[i];
        if (u->op == HS_AOP_RETURNS && u->function && !hs_strmap_has(returns, u->function))
            hs_strmap_put(returns, u->function, (void *)u);
    }
    hs_vec dependent = {0}; /* loads of a dependent type's member, by name: applied below */
    for (size_t i = 0; i < atomics->len; i++) {
        const hs_atomic_op *u = &atomics->ops[i];
        if (u->op == HS_AOP_RETURNS)
            continue;
        if (u->dependent_member) {
            hs_vec_push(&dependent, (void *)u);
            continue;
        }
        if (u->accessor_of) {
            const hs_atomic_op *r = hs_strmap_get(returns, u->accessor_of);
            if (!r)
                continue; /* not an accessor: a call like any other */
            hs_atomic_op *load = hs_xcalloc(1, sizeof *load);
            *load = *u;
            take_variable(load, r);
            load->accessor_of = NULL;
            hs_vec_push(&vars->made, load);
            u = load;
        }
        hs_atomic_var *v = hs_strmap_get(vars->by_usr, u->var);
        if (!v) {
            v = hs_xcalloc(1, sizeof *v);
            hs_strmap_put(vars->by_usr, u->var, v);
            hs_vec_push(&vars->order, (void *)u->var);
        }
        hs_vec_push(&v->uses, (void *)u);
        if (u->var_field && !v->field)
            v->field = u->var_field;
    }
    hs_strmap_delete(returns);
    apply_dependent_members(vars->by_usr, &vars->order, &dependent, &vars->made);
    hs_vec_free(&dependent);
    resolve_wrapper_calls(vars->by_usr, &vars->order, &vars->made);
    link_paths(vars->by_usr, &vars->order);
    return vars;
}

void hs_atomic_vars_delete(hs_atomic_vars *vars)
{
    if (!vars)
        return;
    for (size_t k = 0; k < vars->order.len; k++) {
        hs_atomic_var *v = hs_strmap_get(vars->by_usr, vars->order.items[k]);
        hs_vec_free(&v->uses);
        hs_vec_free(&v->paths);
        hs_vec_free(&v->judged);
        free(v);
    }
    for (size_t i = 0; i < vars->made.len; i++)
        free(vars->made.items[i]);
    hs_vec_free(&vars->made);
    hs_vec_free(&vars->order);
    hs_strmap_delete(vars->by_usr);
    free(vars);
}
