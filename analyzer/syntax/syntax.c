/*
 * syntax.c - one C or C++ file read with tree-sitter (include/hotscan/syntax.h): identifiers,
 * function definitions with their direct calls and the names whose address they take,
 * #include lines, declarations, writing operators and macro definitions.
 *
 * Why: without a compile database libclang cannot parse a real tree (no include paths, no
 * defines), but tree-sitter parses any file on its own, fast and without failing, so the
 * no-build mode and the prefilter read the text this way. Nothing here is resolved: names
 * are names as written; the callers decide what a name means.
 *
 * One recursive walk gathers everything but identifiers (which an iterative cursor pass over
 * every leaf collects, so no depth limit can hide one). The walk stops descending below
 * HS_SYNTAX_MAX_DEPTH nested nodes: a pathological expression costs its inner facts only.
 */
#include "hotscan/syntax.h"
#include "hotscan/common.h"
#include "hotscan/source_file.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <tree_sitter/api.h>

const TSLanguage *tree_sitter_c(void);
const TSLanguage *tree_sitter_cpp(void);

#define HS_SYNTAX_MAX_DEPTH 1500

struct hs_syntax_parser {
    TSParser *ts;
};

struct hs_syntax_file {
    char *path;
    hs_syntax_lang lang;
    char *text;
    size_t len;
    size_t errors;
    hs_vec strings; /* every string the arrays point to */

    const char **idents;
    size_t nidents, cap_idents;
    hs_syntax_function *fns;
    size_t nfns, cap_fns;
    hs_syntax_call *calls;
    size_t ncalls, cap_calls;
    hs_syntax_arg *args;
    size_t nargs, cap_args;
    hs_syntax_include *incs;
    size_t nincs, cap_incs;
    hs_syntax_decl *decls;
    size_t ndecls, cap_decls;
    hs_syntax_update *upds;
    size_t nupds, cap_upds;
    hs_syntax_macro *macros;
    size_t nmacros, cap_macros;
    hs_syntax_branch *branches;
    size_t nbranches, cap_branches;
    hs_syntax_ref *refs;
    size_t nrefs, cap_refs;
    const char **file_addr;
    size_t nfile_addr, cap_file_addr;
};

/* Per-function lists, sorted and made distinct when the function ends. */
typedef struct {
    const char **items;
    size_t len, cap;
} name_list;

typedef struct {
    hs_syntax_file *f;
    const char *scopes[64]; /* enclosing namespaces and classes */
    size_t nscopes;
    size_t fn;              /* current function or HS_SYNTAX_NONE */
    name_list callees, addr;
    size_t loops[64];
    size_t nloops;
    char loop_path[64 * 21];
    unsigned in_condition;
    unsigned lambda;
    bool error_path;
    unsigned preproc_if;
    const char *record;     /* the struct/class whose fields are being walked */
    unsigned in_loop_condition;
    size_t fn_end;          /* the current function's end offset */
    struct {
        size_t end;
        bool loop;
    } targets[64];          /* break targets: loops and switches, innermost last */
    size_t ntargets;
    hs_syntax_branch arms[64]; /* the enclosing branch arms, outermost first */
    size_t narms;
    size_t lambdas[64];
    size_t statement;       /* start of the current statement */
    TSNode written, address, limit; /* the operand a parent marked: assigned, &, compared to a limit */
} walker;

/* ---- small helpers ---- */

static const char *own(hs_syntax_file *f, char *s)
{
    hs_vec_push(&f->strings, s);
    return s;
}

static bool is_ident_char(int c)
{
    return isalnum(c) || c == '_' || c == '$';
}

/* The text of [a, b) with whitespace and comments dropped, except one space between two
 * identifier characters (`unsigned long`). */
static char *squeeze(const char *s, size_t n)
{
    hs_buf b;
    hs_buf_init(&b);
    size_t i = 0;
    bool pending_space = false;
    while (i < n) {
        char c = s[i];
        if (c == '/' && i + 1 < n && s[i + 1] == '*') {
            const char *e = NULL;
            for (size_t j = i + 2; j + 1 < n; j++)
                if (s[j] == '*' && s[j + 1] == '/') { e = s + j + 2; break; }
            i = e ? (size_t)(e - s) : n;
            pending_space = true;
            continue;
        }
        if (c == '/' && i + 1 < n && s[i + 1] == '/') {
            while (i < n && s[i] != '\n')
                i++;
            pending_space = true;
            continue;
        }
        if (c == '\\' && i + 1 < n && (s[i + 1] == '\n' || s[i + 1] == '\r')) {
            i += 2;
            pending_space = true;
            continue;
        }
        if (isspace((unsigned char)c)) {
            pending_space = true;
            i++;
            continue;
        }
        if (pending_space && b.len > 0 && is_ident_char((unsigned char)b.data[b.len - 1]) &&
            is_ident_char((unsigned char)c))
            hs_buf_append(&b, " ", 1);
        pending_space = false;
        hs_buf_append(&b, &c, 1);
        i++;
    }
    if (!b.data)
        hs_buf_append(&b, "", 0);
    return hs_buf_take(&b);
}

static const char *node_text(walker *w, TSNode n)
{
    uint32_t a = ts_node_start_byte(n), e = ts_node_end_byte(n);
    return own(w->f, squeeze(w->f->text + a, e - a));
}

static const char *type_of(TSNode n)
{
    return ts_node_type(n);
}

static bool is(TSNode n, const char *type)
{
    return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}

static TSNode field(TSNode n, const char *name)
{
    return ts_node_child_by_field_name(n, name, (uint32_t)strlen(name));
}

static hs_syntax_span span_of(TSNode n)
{
    hs_syntax_span s;
    TSPoint a = ts_node_start_point(n), e = ts_node_end_point(n);
    s.line = a.row + 1;
    s.column = a.column + 1;
    s.end_line = e.row + 1;
    s.end_column = e.column + 1;
    s.offset = ts_node_start_byte(n);
    s.length = ts_node_end_byte(n) - ts_node_start_byte(n);
    return s;
}

static void list_add(name_list *l, const char *s)
{
    l->items = hs_array_append(l->items, &l->len, &l->cap, sizeof *l->items);
    l->items[l->len - 1] = s;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorts and removes duplicates in place; returns the new length. */
static size_t sort_unique(const char **items, size_t n)
{
    if (n == 0)
        return 0;
    qsort(items, n, sizeof *items, cmp_str);
    size_t k = 1;
    for (size_t i = 1; i < n; i++)
        if (strcmp(items[i], items[k - 1]) != 0)
            items[k++] = items[i];
    return k;
}

/* `A<T>::f<U>` -> `A::f`; an operator's own `<` is kept (`operator<`, `operator<<`). */
static char *drop_template_args(const char *s)
{
    hs_buf b;
    hs_buf_init(&b);
    int depth = 0;
    for (const char *p = s; *p; p++) {
        if (strncmp(p, "operator", 8) == 0 && (p == s || !is_ident_char((unsigned char)p[-1])) &&
            depth == 0) {
            hs_buf_puts(&b, p); /* the rest is the operator's name */
            break;
        }
        if (*p == '<') {
            depth++;
            continue;
        }
        if (*p == '>' && depth > 0) {
            depth--;
            continue;
        }
        if (depth == 0)
            hs_buf_append(&b, p, 1);
    }
    if (!b.data)
        hs_buf_append(&b, "", 0);
    return hs_buf_take(&b);
}

/* ---- names of things ---- */

/* The name node of a declarator: peels pointers, references, parentheses, arrays, attributes,
 * init_declarator and function declarators. */
static TSNode declarator_name(TSNode d)
{
    for (int guard = 0; guard < 64 && !ts_node_is_null(d); guard++) {
        const char *t = type_of(d);
        if (strcmp(t, "identifier") == 0 || strcmp(t, "field_identifier") == 0 ||
            strcmp(t, "qualified_identifier") == 0 || strcmp(t, "destructor_name") == 0 ||
            strcmp(t, "operator_name") == 0 || strcmp(t, "template_function") == 0 ||
            strcmp(t, "type_identifier") == 0 || strcmp(t, "operator_cast") == 0)
            return d;
        TSNode inner = field(d, "declarator");
        if (ts_node_is_null(inner)) {
            /* parenthesized_declarator and some wrappers have an unnamed child */
            uint32_t n = ts_node_named_child_count(d);
            TSNode next = {0};
            bool found = false;
            for (uint32_t i = 0; i < n; i++) {
                TSNode c = ts_node_named_child(d, i);
                const char *ct = type_of(c);
                if (strstr(ct, "declarator") || strcmp(ct, "identifier") == 0 ||
                    strcmp(ct, "field_identifier") == 0 || strcmp(ct, "qualified_identifier") == 0) {
                    next = c;
                    found = true;
                    break;
                }
            }
            if (!found)
                return (TSNode){0};
            inner = next;
        }
        d = inner;
    }
    return (TSNode){0};
}

/* True when a declarator (peeled as above) contains a function_declarator. */
static bool declares_function(TSNode d)
{
    for (int guard = 0; guard < 64 && !ts_node_is_null(d); guard++) {
        const char *t = type_of(d);
        if (strcmp(t, "function_declarator") == 0) {
            /* `T (*fp)(int)`: a pointer to a function, not a function */
            TSNode inner = field(d, "declarator");
            if (is(inner, "parenthesized_declarator")) {
                uint32_t k = ts_node_named_child_count(inner);
                for (uint32_t i = 0; i < k; i++)
                    if (is(ts_node_named_child(inner, i), "pointer_declarator"))
                        return false;
            }
            return true;
        }
        if (strcmp(t, "pointer_declarator") == 0 || strcmp(t, "parenthesized_declarator") == 0) {
            /* `void (*fp)(int)` is a pointer to a function, not a function */
            TSNode inner = field(d, "declarator");
            if (ts_node_is_null(inner) && ts_node_named_child_count(d) > 0)
                inner = ts_node_named_child(d, 0);
            if (is(inner, "function_declarator") || strcmp(t, "pointer_declarator") == 0)
                return false;
            d = inner;
            continue;
        }
        TSNode inner = field(d, "declarator");
        if (ts_node_is_null(inner))
            return false;
        d = inner;
    }
    return false;
}

static bool declarator_is_pointer(TSNode d)
{
    for (int guard = 0; guard < 64 && !ts_node_is_null(d); guard++) {
        const char *t = type_of(d);
        if (strcmp(t, "pointer_declarator") == 0 || strcmp(t, "array_declarator") == 0)
            return true;
        TSNode inner = field(d, "declarator");
        if (ts_node_is_null(inner))
            return false;
        d = inner;
    }
    return false;
}

static bool has_storage(TSNode decl, walker *w, const char *what)
{
    uint32_t n = ts_node_child_count(decl);
    for (uint32_t i = 0; i < n; i++) {
        TSNode c = ts_node_child(decl, i);
        if (is(c, "storage_class_specifier")) {
            uint32_t a = ts_node_start_byte(c), e = ts_node_end_byte(c);
            if (e - a == strlen(what) && memcmp(w->f->text + a, what, e - a) == 0)
                return true;
        }
    }
    return false;
}

/* The type of a declaration as written: qualifiers and the type specifier, in order. */
static char *decl_type_text(walker *w, TSNode decl, TSNode declarator)
{
    hs_buf b;
    hs_buf_init(&b);
    uint32_t n = ts_node_named_child_count(decl);
    for (uint32_t i = 0; i < n; i++) {
        TSNode c = ts_node_named_child(decl, i);
        const char *t = type_of(c);
        if (strcmp(t, "storage_class_specifier") == 0 || strstr(t, "declarator") ||
            strcmp(t, "identifier") == 0 || strcmp(t, "field_identifier") == 0 ||
            strcmp(t, "comment") == 0 || strcmp(t, "attribute_specifier") == 0 ||
            strcmp(t, "bitfield_clause") == 0)
            continue;
        uint32_t a = ts_node_start_byte(c), e = ts_node_end_byte(c);
        /* a struct body inline: keep only `struct name` */
        if ((strcmp(t, "struct_specifier") == 0 || strcmp(t, "union_specifier") == 0 ||
             strcmp(t, "class_specifier") == 0 || strcmp(t, "enum_specifier") == 0)) {
            TSNode body = field(c, "body");
            if (!ts_node_is_null(body))
                e = ts_node_start_byte(body);
        }
        char *s = squeeze(w->f->text + a, e - a);
        if (b.len)
            hs_buf_puts(&b, " ");
        hs_buf_puts(&b, s);
        free(s);
    }
    /* pointer stars of this declarator */
    for (TSNode d = declarator; !ts_node_is_null(d);) {
        if (is(d, "pointer_declarator"))
            hs_buf_puts(&b, "*");
        else if (is(d, "reference_declarator"))
            hs_buf_puts(&b, "&");
        TSNode inner = field(d, "declarator");
        if (ts_node_is_null(inner) && (is(d, "reference_declarator") || is(d, "parenthesized_declarator")) &&
            ts_node_named_child_count(d) > 0)
            inner = ts_node_named_child(d, 0);
        d = inner;
    }
    if (!b.data)
        hs_buf_append(&b, "", 0);
    return hs_buf_take(&b);
}

static bool word_in(const char *s, const char *word, bool prefix)
{
    size_t n = strlen(word);
    for (const char *p = strstr(s, word); p; p = strstr(p + 1, word)) {
        bool left = p == s || !is_ident_char((unsigned char)p[-1]);
        bool right = prefix || !is_ident_char((unsigned char)p[n]);
        if (left && right)
            return true;
    }
    return false;
}

static bool type_is_atomic(const char *type)
{
    return word_in(type, "_Atomic", false) || word_in(type, "atomic", false) ||
           word_in(type, "atomic_", true) || word_in(type, "__atomic", false);
}

/* ---- records ---- */

static void add_decl(walker *w, TSNode decl, TSNode declarator, hs_syntax_scope scope)
{
    TSNode name = declarator_name(declarator);
    if (ts_node_is_null(name))
        return;
    hs_syntax_file *f = w->f;
    f->decls = hs_array_append(f->decls, &f->ndecls, &f->cap_decls, sizeof *f->decls);
    hs_syntax_decl *d = &f->decls[f->ndecls - 1];
    d->name = node_text(w, name);
    d->type = own(f, decl_type_text(w, decl, declarator));
    d->record = scope == HS_SYNTAX_SCOPE_FIELD ? (w->record ? w->record : "") : NULL;
    d->scope = scope;
    d->is_static = has_storage(decl, w, "static");
    d->atomic = type_is_atomic(d->type);
    d->pointer = declarator_is_pointer(declarator);
    d->function = (scope == HS_SYNTAX_SCOPE_LOCAL || scope == HS_SYNTAX_SCOPE_PARAM) ? w->fn : HS_SYNTAX_NONE;
    d->span = span_of(name);
}

/* The root name of an lvalue-ish expression: `x`, `&x`, `x.f`, `p->f`, `x[i]`, `*p`, `(x)`. */
static const char *root_name(walker *w, TSNode e, bool *address_of)
{
    if (address_of)
        *address_of = false;
    for (int guard = 0; guard < 32 && !ts_node_is_null(e); guard++) {
        const char *t = type_of(e);
        if (strcmp(t, "identifier") == 0 || strcmp(t, "qualified_identifier") == 0)
            return node_text(w, e);
        if (strcmp(t, "field_expression") == 0) {
            TSNode fl = field(e, "field");
            return ts_node_is_null(fl) ? NULL : node_text(w, fl);
        }
        if (strcmp(t, "pointer_expression") == 0) {
            TSNode op = field(e, "operator");
            if (!ts_node_is_null(op) && w->f->text[ts_node_start_byte(op)] == '&' && address_of)
                *address_of = true;
            e = field(e, "argument");
            continue;
        }
        if (strcmp(t, "subscript_expression") == 0) {
            e = field(e, "argument");
            continue;
        }
        if (strcmp(t, "parenthesized_expression") == 0) {
            if (ts_node_named_child_count(e) == 0)
                return NULL;
            e = ts_node_named_child(e, 0);
            continue;
        }
        return NULL;
    }
    return NULL;
}

static bool result_unused(TSNode n)
{
    TSNode p = ts_node_parent(n);
    while (is(p, "parenthesized_expression"))
        p = ts_node_parent(p);
    if (is(p, "expression_statement"))
        return true;
    if (is(p, "cast_expression")) {
        /* (void)f() */
        TSNode ty = field(p, "type");
        (void)ty;
        TSNode pp = ts_node_parent(p);
        return is(pp, "expression_statement");
    }
    if (is(p, "comma_expression")) {
        TSNode pp = ts_node_parent(p);
        return is(pp, "expression_statement");
    }
    if (is(p, "for_statement")) {
        /* the update clause */
        TSNode upd = field(p, "update");
        return !ts_node_is_null(upd) && ts_node_eq(upd, n);
    }
    return false;
}

static const char *const abort_like[] = {
    "abort", "std::abort", "std::terminate", "__assert_fail", "__assert_rtn", "__builtin_unreachable",
    "__builtin_trap", "ut_error", "ut_dbg_assertion_failed", "_exit", "_Exit", "quick_exit", "panic",
    "serverPanic", "redis_panic",
};

static bool is_abort_call(walker *w, TSNode stmt)
{
    if (!is(stmt, "expression_statement") || ts_node_named_child_count(stmt) == 0)
        return false;
    TSNode e = ts_node_named_child(stmt, 0);
    if (!is(e, "call_expression"))
        return false;
    TSNode fn = field(e, "function");
    if (!is(fn, "identifier") && !is(fn, "qualified_identifier"))
        return false;
    uint32_t a = ts_node_start_byte(fn), b = ts_node_end_byte(fn);
    for (size_t i = 0; i < sizeof abort_like / sizeof abort_like[0]; i++)
        if (strlen(abort_like[i]) == b - a && memcmp(abort_like[i], w->f->text + a, b - a) == 0)
            return true;
    return false;
}

static void set_loop_path(walker *w)
{
    size_t k = 0;
    w->loop_path[0] = 0;
    for (size_t i = 0; i < w->nloops && k + 22 < sizeof w->loop_path; i++)
        k += (size_t)snprintf(w->loop_path + k, sizeof w->loop_path - k, "%s%zu", i ? "/" : "", w->loops[i]);
}

static void note_address(walker *w, TSNode value)
{
    if (is(value, "identifier") || is(value, "qualified_identifier")) {
        const char *s = node_text(w, value);
        if (w->fn == HS_SYNTAX_NONE) {
            hs_syntax_file *f = w->f;
            f->file_addr = hs_array_append(f->file_addr, &f->nfile_addr, &f->cap_file_addr, sizeof *f->file_addr);
            f->file_addr[f->nfile_addr - 1] = s;
        } else {
            list_add(&w->addr, s);
        }
    }
}

static void walk(walker *w, TSNode n, unsigned depth);

static void walk_children(walker *w, TSNode n, unsigned depth)
{
    uint32_t k = ts_node_child_count(n);
    for (uint32_t i = 0; i < k; i++) {
        TSNode c = ts_node_child(n, i);
        if (ts_node_is_named(c))
            walk(w, c, depth + 1);
    }
}

static void record_call(walker *w, TSNode n)
{
    hs_syntax_file *f = w->f;
    TSNode fn = field(n, "function");
    TSNode args = field(n, "arguments");
    f->calls = hs_array_append(f->calls, &f->ncalls, &f->cap_calls, sizeof *f->calls);
    size_t ci = f->ncalls - 1;
    hs_syntax_call *c = &f->calls[ci];
    c->function = w->fn;
    c->span = span_of(n);
    c->name_span = ts_node_is_null(fn) ? c->span : span_of(fn);
    c->callee_text = ts_node_is_null(fn) ? "" : node_text(w, fn);
    c->loop_depth = (unsigned)w->nloops;
    c->loop_offset = w->nloops ? w->loops[w->nloops - 1] : 0;
    set_loop_path(w);
    c->loop_path = own(f, hs_xstrdup(w->loop_path));
    c->in_condition = w->in_condition > 0;
    c->error_path = w->error_path;
    c->result_used = !result_unused(n);
    c->in_lambda = w->lambda > 0;
    c->in_loop_condition = w->in_loop_condition > 0;
    c->lambda_offset = w->lambda > 0 && w->lambda <= 64 ? w->lambdas[w->lambda - 1] : 0;
    c->statement_offset = w->statement;
    c->first_branch = f->nbranches;
    for (size_t i = 0; i < w->narms; i++) {
        f->branches = hs_array_append(f->branches, &f->nbranches, &f->cap_branches, sizeof *f->branches);
        f->branches[f->nbranches - 1] = w->arms[i];
    }
    c = &f->calls[ci];
    c->nbranches = f->nbranches - c->first_branch;
    if (is(fn, "identifier") || is(fn, "qualified_identifier") || is(fn, "template_function")) {
        c->callee = own(f, drop_template_args(c->callee_text));
    } else if (is(fn, "field_expression")) {
        TSNode fl = field(fn, "field");
        TSNode obj = field(fn, "argument");
        TSNode op = field(fn, "operator");
        if (!ts_node_is_null(fl))
            c->callee = own(f, drop_template_args(node_text(w, fl)));
        if (!ts_node_is_null(obj))
            c->object = node_text(w, obj);
        c->arrow = !ts_node_is_null(op) && f->text[ts_node_start_byte(op)] == '-';
    }
    if (c->callee && w->fn != HS_SYNTAX_NONE)
        list_add(&w->callees, c->callee);
    c->first_arg = f->nargs;
    if (!ts_node_is_null(args)) {
        uint32_t na = ts_node_named_child_count(args);
        for (uint32_t i = 0; i < na; i++) {
            TSNode a = ts_node_named_child(args, i);
            if (is(a, "comment"))
                continue;
            f->args = hs_array_append(f->args, &f->nargs, &f->cap_args, sizeof *f->args);
            hs_syntax_arg *ar = &f->args[f->nargs - 1];
            ar->text = node_text(w, a);
            ar->span = span_of(a);
            ar->name = root_name(w, a, &ar->address_of);
            note_address(w, a);
        }
    }
    f->calls[ci].nargs = f->nargs - f->calls[ci].first_arg;
}

static void record_update(walker *w, TSNode n, TSNode target, hs_syntax_update_op op, bool prefix, TSNode value)
{
    hs_syntax_file *f = w->f;
    f->upds = hs_array_append(f->upds, &f->nupds, &f->cap_upds, sizeof *f->upds);
    hs_syntax_update *u = &f->upds[f->nupds - 1];
    u->name = root_name(w, target, NULL);
    u->target = node_text(w, target);
    u->op = op;
    u->prefix = prefix;
    u->value = ts_node_is_null(value) ? NULL : node_text(w, value);
    u->function = w->fn;
    u->span = span_of(n);
    u->loop_depth = (unsigned)w->nloops;
    u->loop_offset = w->nloops ? w->loops[w->nloops - 1] : 0;
    u->result_used = !result_unused(n);
    u->in_condition = w->in_condition > 0;
    u->in_loop_condition = w->in_loop_condition > 0;
}

static bool is_zero_condition(walker *w, TSNode cond)
{
    while (is(cond, "parenthesized_expression") && ts_node_named_child_count(cond) == 1)
        cond = ts_node_named_child(cond, 0);
    if (!is(cond, "number_literal"))
        return false;
    uint32_t a = ts_node_start_byte(cond), b = ts_node_end_byte(cond);
    return b - a == 1 && w->f->text[a] == '0';
}

static void walk_in_loop(walker *w, TSNode loop, TSNode part, unsigned depth)
{
    if (ts_node_is_null(part))
        return;
    bool target = w->ntargets < sizeof w->targets / sizeof w->targets[0];
    if (target) {
        w->targets[w->ntargets].end = ts_node_end_byte(loop);
        w->targets[w->ntargets++].loop = true;
    }
    if (w->nloops < sizeof w->loops / sizeof w->loops[0]) {
        w->loops[w->nloops++] = ts_node_start_byte(loop);
        walk(w, part, depth + 1);
        w->nloops--;
    } else {
        walk(w, part, depth + 1);
    }
    if (target)
        w->ntargets--;
}

static void walk_loop_condition(walker *w, TSNode loop, TSNode cond, unsigned depth)
{
    if (ts_node_is_null(cond))
        return;
    w->in_condition++;
    w->in_loop_condition++;
    walk_in_loop(w, loop, cond, depth);
    w->in_loop_condition--;
    w->in_condition--;
}

/* Where control goes after an arm: the function's end for return/goto/throw/abort, the
 * innermost break target's end for break, the innermost loop's end for continue; 0 when the
 * arm falls through. */
static long long arm_exit(walker *w, TSNode arm)
{
    for (int guard = 0; guard < 16 && !ts_node_is_null(arm); guard++) {
        const char *t = type_of(arm);
        if (strcmp(t, "compound_statement") == 0 || strcmp(t, "else_clause") == 0 ||
            strcmp(t, "case_statement") == 0) {
            uint32_t n = ts_node_named_child_count(arm);
            TSNode last = {0};
            bool found = false;
            for (uint32_t i = n; i > 0; i--) {
                TSNode c = ts_node_named_child(arm, i - 1);
                if (!is(c, "comment")) {
                    last = c;
                    found = true;
                    break;
                }
            }
            if (!found || (strcmp(t, "case_statement") == 0 && ts_node_eq(last, field(arm, "value"))))
                return 0;
            arm = last;
            continue;
        }
        if (strcmp(t, "return_statement") == 0 || strcmp(t, "goto_statement") == 0 ||
            strcmp(t, "throw_statement") == 0)
            return (long long)w->fn_end;
        if (strcmp(t, "break_statement") == 0)
            return w->ntargets ? (long long)w->targets[w->ntargets - 1].end : 0;
        if (strcmp(t, "continue_statement") == 0) {
            for (size_t i = w->ntargets; i > 0; i--)
                if (w->targets[i - 1].loop)
                    return (long long)w->targets[i - 1].end;
            return 0;
        }
        if (strcmp(t, "expression_statement") == 0 && is_abort_call(w, arm))
            return (long long)w->fn_end;
        return 0;
    }
    return 0;
}

static bool condition_samples(walker *w, TSNode cond)
{
    if (ts_node_is_null(cond))
        return false;
    uint32_t a = ts_node_start_byte(cond), b = ts_node_end_byte(cond);
    for (uint32_t i = a; i < b; i++) {
        char c = w->f->text[i];
        if (c == '%')
            return true;
        if (c == '&' && (i + 1 >= b || w->f->text[i + 1] != '&') && (i == a || w->f->text[i - 1] != '&')) {
            /* `a & b`, not `&x` (an address: preceded by an operator or an opening parenthesis) */
            uint32_t j = i;
            while (j > a && isspace((unsigned char)w->f->text[j - 1]))
                j--;
            if (j > a && (is_ident_char((unsigned char)w->f->text[j - 1]) || w->f->text[j - 1] == ')'))
                return true;
        }
    }
    return false;
}

static void walk_arm(walker *w, TSNode node, TSNode arm, unsigned index, bool sampled, unsigned depth)
{
    if (ts_node_is_null(arm))
        return;
    bool pushed = w->narms < sizeof w->arms / sizeof w->arms[0];
    if (pushed) {
        hs_syntax_branch *b = &w->arms[w->narms++];
        b->node = ts_node_start_byte(node);
        b->node_end = ts_node_end_byte(node);
        b->arm = index;
        b->exit_until = arm_exit(w, arm);
        b->sampled = sampled;
    }
    walk(w, arm, depth + 1);
    if (pushed)
        w->narms--;
}

static void walk_switch_body(walker *w, TSNode sw, TSNode body, unsigned depth)
{
    bool target = w->ntargets < sizeof w->targets / sizeof w->targets[0];
    if (target) {
        w->targets[w->ntargets].end = ts_node_end_byte(sw);
        w->targets[w->ntargets++].loop = false;
    }
    uint32_t n = ts_node_named_child_count(body);
    unsigned arm = 0;
    for (uint32_t i = 0; i < n; i++) {
        TSNode c = ts_node_named_child(body, i);
        if (!is(c, "case_statement")) {
            walk(w, c, depth + 1);
            continue;
        }
        long long exit = arm_exit(w, c);
        /* a case that falls through shares its arm with the next */
        bool pushed = w->narms < sizeof w->arms / sizeof w->arms[0];
        if (pushed) {
            hs_syntax_branch *b = &w->arms[w->narms++];
            b->node = ts_node_start_byte(sw);
            b->node_end = ts_node_end_byte(sw);
            b->arm = arm;
            b->exit_until = exit;
            b->sampled = false;
        }
        uint32_t k = ts_node_named_child_count(c);
        TSNode value = field(c, "value");
        for (uint32_t j = 0; j < k; j++) {
            TSNode s = ts_node_named_child(c, j);
            if (!ts_node_is_null(value) && ts_node_eq(s, value))
                continue;
            w->statement = ts_node_start_byte(s);
            walk(w, s, depth + 2);
        }
        if (pushed)
            w->narms--;
        if (exit != 0)
            arm++;
    }
    if (target)
        w->ntargets--;
}

static void walk_condition(walker *w, TSNode cond, unsigned depth)
{
    if (ts_node_is_null(cond))
        return;
    w->in_condition++;
    walk(w, cond, depth + 1);
    w->in_condition--;
}

static void begin_function(walker *w, TSNode def)
{
    hs_syntax_file *f = w->f;
    TSNode decl = field(def, "declarator");
    TSNode name = declarator_name(decl);
    f->fns = hs_array_append(f->fns, &f->nfns, &f->cap_fns, sizeof *f->fns);
    size_t fi = f->nfns - 1;
    hs_syntax_function *fn = &f->fns[fi];
    const char *written = ts_node_is_null(name) ? "" : node_text(w, name);
    char *plain = drop_template_args(written);
    hs_buf q;
    hs_buf_init(&q);
    /* A name written `A::f` already says its class; the enclosing scopes still come first. */
    for (size_t i = 0; i < w->nscopes; i++) {
        if (!w->scopes[i][0])
            continue;
        hs_buf_puts(&q, w->scopes[i]);
        hs_buf_puts(&q, "::");
    }
    hs_buf_puts(&q, plain);
    free(plain);
    fn->name = own(f, hs_buf_take(&q));
    const char *last = fn->name;
    for (const char *p = fn->name; *p; p++) {
        if (strncmp(p, "operator", 8) == 0)
            break;
        if (p[0] == ':' && p[1] == ':')
            last = p + 2;
    }
    fn->base_name = last;
    fn->is_static = has_storage(def, w, "static");
    fn->is_method = w->record != NULL || strstr(written, "::") != NULL;
    fn->span = span_of(def);
    fn->name_span = ts_node_is_null(name) ? fn->span : span_of(name);
    TSNode body = field(def, "body");
    fn->body = ts_node_is_null(body) ? fn->span : span_of(body);
    fn->first_call = f->ncalls;
    w->fn_end = ts_node_end_byte(def);
    w->narms = 0;
    w->ntargets = 0;
    w->in_loop_condition = 0;
    w->fn = fi;
    w->callees.len = 0;
    w->addr.len = 0;
    w->nloops = 0;
    w->in_condition = 0;
    w->lambda = 0;
    w->error_path = false;
}

static void end_function(walker *w)
{
    hs_syntax_file *f = w->f;
    hs_syntax_function *fn = &f->fns[w->fn];
    fn->ncalls = f->ncalls - fn->first_call;
    size_t n = sort_unique(w->callees.items, w->callees.len);
    const char **c = hs_xmalloc((n ? n : 1) * sizeof *c);
    if (n) /* items is NULL when the function calls nothing: memcpy must not get it */
        memcpy(c, w->callees.items, n * sizeof *c);
    own(f, (char *)c);
    fn->callees = c;
    fn->ncallees = n;
    n = sort_unique(w->addr.items, w->addr.len);
    const char **a = hs_xmalloc((n ? n : 1) * sizeof *a);
    if (n)
        memcpy(a, w->addr.items, n * sizeof *a);
    own(f, (char *)a);
    fn->address_taken = a;
    fn->naddress_taken = n;
    w->fn = HS_SYNTAX_NONE;
}

/* Parameters of a function definition's declarator. */
static void walk_params(walker *w, TSNode decl)
{
    for (int guard = 0; guard < 64 && !ts_node_is_null(decl); guard++) {
        if (is(decl, "function_declarator")) {
            TSNode params = field(decl, "parameters");
            uint32_t n = ts_node_named_child_count(params);
            for (uint32_t i = 0; i < n; i++) {
                TSNode p = ts_node_named_child(params, i);
                if (is(p, "parameter_declaration") || is(p, "optional_parameter_declaration")) {
                    TSNode d = field(p, "declarator");
                    if (!ts_node_is_null(d))
                        add_decl(w, p, d, HS_SYNTAX_SCOPE_PARAM);
                }
            }
            return;
        }
        decl = field(decl, "declarator");
    }
}

static void walk_function(walker *w, TSNode def, unsigned depth)
{
    if (w->fn != HS_SYNTAX_NONE) {
        /* a method of a local class: part of the enclosing function */
        walk_children(w, def, depth);
        return;
    }
    /* A definition can sit inside a statement at file scope (the grammar takes a top-level
     * `for`, and error recovery makes `for(;){t e{}}` one): begin_function resets the
     * loops, break targets, arms and conditions that statement's walk pops again when it
     * ends, so they are kept here and put back (the pops once ran below zero). */
    walker *outer = hs_xmalloc(sizeof *outer);
    *outer = *w;
    begin_function(w, def);
    walk_params(w, field(def, "declarator"));
    uint32_t k = ts_node_named_child_count(def);
    for (uint32_t i = 0; i < k; i++) {
        TSNode c = ts_node_named_child(def, i);
        if (is(c, "compound_statement") || is(c, "field_initializer_list") || is(c, "try_statement") ||
            is(c, "function_try_block"))
            walk(w, c, depth + 1);
    }
    end_function(w);
    memcpy(w->loops, outer->loops, sizeof w->loops);
    w->nloops = outer->nloops;
    memcpy(w->loop_path, outer->loop_path, sizeof w->loop_path);
    w->in_condition = outer->in_condition;
    w->lambda = outer->lambda;
    memcpy(w->lambdas, outer->lambdas, sizeof w->lambdas);
    w->error_path = outer->error_path;
    w->in_loop_condition = outer->in_loop_condition;
    w->fn_end = outer->fn_end;
    memcpy(w->targets, outer->targets, sizeof w->targets);
    w->ntargets = outer->ntargets;
    memcpy(w->arms, outer->arms, sizeof w->arms);
    w->narms = outer->narms;
    w->statement = outer->statement;
    free(outer);
}

static void walk_declaration(walker *w, TSNode decl, unsigned depth, hs_syntax_scope scope)
{
    uint32_t k = ts_node_child_count(decl);
    for (uint32_t i = 0; i < k; i++) {
        TSNode c = ts_node_child(decl, i);
        if (!ts_node_is_named(c))
            continue;
        const char *t = type_of(c);
        if (strcmp(t, "init_declarator") == 0) {
            TSNode d = field(c, "declarator");
            if (!declares_function(d))
                add_decl(w, decl, d, scope);
            TSNode v = field(c, "value");
            if (!ts_node_is_null(v)) {
                note_address(w, v);
                walk(w, v, depth + 1);
            }
        } else if (strstr(t, "declarator") || strcmp(t, "identifier") == 0 || strcmp(t, "field_identifier") == 0) {
            if (!declares_function(c))
                add_decl(w, decl, c, scope);
        } else if (strcmp(t, "struct_specifier") == 0 || strcmp(t, "union_specifier") == 0 ||
                   strcmp(t, "class_specifier") == 0) {
            walk(w, c, depth + 1);
        } else if (strcmp(t, "initializer_list") == 0 || strcmp(t, "argument_list") == 0) {
            walk(w, c, depth + 1); /* C++ `T x{...}` / `T x(...)` */
        }
    }
}

static void walk_record(walker *w, TSNode n, unsigned depth)
{
    TSNode name = field(n, "name");
    TSNode body = field(n, "body");
    if (ts_node_is_null(body))
        return;
    const char *rname = ts_node_is_null(name) ? "" : own(w->f, drop_template_args(node_text(w, name)));
    const char *saved = w->record;
    w->record = rname;
    bool pushed = false;
    if (w->fn == HS_SYNTAX_NONE && w->nscopes < sizeof w->scopes / sizeof w->scopes[0]) {
        w->scopes[w->nscopes++] = rname;
        pushed = true;
    }
    uint32_t k = ts_node_named_child_count(body);
    for (uint32_t i = 0; i < k; i++) {
        TSNode c = ts_node_named_child(body, i);
        if (is(c, "field_declaration")) {
            uint32_t m = ts_node_named_child_count(c);
            for (uint32_t j = 0; j < m; j++) {
                TSNode d = ts_node_named_child(c, j);
                const char *t = type_of(d);
                if ((strstr(t, "declarator") || strcmp(t, "field_identifier") == 0) && !declares_function(d))
                    add_decl(w, c, d, HS_SYNTAX_SCOPE_FIELD);
                else if (strcmp(t, "struct_specifier") == 0 || strcmp(t, "union_specifier") == 0 ||
                         strcmp(t, "class_specifier") == 0)
                    walk(w, d, depth + 1);
                else if (strcmp(t, "initializer_list") == 0 || strcmp(t, "number_literal") == 0)
                    walk(w, d, depth + 1);
            }
        } else {
            walk(w, c, depth + 1);
        }
    }
    if (pushed)
        w->nscopes--;
    w->record = saved;
}

static void walk_compound(walker *w, TSNode n, unsigned depth)
{
    uint32_t k = ts_node_named_child_count(n);
    uint32_t last_abort = 0;
    bool any = false;
    for (uint32_t i = 0; i < k; i++)
        if (is_abort_call(w, ts_node_named_child(n, i))) {
            last_abort = i;
            any = true;
        }
    bool saved = w->error_path;
    for (uint32_t i = 0; i < k; i++) {
        if (any && i < last_abort)
            w->error_path = true;
        else
            w->error_path = saved;
        TSNode c = ts_node_named_child(n, i);
        w->statement = ts_node_start_byte(c);
        walk(w, c, depth + 1);
    }
    w->error_path = saved;
}

static TSNode unparen(TSNode n)
{
    while (is(n, "parenthesized_expression") && ts_node_named_child_count(n) == 1)
        n = ts_node_named_child(n, 0);
    return n;
}

/* The named object an operand is: `(x)`, `x[i]`, `p->a[i]` -> the name or field expression. */
static TSNode operand_object(TSNode n)
{
    for (int guard = 0; guard < 16; guard++) {
        n = unparen(n);
        if (!is(n, "subscript_expression"))
            return n;
        TSNode inner = field(n, "argument");
        if (ts_node_is_null(inner))
            return n;
        n = inner;
    }
    return n;
}

static bool small_constant(walker *w, TSNode n)
{
    n = unparen(n);
    if (is(n, "unary_expression") && ts_node_named_child_count(n) == 1)
        n = unparen(ts_node_named_child(n, 0));
    if (!is(n, "number_literal"))
        return false;
    uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
    return b - a == 1 && (w->f->text[a] == '0' || w->f->text[a] == '1');
}

static void record_ref(walker *w, TSNode n, TSNode name, bool is_field)
{
    hs_syntax_file *f = w->f;
    f->refs = hs_array_append(f->refs, &f->nrefs, &f->cap_refs, sizeof *f->refs);
    hs_syntax_ref *r = &f->refs[f->nrefs - 1];
    r->name = node_text(w, name);
    r->field = is_field;
    r->function = w->fn;
    r->span = span_of(n);
    r->written = !ts_node_is_null(w->written) && ts_node_eq(w->written, n);
    r->address_of = !ts_node_is_null(w->address) && ts_node_eq(w->address, n);
    r->limit_test = !ts_node_is_null(w->limit) && ts_node_eq(w->limit, n);
    r->in_condition = w->in_condition > 0;
    r->in_loop_condition = w->in_loop_condition > 0;
}

static void walk(walker *w, TSNode n, unsigned depth)
{
    if (depth > HS_SYNTAX_MAX_DEPTH)
        return;
    const char *t = type_of(n);
    hs_syntax_file *f = w->f;
    switch (t[0]) {
    case 'a':
        if (strcmp(t, "assignment_expression") == 0) {
            TSNode left = field(n, "left"), right = field(n, "right"), op = field(n, "operator");
            hs_syntax_update_op o = HS_SYNTAX_UPDATE_ASSIGN;
            if (!ts_node_is_null(op)) {
                char c = f->text[ts_node_start_byte(op)];
                uint32_t ol = ts_node_end_byte(op) - ts_node_start_byte(op);
                if (ol == 1)
                    o = HS_SYNTAX_UPDATE_ASSIGN;
                else if (c == '+')
                    o = HS_SYNTAX_UPDATE_ADD;
                else if (c == '-')
                    o = HS_SYNTAX_UPDATE_SUB;
                else if (c == '|' || c == '&' || c == '^')
                    o = HS_SYNTAX_UPDATE_BITWISE;
                else
                    o = HS_SYNTAX_UPDATE_OTHER;
            }
            record_update(w, n, left, o, false, right);
            note_address(w, right);
            TSNode saved = w->written;
            w->written = operand_object(left);
            walk_children(w, n, depth);
            w->written = saved;
            return;
        }
        break;
    case 'b':
        if (strcmp(t, "binary_expression") == 0) {
            TSNode op = field(n, "operator");
            uint32_t ol = ts_node_is_null(op) ? 0 : ts_node_end_byte(op) - ts_node_start_byte(op);
            const char *o = ts_node_is_null(op) ? "" : f->text + ts_node_start_byte(op);
            if (ol == 2 && (memcmp(o, "&&", 2) == 0 || memcmp(o, "||", 2) == 0)) {
                TSNode left = field(n, "left"), right = field(n, "right");
                if (!ts_node_is_null(left))
                    walk(w, left, depth + 1);
                walk_arm(w, n, right, 1, false, depth);
                return;
            }
            bool rel = (ol == 1 && (o[0] == '<' || o[0] == '>')) || (ol == 2 && (o[0] == '<' || o[0] == '>') && o[1] == '=');
            if (rel) {
                TSNode left = field(n, "left"), right = field(n, "right");
                TSNode saved = w->limit;
                w->limit = (TSNode){0};
                if (!ts_node_is_null(right) && !small_constant(w, right))
                    w->limit = operand_object(left);
                if (!ts_node_is_null(left))
                    walk(w, left, depth + 1);
                w->limit = (TSNode){0};
                if (!ts_node_is_null(left) && !small_constant(w, left))
                    w->limit = operand_object(right);
                if (!ts_node_is_null(right))
                    walk(w, right, depth + 1);
                w->limit = saved;
                return;
            }
        }
        break;
    case 'c':
        if (strcmp(t, "call_expression") == 0) {
            record_call(w, n);
            TSNode fn = field(n, "function");
            if (is(fn, "field_expression")) {
                TSNode obj = field(fn, "argument");
                if (!ts_node_is_null(obj))
                    walk(w, obj, depth + 1);
            } else if (!ts_node_is_null(fn) && !is(fn, "identifier") && !is(fn, "qualified_identifier")) {
                walk(w, fn, depth + 1);
            }
            TSNode args = field(n, "arguments");
            if (!ts_node_is_null(args))
                walk(w, args, depth + 1);
            return;
        }
        if (strcmp(t, "compound_statement") == 0) {
            walk_compound(w, n, depth);
            return;
        }
        if (strcmp(t, "class_specifier") == 0) {
            walk_record(w, n, depth);
            return;
        }
        if (strcmp(t, "conditional_expression") == 0) {
            TSNode cond = field(n, "condition");
            walk_condition(w, cond, depth);
            TSNode a = field(n, "consequence"), b = field(n, "alternative");
            note_address(w, a);
            note_address(w, b);
            bool sampled = condition_samples(w, cond);
            walk_arm(w, n, a, 0, sampled, depth);
            walk_arm(w, n, b, 1, sampled, depth);
            return;
        }
        if (strcmp(t, "comment") == 0)
            return;
        break;
    case 'd':
        if (strcmp(t, "declaration") == 0) {
            walk_declaration(w, n, depth, w->fn == HS_SYNTAX_NONE ? HS_SYNTAX_SCOPE_FILE : HS_SYNTAX_SCOPE_LOCAL);
            return;
        }
        if (strcmp(t, "do_statement") == 0) {
            TSNode cond = field(n, "condition");
            TSNode body = field(n, "body");
            if (is_zero_condition(w, cond)) {
                if (!ts_node_is_null(body))
                    walk(w, body, depth + 1);
                return;
            }
            walk_in_loop(w, n, body, depth);
            walk_loop_condition(w, n, cond, depth);
            return;
        }
        break;
    case 'f':
        if (strcmp(t, "function_definition") == 0) {
            walk_function(w, n, depth);
            return;
        }
        if (strcmp(t, "field_expression") == 0) {
            TSNode fl = field(n, "field");
            if (!ts_node_is_null(fl) && w->fn != HS_SYNTAX_NONE)
                record_ref(w, n, fl, true);
            TSNode obj = field(n, "argument");
            if (!ts_node_is_null(obj))
                walk(w, obj, depth + 1);
            return;
        }
        if (strcmp(t, "for_statement") == 0) {
            TSNode init = field(n, "initializer");
            if (ts_node_is_null(init))
                init = field(n, "init");
            if (!ts_node_is_null(init))
                walk(w, init, depth + 1);
            walk_loop_condition(w, n, field(n, "condition"), depth);
            walk_in_loop(w, n, field(n, "update"), depth);
            walk_in_loop(w, n, field(n, "body"), depth);
            return;
        }
        if (strcmp(t, "for_range_loop") == 0) {
            TSNode right = field(n, "right");
            if (!ts_node_is_null(right))
                walk(w, right, depth + 1);
            walk_in_loop(w, n, field(n, "body"), depth);
            return;
        }
        if (strcmp(t, "field_declaration") == 0) {
            walk_declaration(w, n, depth, HS_SYNTAX_SCOPE_FIELD);
            return;
        }
        break;
    case 'i':
        if (strcmp(t, "if_statement") == 0) {
            TSNode cond = field(n, "condition");
            walk_condition(w, cond, depth);
            TSNode a = field(n, "consequence"), b = field(n, "alternative");
            bool sampled = condition_samples(w, cond);
            walk_arm(w, n, a, 0, sampled, depth);
            walk_arm(w, n, b, 1, sampled, depth);
            return;
        }
        if (strcmp(t, "identifier") == 0) {
            if (w->fn != HS_SYNTAX_NONE)
                record_ref(w, n, n, false);
            return;
        }
        if (strcmp(t, "initializer_list") == 0) {
            uint32_t k = ts_node_named_child_count(n);
            for (uint32_t i = 0; i < k; i++)
                note_address(w, ts_node_named_child(n, i));
            break;
        }
        if (strcmp(t, "initializer_pair") == 0) {
            note_address(w, field(n, "value"));
            break;
        }
        break;
    case 'l':
        if (strcmp(t, "lambda_expression") == 0) {
            if (w->lambda < 64)
                w->lambdas[w->lambda] = ts_node_start_byte(n);
            w->lambda++;
            walk_children(w, n, depth);
            w->lambda--;
            return;
        }
        break;
    case 'n':
        if (strcmp(t, "namespace_definition") == 0) {
            TSNode name = field(n, "name");
            TSNode body = field(n, "body");
            bool pushed = false;
            if (w->nscopes < sizeof w->scopes / sizeof w->scopes[0]) {
                w->scopes[w->nscopes++] = ts_node_is_null(name) ? "" : node_text(w, name);
                pushed = true;
            }
            if (!ts_node_is_null(body))
                walk(w, body, depth + 1);
            if (pushed)
                w->nscopes--;
            return;
        }
        break;
    case 'p':
        if (strcmp(t, "preproc_include") == 0) {
            TSNode path = field(n, "path");
            if (ts_node_is_null(path))
                return;
            f->incs = hs_array_append(f->incs, &f->nincs, &f->cap_incs, sizeof *f->incs);
            hs_syntax_include *inc = &f->incs[f->nincs - 1];
            uint32_t a = ts_node_start_byte(path), b = ts_node_end_byte(path);
            if (is(path, "string_literal") || is(path, "system_lib_string")) {
                inc->kind = is(path, "string_literal") ? HS_SYNTAX_INCLUDE_QUOTED : HS_SYNTAX_INCLUDE_ANGLED;
                if (b - a >= 2) {
                    a++;
                    b--;
                }
                inc->path = own(f, hs_xstrndup(f->text + a, b - a));
            } else {
                inc->kind = HS_SYNTAX_INCLUDE_MACRO;
                inc->path = node_text(w, path);
            }
            inc->line = ts_node_start_point(n).row + 1;
            inc->conditional = w->preproc_if > 0;
            return;
        }
        if (strcmp(t, "preproc_def") == 0 || strcmp(t, "preproc_function_def") == 0) {
            TSNode name = field(n, "name"), value = field(n, "value");
            if (ts_node_is_null(name))
                return;
            f->macros = hs_array_append(f->macros, &f->nmacros, &f->cap_macros, sizeof *f->macros);
            hs_syntax_macro *m = &f->macros[f->nmacros - 1];
            m->name = node_text(w, name);
            m->body = ts_node_is_null(value) ? "" : node_text(w, value);
            m->function_like = strcmp(t, "preproc_function_def") == 0;
            TSNode params = field(n, "parameters");
            if (!ts_node_is_null(params)) {
                const char *pt = node_text(w, params);
                size_t pl = strlen(pt);
                if (pl >= 2 && pt[0] == '(' && pt[pl - 1] == ')')
                    m->params = own(f, hs_xstrndup(pt + 1, pl - 2));
                else
                    m->params = pt;
            } else {
                m->params = "";
            }
            m->conditional = w->preproc_if > 0;
            m->line = ts_node_start_point(n).row + 1;
            return;
        }
        if (strncmp(t, "preproc_if", 10) == 0 || strncmp(t, "preproc_el", 10) == 0) {
            w->preproc_if++;
            uint32_t k = ts_node_named_child_count(n);
            for (uint32_t i = 0; i < k; i++) {
                TSNode c = ts_node_named_child(n, i);
                TSNode cond = field(n, "condition");
                TSNode nm = field(n, "name");
                if ((!ts_node_is_null(cond) && ts_node_eq(c, cond)) || (!ts_node_is_null(nm) && ts_node_eq(c, nm)))
                    continue;
                walk(w, c, depth + 1);
            }
            w->preproc_if--;
            return;
        }
        if (strcmp(t, "preproc_call") == 0 || strcmp(t, "preproc_arg") == 0)
            return;
        if (strcmp(t, "pointer_expression") == 0) {
            TSNode op = field(n, "operator");
            if (!ts_node_is_null(op) && f->text[ts_node_start_byte(op)] == '&') {
                note_address(w, field(n, "argument"));
                TSNode saved = w->address;
                w->address = operand_object(field(n, "argument"));
                walk_children(w, n, depth);
                w->address = saved;
                return;
            }
            break;
        }
        break;
    case 'r':
        if (strcmp(t, "return_statement") == 0) {
            if (ts_node_named_child_count(n) > 0)
                note_address(w, ts_node_named_child(n, 0));
            break;
        }
        break;
    case 's':
        if (strcmp(t, "struct_specifier") == 0 || strcmp(t, "union_specifier") == 0) {
            walk_record(w, n, depth);
            return;
        }
        if (strcmp(t, "switch_statement") == 0) {
            walk_condition(w, field(n, "condition"), depth);
            TSNode body = field(n, "body");
            if (!ts_node_is_null(body))
                walk_switch_body(w, n, body, depth);
            return;
        }
        if (strcmp(t, "string_literal") == 0 || strcmp(t, "system_lib_string") == 0)
            return;
        break;
    case 't':
        if (strcmp(t, "template_declaration") == 0)
            break;
        break;
    case 'u':
        if (strcmp(t, "update_expression") == 0) {
            TSNode arg = field(n, "argument"), op = field(n, "operator");
            bool inc = !ts_node_is_null(op) && f->text[ts_node_start_byte(op)] == '+';
            bool prefix = !ts_node_is_null(op) && !ts_node_is_null(arg) &&
                          ts_node_start_byte(op) < ts_node_start_byte(arg);
            record_update(w, n, arg, inc ? HS_SYNTAX_UPDATE_INC : HS_SYNTAX_UPDATE_DEC, prefix, (TSNode){0});
            TSNode saved = w->written;
            w->written = operand_object(arg);
            walk_children(w, n, depth);
            w->written = saved;
            return;
        }
        break;
    case 'w':
        if (strcmp(t, "while_statement") == 0) {
            TSNode cond = field(n, "condition");
            TSNode body = field(n, "body");
            if (is_zero_condition(w, cond)) {
                if (!ts_node_is_null(body))
                    walk(w, body, depth + 1);
                return;
            }
            walk_loop_condition(w, n, cond, depth);
            walk_in_loop(w, n, body, depth);
            return;
        }
        break;
    default:
        break;
    }
    walk_children(w, n, depth);
}

/* ---- identifiers ---- */

static bool ident_node(const char *t)
{
    return strcmp(t, "identifier") == 0 || strcmp(t, "field_identifier") == 0 ||
           strcmp(t, "type_identifier") == 0 || strcmp(t, "namespace_identifier") == 0 ||
           strcmp(t, "statement_identifier") == 0;
}

typedef struct {
    const char *p;
    size_t n;
} slice;

static int cmp_slice(const void *a, const void *b)
{
    const slice *x = a, *y = b;
    size_t n = x->n < y->n ? x->n : y->n;
    int c = memcmp(x->p, y->p, n);
    if (c)
        return c;
    return x->n < y->n ? -1 : x->n > y->n;
}

static void add_slice(slice **s, size_t *len, size_t *cap, const char *p, size_t n)
{
    *s = hs_array_append(*s, len, cap, sizeof **s);
    (*s)[*len - 1].p = p;
    (*s)[*len - 1].n = n;
}

/* Identifier-like tokens of raw text (a #define body): skips string and char literals, numbers
 * and comments. */
static void tokenize(const char *s, size_t n, slice **out, size_t *len, size_t *cap)
{
    size_t i = 0;
    while (i < n) {
        char c = s[i];
        if (c == '"' || c == '\'') {
            char q = c;
            i++;
            while (i < n && s[i] != q) {
                if (s[i] == '\\')
                    i++;
                i++;
            }
            i++;
        } else if (c == '/' && i + 1 < n && s[i + 1] == '/') {
            while (i < n && s[i] != '\n')
                i++;
        } else if (c == '/' && i + 1 < n && s[i + 1] == '*') {
            i += 2;
            while (i + 1 < n && !(s[i] == '*' && s[i + 1] == '/'))
                i++;
            i += 2;
        } else if (isdigit((unsigned char)c)) {
            while (i < n && is_ident_char((unsigned char)s[i]))
                i++;
        } else if (isalpha((unsigned char)c) || c == '_') {
            size_t a = i;
            while (i < n && is_ident_char((unsigned char)s[i]))
                i++;
            add_slice(out, len, cap, s + a, i - a);
        } else {
            i++;
        }
    }
}

static void collect_identifiers(hs_syntax_file *f, TSNode root)
{
    slice *sl = NULL;
    size_t len = 0, cap = 0;
    TSTreeCursor cur = ts_tree_cursor_new(root);
    for (;;) {
        TSNode n = ts_tree_cursor_current_node(&cur);
        const char *t = ts_node_type(n);
        bool descend = true;
        if (ident_node(t)) {
            uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
            if (b > a)
                add_slice(&sl, &len, &cap, f->text + a, b - a);
            descend = false;
        } else if (strcmp(t, "preproc_arg") == 0) {
            uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
            tokenize(f->text + a, b - a, &sl, &len, &cap);
            descend = false;
        } else if (strcmp(t, "ERROR") == 0 && ts_node_child_count(n) == 0) {
            uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
            tokenize(f->text + a, b - a, &sl, &len, &cap);
        } else if (strcmp(t, "string_literal") == 0 || strcmp(t, "comment") == 0 ||
                   strcmp(t, "char_literal") == 0 || strcmp(t, "raw_string_literal") == 0 ||
                   strcmp(t, "system_lib_string") == 0) {
            descend = false;
        }
        if (descend && ts_tree_cursor_goto_first_child(&cur))
            continue;
        bool moved = false;
        while (!moved) {
            if (ts_tree_cursor_goto_next_sibling(&cur)) {
                moved = true;
                break;
            }
            if (!ts_tree_cursor_goto_parent(&cur))
                break;
        }
        if (!moved)
            break;
    }
    ts_tree_cursor_delete(&cur);
    if (len)
        qsort(sl, len, sizeof *sl, cmp_slice);
    for (size_t i = 0; i < len; i++) {
        if (i > 0 && cmp_slice(&sl[i], &sl[i - 1]) == 0)
            continue;
        f->idents = hs_array_append(f->idents, &f->nidents, &f->cap_idents, sizeof *f->idents);
        f->idents[f->nidents - 1] = own(f, hs_xstrndup(sl[i].p, sl[i].n));
    }
    free(sl);
}

static size_t count_errors(TSNode root)
{
    if (!ts_node_has_error(root))
        return 0;
    size_t n = 0;
    TSTreeCursor cur = ts_tree_cursor_new(root);
    for (;;) {
        TSNode node = ts_tree_cursor_current_node(&cur);
        if (strcmp(ts_node_type(node), "ERROR") == 0 || ts_node_is_missing(node))
            n++;
        if (ts_node_has_error(node) && ts_tree_cursor_goto_first_child(&cur))
            continue;
        bool moved = false;
        while (!moved) {
            if (ts_tree_cursor_goto_next_sibling(&cur)) {
                moved = true;
                break;
            }
            if (!ts_tree_cursor_goto_parent(&cur))
                break;
        }
        if (!moved)
            break;
    }
    ts_tree_cursor_delete(&cur);
    return n;
}

/* ---- public ---- */

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

bool hs_syntax_lang_for_path(const char *path, hs_syntax_lang *out)
{
    static const char *const c_ext[] = {".c", ".i", ".h"};
    static const char *const cpp_ext[] = {".cc", ".cpp", ".cxx", ".c++", ".C", ".hpp", ".hh", ".hxx",
                                          ".h++", ".ipp", ".tcc", ".inl", ".ii", ".cp", ".CPP"};
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash))
        return false;
    for (size_t i = 0; i < sizeof cpp_ext / sizeof cpp_ext[0]; i++)
        if (strcmp(dot, cpp_ext[i]) == 0) {
            *out = HS_SYNTAX_CPP;
            return true;
        }
    for (size_t i = 0; i < sizeof c_ext / sizeof c_ext[0]; i++)
        if (strcmp(dot, c_ext[i]) == 0) {
            *out = HS_SYNTAX_C;
            return true;
        }
    return false;
}

hs_syntax_lang hs_syntax_lang_for_command(const char *path, const char *const *argv, size_t argc)
{
    if (argv) {
        for (size_t i = 0; i < argc; i++) {
            const char *a = argv[i];
            if (!a)
                continue;
            const char *x = NULL;
            if (strcmp(a, "-x") == 0 && i + 1 < argc)
                x = argv[i + 1];
            else if (strncmp(a, "-x", 2) == 0 && a[2])
                x = a + 2;
            if (x) {
                if (strncmp(x, "c++", 3) == 0)
                    return HS_SYNTAX_CPP;
                if (strcmp(x, "c") == 0 || strcmp(x, "c-header") == 0)
                    return HS_SYNTAX_C;
            }
        }
        if (argc > 0 && argv[0]) {
            const char *base = strrchr(argv[0], '/');
            base = base ? base + 1 : argv[0];
            if (strstr(base, "++") || strncmp(base, "CC", 2) == 0 || strstr(base, "cxx"))
                return HS_SYNTAX_CPP;
        }
    }
    hs_syntax_lang l = HS_SYNTAX_C;
    if (path && hs_syntax_lang_for_path(path, &l))
        return l;
    (void)ends_with;
    return HS_SYNTAX_C;
}

hs_syntax_parser *hs_syntax_parser_new(void)
{
    hs_syntax_parser *p = hs_xcalloc(1, sizeof *p);
    p->ts = ts_parser_new();
    if (!p->ts || !ts_parser_set_language(p->ts, tree_sitter_c()) ||
        !ts_parser_set_language(p->ts, tree_sitter_cpp())) {
        if (p->ts)
            ts_parser_delete(p->ts);
        free(p);
        return NULL;
    }
    return p;
}

void hs_syntax_parser_delete(hs_syntax_parser *p)
{
    if (!p)
        return;
    ts_parser_delete(p->ts);
    free(p);
}

hs_syntax_file *hs_syntax_parse_text(hs_syntax_parser *p, const char *path, const char *text, size_t len,
                                     hs_syntax_lang lang, char **err)
{
    if (err)
        *err = NULL;
    if (len > UINT32_MAX / 2) {
        if (err)
            *err = hs_printf("%s: too large for the syntax parser (%zu bytes)", path, len);
        return NULL;
    }
    ts_parser_set_language(p->ts, lang == HS_SYNTAX_CPP ? tree_sitter_cpp() : tree_sitter_c());
    ts_parser_reset(p->ts);
    hs_syntax_file *f = hs_xcalloc(1, sizeof *f);
    f->path = hs_xstrdup(path);
    f->lang = lang;
    f->text = hs_xmalloc(len + 1);
    memcpy(f->text, text, len);
    f->text[len] = 0;
    f->len = len;
    TSTree *tree = ts_parser_parse_string(p->ts, NULL, f->text, (uint32_t)len);
    if (!tree) {
        if (err)
            *err = hs_printf("%s: the syntax parser gave up", path);
        hs_syntax_file_delete(f);
        return NULL;
    }
    TSNode root = ts_tree_root_node(tree);
    f->errors = count_errors(root);
    collect_identifiers(f, root);
    walker w;
    memset(&w, 0, sizeof w);
    w.f = f;
    w.fn = HS_SYNTAX_NONE;
    walk(&w, root, 0);
    free(w.callees.items);
    free(w.addr.items);
    f->nfile_addr = sort_unique(f->file_addr, f->nfile_addr);
    ts_tree_delete(tree);
    return f;
}

hs_syntax_file *hs_syntax_parse_path(hs_syntax_parser *p, const char *path, hs_syntax_lang lang, char **err)
{
    size_t len = 0;
    char *problem = NULL;
    char *text = hs_source_file_read(path, (size_t)-1, &len, &problem);
    if (!text) {
        if (err)
            *err = hs_printf("cannot read %s: %s", path, problem);
        free(problem);
        return NULL;
    }
    hs_syntax_file *f = hs_syntax_parse_text(p, path, text, len, lang, err);
    free(text);
    return f;
}

void hs_syntax_file_delete(hs_syntax_file *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->strings.len; i++)
        free(f->strings.items[i]);
    hs_vec_free(&f->strings);
    free(f->idents);
    free(f->fns);
    free(f->calls);
    free(f->args);
    free(f->incs);
    free(f->decls);
    free(f->upds);
    free(f->macros);
    free(f->branches);
    free(f->refs);
    free(f->file_addr);
    free(f->text);
    free(f->path);
    free(f);
}

const char *hs_syntax_file_path(const hs_syntax_file *f) { return f->path; }
hs_syntax_lang hs_syntax_file_lang(const hs_syntax_file *f) { return f->lang; }
size_t hs_syntax_error_count(const hs_syntax_file *f) { return f->errors; }

const char *hs_syntax_file_text(const hs_syntax_file *f, size_t *len)
{
    if (len)
        *len = f->len;
    return f->text;
}

const char *const *hs_syntax_identifiers(const hs_syntax_file *f, size_t *count)
{
    *count = f->nidents;
    return f->idents;
}

bool hs_syntax_has_identifier(const hs_syntax_file *f, const char *name)
{
    size_t lo = 0, hi = f->nidents;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(f->idents[mid], name);
        if (c == 0)
            return true;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

const hs_syntax_function *hs_syntax_functions(const hs_syntax_file *f, size_t *count)
{
    *count = f->nfns;
    return f->fns;
}

const char *const *hs_syntax_file_address_taken(const hs_syntax_file *f, size_t *count)
{
    *count = f->nfile_addr;
    return f->file_addr;
}

const hs_syntax_include *hs_syntax_includes(const hs_syntax_file *f, size_t *count)
{
    *count = f->nincs;
    return f->incs;
}

const hs_syntax_call *hs_syntax_calls(const hs_syntax_file *f, size_t *count)
{
    *count = f->ncalls;
    return f->calls;
}

const hs_syntax_arg *hs_syntax_args(const hs_syntax_file *f, size_t *count)
{
    *count = f->nargs;
    return f->args;
}

const hs_syntax_decl *hs_syntax_decls(const hs_syntax_file *f, size_t *count)
{
    *count = f->ndecls;
    return f->decls;
}

const hs_syntax_update *hs_syntax_updates(const hs_syntax_file *f, size_t *count)
{
    *count = f->nupds;
    return f->upds;
}

const hs_syntax_ref *hs_syntax_refs(const hs_syntax_file *f, size_t *count)
{
    *count = f->nrefs;
    return f->refs;
}

const hs_syntax_branch *hs_syntax_branches(const hs_syntax_file *f, size_t *count)
{
    *count = f->nbranches;
    return f->branches;
}

const hs_syntax_macro *hs_syntax_macros(const hs_syntax_file *f, size_t *count)
{
    *count = f->nmacros;
    return f->macros;
}
