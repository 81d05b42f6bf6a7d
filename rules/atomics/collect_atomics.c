/*
 * collect_atomics.c - records every operation on an atomic variable (a global, a static
 * or a field; identified by its declaration's USR so uses meet across TUs):
 *
 *   C++   x.fetch_add(n[, order]), x.load(), x.store(v), x.exchange(), compare_exchange_*,
 *         ++x, x--, x += n, implicit load (operator T) and store (operator=)
 *   C11   atomic_fetch_add(&x, n) and _explicit forms, ++x/x += n on _Atomic, plain reads
 *         and writes of _Atomic objects
 *   GNU   __atomic_*(&x, ..., order), __sync_* (full barriers)
 *   data  wrappers listed in rule data (my_atomic_add32, PFS_atomic::add_u32, Interlocked*)
 *
 * Each fact says the operation, its memory order, how its result is used (discarded,
 * a value, a condition, a loop condition) and, for stores, whether the value is a
 * constant. Passing the variable's address anywhere else is recorded as an escape.
 * The atomic-seqcst-counter rule decides from all facts of a variable together.
 *
 * The atomic family's collector (hs_collector_atomics, registered in rules/registry.c);
 * its state lives here, and it adds "atomics" to the facts.
 */
#define _GNU_SOURCE
#include "hotscan/fixits.h"
#include "hotscan/keyset.h"
#include "hotscan/ptrmap.h"
#include "hotscan/walk.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The collector's state for one TU. */
typedef struct {
    hs_walk *walk;
    json_t *atomics;         /* the facts' "atomics" */
    hs_keyset *consumed;     /* cursors an atomic operation already accounted for (consume_key) */
    hs_ptrmap *type_classes; /* declaration (its data[0]) -> what its type is to this collector */
    hs_ptrmap *atomic_types; /* canonical type (data[0], kind) -> 2 atomic, 1 not (atomic_type) */
    hs_strmap *plain_uses;   /* USR -> json summary of non-atomic uses of an integer */
    hs_strmap *wrapper_of;   /* qualified name -> 2 + index of the wrapper it calls, 1 for none */
    const char **wrapper_names; /* each wrapper's "name", read out of the rule data once */
    hs_strmap *names;        /* USR of an atomic this TU declares or operates on -> its name
                                pair (name_pair): asked of compiled-out code */
    size_t function_start;   /* the current function's facts in `atomics` start here */
    hs_vec orderings;        /* the function's < > <= >= operators: offsets {start, end, zero} */
    hs_vec subscripts;       /* the function's array indexes: the local or parameter declarations
                                (AST nodes) each index expression names */
    hs_vec bound_tests;      /* bound_test*: reads in a limit comparison, judged at the function's end */
    hs_strmap *accessors;    /* function USR -> identity (json) of the variable it returns */
    unsigned return_start, return_end; /* the last return statement walked (offsets) */
    hs_vec atomic_arms;      /* arm_note*: the function's atomic updates inside a branch */
    hs_vec plain_arms;       /* arm_note*: the function's plain updates inside a branch */
    hs_vec local_sinks;      /* local_sink*: the function's results stored into a local */
    hs_vec alias_facts;      /* alias_fact*: facts made through a local pointer alias (alias_arms) */
} atomic_state;

/* A fact made through a local pointer to what its declaration picks: an operation through
 * it (`op`), or an address its declaration takes (an escape, dropped when the local serves
 * only the operations). Judged at the function's end (local_aliases_check). */
typedef struct {
    json_t *fact;    /* a reference */
    CXCursor local;  /* the pointer */
    bool op;         /* an operation, not the declaration's escape */
    bool first;      /* an operation's first fact (each site names the local once) */
} alias_fact;

/* A result stored into a local (`junk = fetch_add(...)`, `*(&orig) = ...` through a macro),
 * kept until the function's end: a local nothing else names is a dead store. */
typedef struct {
    json_t *fact;    /* the operation's fact (a reference) */
    CXCursor decl;   /* the local */
    bool named;      /* the store names the local (an assignment, not its declaration) */
} local_sink;

/*
 * An update of a variable inside a branch arm, kept until the function's end: a plain update
 * (`else (x)++`) in one arm of the if whose other arm updates the same variable atomically
 * (`if (shared) __atomic_add_fetch(&x, ...)`) is a single-threaded fallback, not a race.
 */
typedef struct {
    char *var;               /* the variable's identity */
    unsigned node_start;     /* the innermost branch: its node's start offset, */
    unsigned depth, arm;     /* how many branches enclose it, and which arm */
    json_t *site;            /* a plain update's entry in "updates_sites" (a reference), or NULL */
} arm_note;

/* The innermost branch arm around the walk, as an arm_note for `var` (NULL outside arms). */
static arm_note *note_arm(atomic_state *x, const char *var, json_t *site)
{
    unsigned n = hs_walk_branch_count(x->walk);
    if (n == 0 || !var)
        return NULL;
    const hs_branch *b = hs_walk_branch(x->walk, n - 1);
    arm_note *a = hs_xcalloc(1, sizeof *a);
    a->var = hs_xstrdup(var);
    a->node_start = b->node_start;
    a->depth = n;
    a->arm = b->arm;
    a->site = site ? json_incref(site) : NULL;
    return a;
}

/* An ordering comparison's extent, and whether it compares with -1, 0 or 1 (a zero test). */
typedef struct {
    unsigned start, end;
    bool zero;
    const void *operands[2]; /* an operand that is a local or parameter: its declaration's node */
} ordering_range;

/*
 * A read of a variable in a limit comparison (`if (key > count) return NULL;`), kept until
 * the function's end: when the comparison's other operand also indexes an array there
 * (`return &array[key - 1];`), the variable bounds an index into data, as a count that
 * publishes filled slots does (MariaDB's `*_class_allocated_count`, issue 10).
 */
typedef struct {
    size_t ordering;              /* index in `orderings` */
    json_t *fact;                 /* an atomic load's fact (a reference), or NULL */
    CXCursor use, object, decl;   /* a plain read's, for plain_use */
} bound_test;

static bool type_is_integer(CXType t);

/* A null cursor usable in initializers (clang_getNullCursor() is a function call). */
#define NO_CURSOR {CXCursor_InvalidFile, 0, {0, 0, 0}}

/* ---- types and objects ---------------------------------------------------------- */

/*
 * A canonical type that is built in (int, const unsigned long, double): its spelling names no
 * atomic, and printing it (clang_getTypeSpelling, about 1,000 instructions) is what the tests
 * below cost. _Atomic(T) is a kind of its own.
 */
static bool is_builtin(CXType canonical)
{
    return canonical.kind >= CXType_FirstBuiltin && canonical.kind <= CXType_LastBuiltin;
}

/* An atomic object, or a built-in array of them; not a container of atomics (std::array). */
static bool type_is_atomic(CXType t)
{
    CXType canonical = clang_getCanonicalType(t);
    if (is_builtin(canonical))
        return false;
    CXString s = clang_getTypeSpelling(canonical);
    const char *n = clang_getCString(s);
    while (strncmp(n, "const ", 6) == 0 || strncmp(n, "volatile ", 9) == 0)
        n += n[0] == 'c' ? 6 : 9;
    bool r = strncmp(n, "_Atomic", 7) == 0 || strncmp(n, "std::atomic<", 12) == 0 ||
             strncmp(n, "std::atomic_ref<", 16) == 0 || strncmp(n, "std::__atomic_base<", 19) == 0 ||
             (strstr(n, "_Atomic") && strchr(n, '[') && !strchr(n, '<'));
    clang_disposeString(s);
    return r;
}

/*
 * type_is_atomic, remembered per canonical type for the TU: the walk asks it of every
 * declaration and of every assignment's target, and printing the type is most of it. A
 * canonical type is one node of the TU's AST (data[0], its qualifiers in the pointer's low
 * bits), so equal keys are the same type.
 */
static bool atomic_type(atomic_state *x, CXType t)
{
    CXType canonical = clang_getCanonicalType(t);
    if (is_builtin(canonical))
        return false;
    uintptr_t known = (uintptr_t)hs_ptrmap_get(x->atomic_types, canonical.data[0], (int)canonical.kind);
    if (!known) {
        known = type_is_atomic(canonical) ? 2 : 1;
        hs_ptrmap_put(x->atomic_types, canonical.data[0], (int)canonical.kind, (void *)known);
    }
    return known == 2;
}

static bool type_is_c11_atomic(CXType t)
{
    CXType canonical = clang_getCanonicalType(t);
    if (is_builtin(canonical))
        return false;
    CXString s = clang_getTypeSpelling(canonical);
    bool r = strncmp(clang_getCString(s), "_Atomic", 7) == 0;
    clang_disposeString(s);
    return r;
}

static bool is_atomic_ref_constructor(CXCursor callee)
{
    if (hs_cursor_kind(callee) != CXCursor_Constructor)
        return false;
    CXString s = clang_getCursorSpelling(callee);
    bool r = strstr(clang_getCString(s), "atomic_ref") != NULL;
    clang_disposeString(s);
    return r;
}

/* `std::atomic_ref<T> r(x);` -> the constructor call, or null. */
static CXCursor atomic_ref_initializer(CXCursor var)
{
    CXString t = clang_getTypeSpelling(clang_getCursorType(var));
    bool is_ref = strstr(clang_getCString(t), "atomic_ref") != NULL;
    clang_disposeString(t);
    if (!is_ref)
        return clang_getNullCursor();
    hs_cursor_list kids;
    hs_children(var, &kids);
    CXCursor r = clang_getNullCursor();
    for (unsigned i = 0; i < kids.len; i++) {
        CXCursor k = hs_strip_expr(kids.items[i]);
        if (hs_cursor_kind(k) == CXCursor_CallExpr && is_atomic_ref_constructor(clang_getCursorReferenced(k)))
            r = k;
    }
    hs_cursor_list_free(&kids);
    return r;
}

/* A pointer to an atomic or to an integer: what a wrapper's object parameter is. */
static bool is_object_pointer(CXType t)
{
    CXType c = clang_getCanonicalType(t);
    if (c.kind != CXType_Pointer)
        return false;
    CXType pointee = clang_getPointeeType(c);
    return type_is_atomic(pointee) || type_is_integer(pointee);
}

/* The position of a parameter in its function's parameter list, or -1. */
static int parameter_index(CXCursor parm, CXCursor *function)
{
    *function = clang_getCursorSemanticParent(parm);
    int n = clang_Cursor_getNumArguments(*function);
    for (int i = 0; i < n; i++)
        if (clang_equalCursors(clang_Cursor_getArgument(*function, (unsigned)i), parm))
            return i;
    return -1;
}

/*
 * A local pointer that only names atomics its declaration picks (`atomic_ulong *stat = hit ?
 * &tbl->n_matched : &tbl->n_missed;`, Open vSwitch's table statistics): the address
 * expressions it may hold, `&X` or the arms of `c ? &X : &Y`, into `arms` (at most 2);
 * 0 when `var` is no such local. Whether the function also assigns it or lets it escape is
 * checked at the function's end (local_aliases_check).
 */
static unsigned alias_arms(CXCursor var, CXCursor arms[2])
{
    if (hs_cursor_kind(var) != CXCursor_VarDecl || clang_Cursor_hasVarDeclGlobalStorage(var) == 1)
        return 0;
    CXType t = clang_getCanonicalType(clang_getCursorType(var));
    if (t.kind != CXType_Pointer || !type_is_atomic(clang_getPointeeType(t)))
        return 0;
    hs_cursor_list kids;
    hs_children(var, &kids);
    CXCursor init = kids.len ? hs_strip_expr(kids.items[kids.len - 1]) : clang_getNullCursor();
    hs_cursor_list_free(&kids);
    if (hs_cursor_is_null(init))
        return 0;
    CXCursor cand[2];
    unsigned n = 0;
    if (hs_cursor_kind(init) == CXCursor_ConditionalOperator) {
        hs_children(init, &kids);
        if (kids.len == 3) {
            cand[0] = hs_strip_expr(kids.items[1]);
            cand[1] = hs_strip_expr(kids.items[2]);
            n = 2;
        }
        hs_cursor_list_free(&kids);
    } else {
        cand[0] = init;
        n = 1;
    }
    for (unsigned i = 0; i < n; i++) {
        if (hs_cursor_kind(cand[i]) != CXCursor_UnaryOperator ||
            clang_getCursorUnaryOperatorKind(cand[i]) != CXUnaryOperator_AddrOf)
            return 0;
        hs_children(cand[i], &kids);
        arms[i] = kids.len == 1 ? kids.items[0] : clang_getNullCursor();
        hs_cursor_list_free(&kids);
        if (hs_cursor_is_null(arms[i]))
            return 0;
    }
    return n;
}

/*
 * The declaration an object expression names: `x`, `&x`, `s->f`, `arr[i]`, `&s.f[2]`,
 * and through std::atomic_ref: `std::atomic_ref<T>(s.f)`, a local `std::atomic_ref r(s.f)`.
 * Only globals, statics and fields: a local or a parameter is not a shared counter.
 */
static CXCursor object_decl(CXCursor e)
{
    for (int guard = 0; guard < 32; guard++) {
        e = hs_strip_expr(e);
        enum CXCursorKind k = hs_cursor_kind(e);
        if (k == CXCursor_UnaryOperator) {
            enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(e);
            if (op != CXUnaryOperator_AddrOf && op != CXUnaryOperator_Deref)
                return clang_getNullCursor();
        } else if (k == CXCursor_ArraySubscriptExpr) {
            /* the array, not the index */
        } else if (k == CXCursor_CallExpr) {
            /* std::atomic_ref<T>(x): the object is x; arr[i] on a std::array or vector of
             * atomics: the container, as for a built-in array. */
            CXCursor callee = clang_getCursorReferenced(e);
            CXString name = clang_getCursorSpelling(callee);
            bool subscript = strcmp(clang_getCString(name), "operator[]") == 0;
            clang_disposeString(name);
            if ((!subscript && !is_atomic_ref_constructor(callee)) || clang_Cursor_getNumArguments(e) < 1)
                return clang_getNullCursor();
            e = clang_Cursor_getArgument(e, 0);
            continue;
        } else if (k == CXCursor_DeclRefExpr || k == CXCursor_MemberRefExpr) {
            CXCursor d = clang_getCursorReferenced(e);
            enum CXCursorKind dk = hs_cursor_kind(d);
            if (dk == CXCursor_FieldDecl)
                return d;
            if (dk == CXCursor_VarDecl && clang_Cursor_hasVarDeclGlobalStorage(d) == 1)
                return d;
            /* A wrapper's parameter pointing to an atomic or an integer: the operations on
             * it are the wrapper's, which the rule applies to what each call passes. */
            if (dk == CXCursor_ParmDecl && is_object_pointer(clang_getCursorType(d)))
                return d;
            /* A named std::atomic_ref local: the object it was made from. */
            CXCursor init = dk == CXCursor_VarDecl ? atomic_ref_initializer(d) : clang_getNullCursor();
            if (!hs_cursor_is_null(init)) {
                e = init;
                continue;
            }
            /* A local pointer to what its declaration picks: the first of them (record
             * adds the other). */
            CXCursor arms[2];
            if (alias_arms(d, arms) > 0) {
                e = arms[0];
                continue;
            }
            return clang_getNullCursor();
        } else {
            return clang_getNullCursor();
        }
        hs_cursor_list kids;
        hs_children(e, &kids);
        if (kids.len == 0) {
            hs_cursor_list_free(&kids);
            return clang_getNullCursor();
        }
        CXCursor next = kids.items[0];
        hs_cursor_list_free(&kids);
        e = next;
    }
    return clang_getNullCursor();
}

/*
 * The object path of an object expression whose declaration is `decl` (issue 10): the
 * chain of `.` fields and array elements from where the object lives to the atomic. It
 * starts at a global or static (`events_waits_history_long_index.m_u32`, `g.a[i].b`) or at
 * a field reached through a pointer or `this` (`this->m_monotonic.m_u32`); it stops at any
 * `->`, any pointer subscript, and at locals and parameters. `root` is where it starts and
 * `path` the fields after it (".m_u32"); the path is empty (NULL) when the object is its
 * own root: a plain global, or a field named through a pointer (`p->m_u32`).
 */
static void object_path(CXCursor e, CXCursor decl, CXCursor *root, char **path)
{
    *root = decl;
    *path = NULL;
    if (hs_cursor_kind(decl) != CXCursor_FieldDecl)
        return;
    /* Find the member expression naming decl: e stripped of &, *, [] and atomic_ref. */
    for (int guard = 0; guard < 32; guard++) {
        e = hs_strip_expr(e);
        enum CXCursorKind k = hs_cursor_kind(e);
        if (k == CXCursor_MemberRefExpr && clang_equalCursors(clang_getCursorReferenced(e), decl))
            break;
        CXCursor arms[2];
        if (k == CXCursor_DeclRefExpr && alias_arms(clang_getCursorReferenced(e), arms) > 0) {
            e = arms[0];
            continue;
        }
        if (k != CXCursor_UnaryOperator && k != CXCursor_ArraySubscriptExpr && k != CXCursor_CallExpr)
            return;
        if (k == CXCursor_CallExpr) {
            if (clang_Cursor_getNumArguments(e) < 1)
                return;
            e = clang_Cursor_getArgument(e, 0);
            continue;
        }
        hs_cursor_list kids;
        hs_children(e, &kids);
        CXCursor next = kids.len ? kids.items[0] : clang_getNullCursor();
        hs_cursor_list_free(&kids);
        if (hs_cursor_is_null(next))
            return;
        e = next;
    }
    if (hs_cursor_kind(e) != CXCursor_MemberRefExpr)
        return;
    char *fields = NULL; /* ".a.b", outermost first */
    CXCursor at = decl;
    for (int guard = 0; guard < 32; guard++) {
        /* e names `at`; its base is its first child (none: an implicit this). */
        hs_cursor_list kids;
        hs_children(e, &kids);
        CXCursor base = kids.len ? hs_strip_expr(kids.items[0]) : clang_getNullCursor();
        hs_cursor_list_free(&kids);
        if (hs_cursor_is_null(base))
            break;
        enum CXTypeKind tk = clang_getCanonicalType(clang_getCursorType(base)).kind;
        if (tk == CXType_Pointer || tk == CXType_LValueReference || tk == CXType_RValueReference)
            break; /* `->`: the object may be any instance */
        /* Through element accesses of arrays (not of pointers) and std::array. */
        for (int g2 = 0; g2 < 8; g2++) {
            enum CXCursorKind bk = hs_cursor_kind(base);
            CXCursor inner = clang_getNullCursor();
            if (bk == CXCursor_ArraySubscriptExpr) {
                hs_cursor_list ak;
                hs_children(base, &ak);
                if (ak.len)
                    inner = hs_strip_expr(ak.items[0]);
                hs_cursor_list_free(&ak);
            } else if (bk == CXCursor_CallExpr && clang_Cursor_getNumArguments(base) >= 1) {
                CXString nm = clang_getCursorSpelling(clang_getCursorReferenced(base));
                if (strcmp(clang_getCString(nm), "operator[]") == 0)
                    inner = hs_strip_expr(clang_Cursor_getArgument(base, 0));
                clang_disposeString(nm);
            }
            if (hs_cursor_is_null(inner))
                break;
            enum CXTypeKind ik = clang_getCanonicalType(clang_getCursorType(inner)).kind;
            if (ik == CXType_Pointer || ik == CXType_LValueReference || ik == CXType_RValueReference) {
                base = clang_getNullCursor();
                break;
            }
            base = inner;
        }
        if (hs_cursor_is_null(base))
            break;
        CXCursor owner = clang_getCursorReferenced(base);
        enum CXCursorKind bk = hs_cursor_kind(base), ok = hs_cursor_kind(owner);
        bool field = bk == CXCursor_MemberRefExpr && ok == CXCursor_FieldDecl;
        bool global = bk == CXCursor_DeclRefExpr && ok == CXCursor_VarDecl &&
                      clang_Cursor_hasVarDeclGlobalStorage(owner) == 1 &&
                      clang_getCanonicalType(clang_getCursorType(owner)).kind != CXType_LValueReference;
        if (!field && !global)
            break;
        CXString name = clang_getCursorSpelling(at);
        char *longer = hs_printf(".%s%s", clang_getCString(name), fields ? fields : "");
        clang_disposeString(name);
        free(fields);
        fields = longer;
        at = owner;
        if (global)
            break;
        e = base;
    }
    if (fields) {
        *root = at;
        *path = fields;
    }
}

/*
 * A cursor as the consumed set knows it. An expression or a statement is its node (the
 * cursor's data[1], the node clang_hashCursor hashes) and its kind: one node, one key,
 * without asking where it is (a clang_getExpansionLocation each, about 1,000 instructions).
 * Other cursors, which no operation consumes, keep clang_hashCursor's hash, where they are
 * expanded and their kind.
 */
typedef struct {
    uintptr_t node;
    unsigned kind, offset;
} consumed_key;

static consumed_key consume_key(CXCursor c)
{
    consumed_key key = {0, 0, 0};
    key.kind = (unsigned)hs_cursor_kind(c);
    if (clang_isExpression(key.kind) || clang_isStatement(key.kind)) {
        key.node = (uintptr_t)c.data[1];
    } else {
        key.node = clang_hashCursor(c);
        clang_getExpansionLocation(clang_getCursorLocation(c), NULL, NULL, NULL, &key.offset);
    }
    return key;
}

/* Marks the DeclRef/MemberRef leaves of an object expression as accounted for. */
static enum CXChildVisitResult consume_visitor(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    enum CXCursorKind k = hs_cursor_kind(c);
    if (k == CXCursor_DeclRefExpr || k == CXCursor_MemberRefExpr || k == CXCursor_UnaryOperator) {
        consumed_key key = consume_key(c);
        hs_keyset_add(data, &key, sizeof key);
    }
    return CXChildVisit_Recurse;
}

static void consume(atomic_state *x, CXCursor object)
{
    consume_visitor(object, clang_getNullCursor(), x->consumed);
    clang_visitChildren(object, consume_visitor, x->consumed);
}

static bool is_consumed(atomic_state *x, CXCursor c)
{
    consumed_key key = consume_key(c);
    return hs_keyset_has(x->consumed, &key, sizeof key);
}

/* ---- memory orders ------------------------------------------------------------------ */

static const char *const order_names[] = {"relaxed", "consume", "acquire", "release", "acq_rel", "seq_cst"};

/* The order an argument names, by spelling first (memory_order_relaxed,
 * __ATOMIC_RELAXED, std::memory_order::relaxed), else by value (0-5). */
static const char *decode_order(atomic_state *x, CXCursor arg)
{
    char *text = hs_cursor_text(x->walk, arg);
    const char *r = NULL;
    if (text[0]) {
        if (strstr(text, "acq_rel") || strstr(text, "ACQ_REL"))
            r = "acq_rel";
        else if (strstr(text, "relaxed") || strstr(text, "RELAXED"))
            r = "relaxed";
        else if (strstr(text, "consume") || strstr(text, "CONSUME"))
            r = "consume";
        else if (strstr(text, "acquire") || strstr(text, "ACQUIRE"))
            r = "acquire";
        else if (strstr(text, "release") || strstr(text, "RELEASE"))
            r = "release";
        else if (strstr(text, "seq_cst") || strstr(text, "SEQ_CST"))
            r = "seq_cst";
    }
    bool spelled = text[0] != '\0';
    free(text);
    if (r)
        return r;
    CXEvalResult ev = clang_Cursor_Evaluate(arg);
    if (ev) {
        if (clang_EvalResult_getKind(ev) == CXEval_Int) {
            long long v = clang_EvalResult_getAsLongLong(ev);
            if (v >= 0 && v <= 5)
                r = order_names[v];
        }
        clang_EvalResult_dispose(ev);
    }
    /* A defaulted argument (x.load()) has no spelling and the default is seq_cst. */
    return r ? r : spelled ? "unknown" : "seq_cst";
}

/* ---- operation names ------------------------------------------------------------- */

/* Normalizes an API's operation name: fetch_add, add_fetch, load, store, exchange, cas... */
static const char *normalize_op(const char *name)
{
    static const struct {
        const char *contains;
        const char *op;
    } table[] = {
        {"compare_exchange", "cas"}, {"compare_and_swap", "cas"}, {"CompareExchange", "cas"},
        {"cas", "cas"},
        {"fetch_and_add", "fetch_add"}, {"add_and_fetch", "add_fetch"},
        {"fetch_and_sub", "fetch_sub"}, {"sub_and_fetch", "sub_fetch"},
        {"fetch_add", "fetch_add"}, {"add_fetch", "add_fetch"},
        {"fetch_sub", "fetch_sub"}, {"sub_fetch", "sub_fetch"},
        {"fetch_and", "bitwise"}, {"fetch_or", "bitwise"}, {"fetch_xor", "bitwise"},
        {"fetch_nand", "bitwise"}, {"and_fetch", "bitwise"}, {"or_fetch", "bitwise"},
        {"xor_fetch", "bitwise"}, {"nand_fetch", "bitwise"},
        {"test_and_set", "exchange"}, {"lock_release", "store"}, {"exchange", "exchange"},
        {"Exchange", "exchange"},
        {"load", "load"}, {"store", "store"}, {"clear", "store"},
        {"Increment", "add_fetch"}, {"Decrement", "sub_fetch"},
        {"wait", "wait"}, {"notify", "wait"},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strstr(name, table[i].contains))
            return table[i].op;
    return NULL;
}

/* ---- facts ------------------------------------------------------------------------- */

static const char *result_use(const atomic_state *x)
{
    enum CXCursorKind parent = hs_walk_parent_kind(x->walk);
    if (hs_walk_in_loop_condition(x->walk))
        return "loop_condition";
    if (hs_walk_in_condition(x->walk) || hs_walk_in_comparison(x->walk))
        return "condition";
    if (clang_isStatement(parent) && parent != CXCursor_ReturnStmt)
        return "discarded";
    if (parent == CXCursor_ReturnStmt)
        return "returned";
    return "value";
}

/*
 * Whether the cursor is an operand of an ordering comparison (< > <= >=) against a value
 * other than -1, 0 or 1: a gauge held to a limit (`if (used < max)`), not a test of a
 * reference count reaching zero (`if (refs <= 0)`, `if (!refs)`, `refs == 0`).
 */
static int limit_comparison(const atomic_state *x, CXCursor c)
{
    unsigned off = 0;
    clang_getExpansionLocation(clang_getCursorLocation(c), NULL, NULL, NULL, &off);
    int limit = -1;
    for (size_t i = 0; i < x->orderings.len; i++) {
        const ordering_range *r = x->orderings.items[i];
        if (off >= r->start && off < r->end) {
            if (r->zero)
                return -1;
            limit = (int)i; /* the innermost: orderings are noted outside in */
        }
    }
    return limit;
}

/* Keeps a read in limit comparison `ordering` for the test at the function's end. */
static void note_bound_test(atomic_state *x, int ordering, json_t *fact, CXCursor use, CXCursor object, CXCursor decl)
{
    const ordering_range *r = x->orderings.items[ordering];
    if (!r->operands[0] && !r->operands[1])
        return;
    bound_test *t = hs_xcalloc(1, sizeof *t);
    t->ordering = (size_t)ordering;
    t->fact = fact ? json_incref(fact) : NULL;
    t->use = use;
    t->object = object;
    t->decl = decl;
    hs_vec_push(&x->bound_tests, t);
}

/* Whether the expression evaluates to an integer constant, which goes to *v. */
static bool int_constant(CXCursor value, long long *v)
{
    CXEvalResult ev = clang_Cursor_Evaluate(value);
    if (!ev)
        return false;
    bool r = clang_EvalResult_getKind(ev) == CXEval_Int;
    if (r)
        *v = clang_EvalResult_getAsLongLong(ev);
    clang_EvalResult_dispose(ev);
    return r;
}

/* The chain_end of at most this many assignments. */
#define CHAIN_MAX 16

/*
 * The value a chain of assignments stores: in `a = b = 0` (and `stats.x = stats.y = 0;`,
 * `a = b = 0` on std::atomic objects) the value of `b = 0` is 0 converted to b's type.
 * Returns the innermost right-hand side, with the type each assignment on the way converts
 * to in types[0..*links), innermost last. Only parentheses and implicit conversions are
 * looked through: an explicit cast may change the value, and ends the chain.
 */
static CXCursor chain_end(CXCursor value, CXType types[CHAIN_MAX], int *links)
{
    *links = 0;
    for (int guard = 0; guard < 4 * CHAIN_MAX; guard++) {
        enum CXCursorKind k = hs_cursor_kind(value);
        if (k == CXCursor_ParenExpr || k == CXCursor_UnexposedExpr) {
            hs_cursor_list kids;
            hs_children(value, &kids);
            CXCursor inner = kids.len == 1 ? kids.items[0] : clang_getNullCursor();
            hs_cursor_list_free(&kids);
            if (hs_cursor_is_null(inner))
                return value;
            value = inner;
            continue;
        }
        CXCursor target = clang_getNullCursor(), next = clang_getNullCursor();
        if (k == CXCursor_BinaryOperator && clang_getCursorBinaryOperatorKind(value) == CXBinaryOperator_Assign) {
            hs_cursor_list kids;
            hs_children(value, &kids);
            if (kids.len == 2) {
                target = kids.items[0];
                next = kids.items[1];
            }
            hs_cursor_list_free(&kids);
        } else if (k == CXCursor_CallExpr) {
            /* `b = 0` on a std::atomic: b.operator=(0), whose value (of type T) is what it stored. */
            CXCursor callee = clang_getCursorReferenced(value);
            CXString name = clang_getCursorSpelling(callee);
            bool assign = hs_cursor_kind(callee) == CXCursor_CXXMethod && strcmp(clang_getCString(name), "operator=") == 0;
            clang_disposeString(name);
            int nargs = clang_Cursor_getNumArguments(value);
            if (assign && nargs > 0) {
                target = value;
                next = clang_Cursor_getArgument(value, (unsigned)nargs - 1);
            }
        }
        if (hs_cursor_is_null(next) || *links == CHAIN_MAX)
            return value;
        types[(*links)++] = clang_getCanonicalType(clang_getNonReferenceType(clang_getCursorType(target)));
        value = next;
    }
    return value;
}

/* `v` converted to the integer type `t`, as an assignment converts it; false when `t` is
 * not a built-in integer type (a conversion this does not model). */
static bool convert_integer(long long *v, CXType t)
{
    if (t.kind == CXType_Atomic) /* `b = 1` on an _Atomic int has b's value type */
        t = clang_getCanonicalType(clang_Type_getValueType(t));
    bool is_signed;
    switch (t.kind) {
    case CXType_Bool: *v = *v != 0; return true;
    case CXType_Char_S: case CXType_SChar: case CXType_Short: case CXType_Int: case CXType_Long:
    case CXType_LongLong: is_signed = true; break;
    case CXType_Char_U: case CXType_UChar: case CXType_UShort: case CXType_UInt: case CXType_ULong:
    case CXType_ULongLong: is_signed = false; break;
    default: return false;
    }
    long long size = clang_Type_getSizeOf(t);
    if (size <= 0 || size > 8)
        return false;
    if (size == 8)
        return true;
    unsigned long long bits = (unsigned long long)*v & ((1ULL << (8 * size)) - 1);
    unsigned long long sign = 1ULL << (8 * size - 1);
    *v = is_signed && (bits & sign) ? (long long)(bits | ~((1ULL << (8 * size)) - 1)) : (long long)bits;
    return true;
}

/*
 * Whether a stored value is a constant: a literal or constant expression, or a chain of
 * assignments ending in an integer constant (`a = b = 0`) whose value the chain's
 * conversions are known to give; *v its value when it is an integer (*has_v).
 */
static bool stored_constant(CXCursor value, long long *v, bool *has_v)
{
    *has_v = false;
    CXType types[CHAIN_MAX];
    int links;
    CXCursor end = chain_end(value, types, &links);
    if (links == 0) {
        CXEvalResult ev = clang_Cursor_Evaluate(value);
        if (!ev)
            return false;
        CXEvalResultKind k = clang_EvalResult_getKind(ev);
        if (k == CXEval_Int) {
            *v = clang_EvalResult_getAsLongLong(ev);
            *has_v = true;
        }
        clang_EvalResult_dispose(ev);
        return k == CXEval_Int || k == CXEval_Float;
    }
    long long stored;
    if (!int_constant(end, &stored))
        return false;
    for (int i = links; i-- > 0;)
        if (!convert_integer(&stored, types[i]) && stored != 0)
            return false; /* 0 is 0 in any arithmetic or pointer type */
    *v = stored;
    *has_v = true;
    return true;
}

static bool is_constant(CXCursor value)
{
    long long v;
    bool has_v;
    return stored_constant(value, &v, &has_v);
}

static bool relaxed_type_context(atomic_state *x)
{
    const char *function = hs_walk_function_name(x->walk);
    if (!function)
        return false;
    const char *key;
    void *unused;
    for (size_t it = 0; hs_strmap_next(hs_walk_ruledata(x->walk)->relaxed_types, &it, &key, &unused);) {
        size_t n = strlen(key);
        const char *hit = strstr(function, key);
        if (hit && strncmp(hit + n, "::", 2) == 0 && (hit == function || hit[-1] == ':'))
            return true;
    }
    return false;
}

typedef struct {
    const char *op;      /* normalized operation */
    const char *order;   /* relaxed ... seq_cst, or unknown */
    const char *form;    /* member, operator, c11, c11_operator, gnu, sync, wrapper, escape */
    const char *api;     /* the name as written: fetch_add, operator++, atomic_fetch_add, ... */
    CXCursor order_arg;  /* null when the order is implicit */
    int value_const;     /* stores: 1 constant, 0 not, -1 n/a */
    CXCursor value_arg;  /* stores: the value, or null */
    CXCursor object;     /* the atomic object expression as written, or null */
    CXCursor operand_value; /* += -= =: the right-hand side, or null */
} atomic_op;

/*
 * For an operation written inside a project macro's definition (haproxy's
 * `#define HA_ATOMIC_INC(p) __atomic_add_fetch(p, 1, __ATOMIC_SEQ_CST)`): the call as
 * the definition spells it, {file, offset, length, text}. NULL when it is spelled in a
 * system header (the C11 generic macros) or cannot be read.
 */
static json_t *spelled_call(atomic_state *x, CXCursor c)
{
    CXSourceLocation start = hs_cursor_start(c);
    if (clang_Location_isInSystemHeader(start))
        return NULL;
    CXFile file;
    unsigned offset;
    size_t size;
    const char *text = hs_spelled_text(x->walk, c, &file, &offset, &size);
    if (!text || hs_walk_file_is_system(x->walk, file, start))
        return NULL;
    const char *real = hs_project_file(x->walk, file);
    if (!real[0])
        return NULL;
    size_t i = offset + hs_identifier_length(text, size, offset);
    int depth = 0;
    size_t end = 0;
    for (size_t k = i; k < size && !end; k++) {
        if (text[k] == '(')
            depth++;
        else if (text[k] == ')' && --depth == 0)
            end = k + 1;
        else if (text[k] == '\n' && (k == 0 || text[k - 1] != '\\'))
            break; /* the definition's line ends */
    }
    if (!end)
        return NULL;
    return json_pack("{s:s, s:i, s:i, s:s%}", "file", real, "offset", (json_int_t)offset, "length",
                     (json_int_t)(end - offset), "text", text + offset, end - offset);
}

/* {"file", "line", "column"}, or NULL when the file's name is not UTF-8 (as json_pack). */
static json_t *place_json(const char *file, unsigned line, unsigned column)
{
    json_t *place = json_object();
    if (!hs_json_set_string(place, "file", file)) {
        json_decref(place);
        return NULL;
    }
    json_object_set_new_nocheck(place, "line", json_integer(line));
    json_object_set_new_nocheck(place, "column", json_integer(column));
    return place;
}

extern const hs_collector hs_collector_atomics;

/* An atomic's name as spelled and its qualified name (for the message), malloc'd as one
 * block: "name\0qualified\0". In C memory, as the worker memo outlives the TU's JSON arena. */
static char *name_pair(const char *name, const char *qualified)
{
    size_t n = strlen(name) + 1, q = strlen(qualified) + 1;
    char *pair = hs_xmalloc(n + q);
    memcpy(pair, name, n);
    memcpy(pair + n, qualified, q);
    return pair;
}

static const char *pair_qualified(const char *pair)
{
    return pair + strlen(pair) + 1;
}

/*
 * The worker memo (hs_walk_worker_memo): function USR -> (identity -> name pair) of the
 * atomics each function's walks named. A TU the header skip leaves a body out of reads that
 * function's names back (atomics_function_skipped), so its compiled-out code is asked about
 * them as if the body had been walked there: `hits` bumped only in a shared header's inline
 * function and waited on in one TU's `#ifdef DEBUG` block.
 */
static hs_strmap *names_of_function(atomic_state *x, const char *usr, bool create)
{
    hs_strmap **memo = (hs_strmap **)hs_walk_worker_memo(x->walk, &hs_collector_atomics);
    if (!*memo)
        *memo = hs_strmap_create();
    hs_strmap *of_fn = hs_strmap_get(*memo, usr);
    if (!of_fn && create) {
        of_fn = hs_strmap_create();
        hs_strmap_put(*memo, usr, of_fn);
    }
    return of_fn;
}

/* Notes an atomic's name under its identity `key`, so tu_end can ask whether compiled-out
 * code mentions it: the name `named` is spelled with, and `qualified` for the message; and
 * under the enclosing function, for the TUs that skip its body. */
static void remember_name(atomic_state *x, CXCursor named, const char *key, const char *qualified)
{
    if (!key || !key[0])
        return;
    const char *fn = hs_walk_function_usr(x->walk);
    hs_strmap *of_fn = fn ? names_of_function(x, fn, true) : NULL;
    if (of_fn)
        hs_walk_body_in_memo(x->walk); /* a worker without the memo must walk it */
    bool for_tu = !hs_strmap_has(x->names, key), for_fn = of_fn && !hs_strmap_has(of_fn, key);
    if (!for_tu && !for_fn)
        return;
    CXString spelling = clang_getCursorSpelling(named);
    const char *name = clang_getCString(spelling);
    if (name && name[0]) {
        const char *q = qualified ? qualified : name;
        if (for_tu)
            hs_strmap_put(x->names, key, name_pair(name, q));
        if (for_fn)
            hs_strmap_put(of_fn, key, name_pair(name, q));
    }
    clang_disposeString(spelling);
}

/* A body the header skip left out: the names its walk in an earlier TU of this worker met. */
static void atomics_function_skipped(void *state, hs_walk *w, const char *usr)
{
    atomic_state *x = state;
    hs_strmap *of_fn = names_of_function(x, usr, false);
    if (of_fn)
        hs_walk_body_in_memo(w);
    const char *key;
    void *pair;
    for (size_t it = 0; of_fn && hs_strmap_next(of_fn, &it, &key, &pair);)
        if (!hs_strmap_has(x->names, key))
            hs_strmap_put(x->names, key, name_pair(pair, pair_qualified(pair)));
}

static void atomics_worker_memo_delete(void *memo)
{
    const char *usr, *key;
    void *of_fn, *names;
    for (size_t it = 0; hs_strmap_next(memo, &it, &usr, &of_fn);) {
        for (size_t jt = 0; hs_strmap_next(of_fn, &jt, &key, &names);)
            free(names);
        hs_strmap_delete(of_fn);
    }
    hs_strmap_delete(memo);
}

/*
 * The variable an operation is on, into `fact`: "var" (the identity: the USR of the
 * object's root, then its path), "var_name", "var_visible", "var_decl" (the root's
 * declaration) and, for a path, "var_field": the USR of the atomic field itself, which
 * every instance reached through a pointer shares.
 */
static void set_identity(atomic_state *x, json_t *fact, CXCursor object_expr, CXCursor decl)
{
    CXCursor root;
    char *path;
    if (hs_cursor_kind(decl) == CXCursor_ParmDecl) {
        /* "param:<function USR>:<index>": the wrapper's object parameter. */
        CXCursor function;
        int index = parameter_index(decl, &function);
        char *id = hs_printf("param:%s:%d", hs_cursor_usr_cached(x->walk, function), index);
        char *name = hs_printf("%s(parameter %d)", hs_qualified_name(x->walk, function), index);
        json_object_set_new_nocheck(fact, "var", json_string(id));
        json_object_set_new_nocheck(fact, "var_name", json_string(name));
        json_object_set_new_nocheck(fact, "var_visible", json_false());
        free(id);
        free(name);
        return;
    }
    /* An atomic narrower than int: `++x` has x's type, `old + 1` would be an int (a
     * uint8_t at 255 gives 0, the sum 256), so a rewrite keeping the value needs care. */
    CXType vt = clang_getCursorType(decl);
    if (vt.kind == CXType_ConstantArray || vt.kind == CXType_IncompleteArray)
        vt = clang_getArrayElementType(vt);
    /* A field or global that holds a pointer to the atomic (`std::atomic<int> *c; *c += 1`):
     * the operation is on whatever it points to, an object its identity does not name. */
    if (clang_getCanonicalType(vt).kind == CXType_Pointer) {
        json_object_set_new_nocheck(fact, "through_pointer", json_true());
        vt = clang_getPointeeType(vt);
    }
    long long vsize = clang_Type_getSizeOf(vt);
    if (vsize > 0 && vsize < (long long)sizeof(int))
        json_object_set_new_nocheck(fact, "value_narrow", json_true());
    object_path(object_expr, decl, &root, &path);
    char *usr = hs_xstrdup(hs_cursor_usr_cached(x->walk, root));
    if (path) {
        char *id = hs_printf("%s%s", usr, path);
        json_object_set_new_nocheck(fact, "var", json_string(id));
        char *name = hs_printf("%s%s", hs_qualified_name(x->walk, root), path);
        json_object_set_new_nocheck(fact, "var_name", json_string(name));
        remember_name(x, root, id, name);
        free(id);
        free(name);
        json_object_set_new_nocheck(fact, "var_field", json_string(hs_cursor_usr_cached(x->walk, decl)));
    } else {
        json_object_set_new_nocheck(fact, "var", json_string(usr));
        json_object_set_new_nocheck(fact, "var_name", json_string(hs_qualified_name(x->walk, root)));
        remember_name(x, root, usr, hs_qualified_name(x->walk, root));
    }
    free(usr);
    free(path);
    hs_pos dpos;
    CXSourceLocation dloc = clang_getCursorLocation(root);
    CXFile dfile;
    clang_getExpansionLocation(dloc, &dfile, &dpos.line, &dpos.column, &dpos.offset);
    json_object_set_new_nocheck(fact, "var_visible", json_boolean(hs_location_is_project(x->walk, dloc)));
    if (hs_location_is_project(x->walk, dloc)) {
        hs_pos p2;
        if (hs_cursor_pos(x->walk, root, &p2, NULL))
            json_object_set_new_nocheck(fact, "var_decl", place_json(p2.file, dpos.line, dpos.column));
    }
}

/* Whether the cursor is in the last return statement walked: its value is (part of) what
 * the function returns (`return n_pending_ios;`, `return n > 0;`). */
static bool in_return(const atomic_state *x, CXCursor c)
{
    unsigned off = 0;
    clang_getExpansionLocation(clang_getCursorLocation(c), NULL, NULL, NULL, &off);
    return x->return_end > x->return_start && off >= x->return_start && off < x->return_end;
}

/*
 * Keeps the identity of the variable `function` returns (the first one it returns), and
 * records it as a "returns" fact at `at`: a TU whose worker skipped the accessor's header
 * body (walked for an earlier TU), or that calls an accessor defined in another .cc, still
 * has its calls in conditions resolved, by the rule, against every TU's "returns" facts.
 */
static void note_accessor(atomic_state *x, const char *function, json_t *fact, CXCursor at)
{
    if (hs_strmap_has(x->accessors, function))
        return;
    json_t *id = json_object();
    static const char *const keys[] = {"var", "var_name", "var_visible", "var_decl", "var_field"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        if (json_object_get(fact, keys[k]))
            json_object_set(id, keys[k], json_object_get(fact, keys[k]));
    hs_strmap_put(x->accessors, function, id);
    hs_pos start, end;
    if (!json_object_get(id, "var") || !hs_cursor_pos(x->walk, at, &start, &end))
        return;
    json_t *returns = json_deep_copy(id);
    json_object_set_new_nocheck(returns, "op", json_string("returns"));
    json_object_set_new_nocheck(returns, "order", json_string("n/a"));
    json_object_set_new_nocheck(returns, "function", json_string(function));
    json_object_set_new_nocheck(returns, "text", json_string(""));
    hs_fact_set_position(returns, &start, &end);
    /* Apart from the load at the same place in the merge's one-fact-per-place key. */
    json_object_set_new_nocheck(returns, "ordinal", json_integer(-1));
    json_array_append_new(x->atomics, returns);
}

/* ---- what a rewrite of an operator keeps ----------------------------------------------
 *
 * The fix for `++x`, `x -= n`, `x = 0` on an atomic is a call, and a call's value is not the
 * operator's: fetch_add returns the old value, store none. The rule rewrites such an
 * operator to the bare call only when no configuration can use its value, and otherwise to
 * `(x.fetch_add(n, relaxed) + n)`, which is the operator's value only when `old + n` has the
 * atomic's value type and `n` may be evaluated twice. The facts below say which holds.
 */

/* Through the implicit nodes libclang shows as unexposed (conversions, lvalue reads): the
 * expression as written, whose type is the text's type. */
static CXCursor written_expr(CXCursor c)
{
    while (hs_cursor_kind(c) == CXCursor_UnexposedExpr) {
        CXCursor inner = hs_first_child(c);
        if (hs_cursor_is_null(inner))
            break;
        c = inner;
    }
    return c;
}

/* Integer conversion rank of a canonical built-in kind after integer promotion (1 int,
 * 2 long, 3 long long, 4 __int128), *is_signed its signedness; 0 for a kind whose promotion
 * this does not know for sure (wchar_t and the charN_t, enums, anything not an integer). */
static int promoted_rank(enum CXTypeKind k, bool *is_signed)
{
    *is_signed = true;
    switch (k) {
    case CXType_Bool:
    case CXType_Char_S:
    case CXType_Char_U:
    case CXType_SChar:
    case CXType_UChar:
    case CXType_Short:
    case CXType_UShort:
    case CXType_Int:
        return 1;
    case CXType_UInt:
        *is_signed = false;
        return 1;
    case CXType_Long:
        return 2;
    case CXType_ULong:
        *is_signed = false;
        return 2;
    case CXType_LongLong:
        return 3;
    case CXType_ULongLong:
        *is_signed = false;
        return 3;
    case CXType_Int128:
        return 4;
    case CXType_UInt128:
        *is_signed = false;
        return 4;
    default:
        return 0;
    }
}

/* Whether `old + n`, old of the canonical built-in kind `value` (an atomic's value type,
 * `value_size` bytes) and n of kind `operand` (`operand_size` bytes), has type `value`
 * again: the usual arithmetic conversions keep it (C 6.3.1.8). */
static bool sum_keeps_type(enum CXTypeKind value, long long value_size, enum CXTypeKind operand,
                           long long operand_size)
{
    bool t_signed, p_signed;
    int t_rank = promoted_rank(value, &t_signed), p_rank = promoted_rank(operand, &p_signed);
    /* The value type must be its own promotion (int or wider): `++c` on a char is a char. */
    if (t_rank == 0 || p_rank == 0 || value_size < (long long)sizeof(int))
        return false;
    if (p_rank == t_rank)
        return p_signed == t_signed || !t_signed;
    if (p_rank > t_rank)
        return false;
    /* A lower-ranked unsigned operand converts to a signed value type only when the value
     * type holds all of its values (it is wider); else both become unsigned. */
    if (operand_size < (long long)sizeof(int))
        operand_size = sizeof(int);
    return !(t_signed && !p_signed && value_size <= operand_size);
}

/* An expression that evaluating twice gives the same value with no side effect: an integer
 * literal, or names of plain (not volatile, not atomic) objects, with members and subscripts
 * of such, none of it written through a macro (another configuration may define it as a call). */
static bool repeatable(CXCursor c)
{
    if (hs_location_in_macro(hs_cursor_start(c), NULL, NULL))
        return false;
    enum CXCursorKind k = hs_cursor_kind(c);
    if (k == CXCursor_IntegerLiteral || k == CXCursor_CXXThisExpr)
        return true;
    if (k == CXCursor_DeclRefExpr || k == CXCursor_MemberRefExpr) {
        CXType t = clang_getCursorType(c);
        if (clang_isVolatileQualifiedType(t) || clang_isVolatileQualifiedType(clang_getCanonicalType(t)) ||
            type_is_atomic(t))
            return false;
        enum CXCursorKind target = hs_cursor_kind(clang_getCursorReferenced(c));
        bool object = k == CXCursor_MemberRefExpr
                          ? target == CXCursor_FieldDecl
                          : target == CXCursor_VarDecl || target == CXCursor_ParmDecl ||
                                target == CXCursor_EnumConstantDecl || target == CXCursor_NonTypeTemplateParameter;
        if (!object)
            return false;
    } else if (k != CXCursor_ArraySubscriptExpr && k != CXCursor_ParenExpr && k != CXCursor_UnexposedExpr) {
        return false;
    }
    hs_cursor_list kids;
    hs_children(c, &kids);
    bool ok = true;
    for (unsigned i = 0; i < kids.len && ok; i++)
        ok = repeatable(kids.items[i]);
    hs_cursor_list_free(&kids);
    return ok;
}

/*
 * For an add, subtract or store written as an operator on an atomic, what its rewrite as a
 * call keeps, into `fact` (atomic-seqcst-counter's fix-its read them):
 *   "whole_statement"    its value is discarded in every configuration: the operator is a
 *                        statement of its own (or a for clause), not written in a macro, with
 *                        no preprocessor directive between it and the tokens around it
 *                        (hs_text_statement_alone), so no #if arm can put a use around it;
 *   "operand_integer"    the operand (x += n) is an integer, so fetch_add(n) adds what += adds;
 *   "sum_keeps_type"     `old + n` (n = 1 for ++ and --) has the operator's own type;
 *   "operand_repeatable" n may be evaluated twice (repeatable), as `(fetch_add(n) + n)` does.
 */
static void note_rewrite_shape(atomic_state *x, json_t *fact, CXCursor op_cursor, const atomic_op *op,
                               const char *use, const hs_span *span)
{
    bool operator_form = strcmp(op->form, "operator") == 0 || strcmp(op->form, "c11_operator") == 0;
    bool arith = strcmp(op->op, "add_fetch") == 0 || strcmp(op->op, "sub_fetch") == 0 ||
                 strcmp(op->op, "fetch_add") == 0 || strcmp(op->op, "fetch_sub") == 0;
    if (!operator_form || (!arith && strcmp(op->op, "store") != 0))
        return;
    CXFile file;
    CXCursor block = hs_walk_block(x->walk);
    if (strcmp(use, "discarded") == 0 && span && !span->macro_name &&
        !hs_location_in_macro(hs_cursor_start(op_cursor), &file, NULL) &&
        hs_cursor_kind(block) == CXCursor_CompoundStmt &&
        !hs_location_in_macro(hs_cursor_start(block), NULL, NULL)) {
        hs_pos at;
        size_t size = 0;
        const char *text = hs_walk_file_contents(x->walk, file, &size);
        if (text && hs_cursor_pos(x->walk, block, &at, NULL) && strcmp(at.file, span->file) == 0 &&
            hs_text_statement_alone(text, size, at.offset, span->offset, (size_t)span->offset + span->length))
            json_object_set_new_nocheck(fact, "whole_statement", json_true());
    }
    if (!arith)
        return;
    CXType value = clang_getCanonicalType(clang_getCursorType(op_cursor));
    if (value.kind == CXType_Atomic)
        value = clang_getCanonicalType(clang_Type_getValueType(value));
    /* ++ and -- add an int 1. */
    enum CXTypeKind operand_kind = CXType_Int;
    long long operand_size = sizeof(int);
    if (!hs_cursor_is_null(op->operand_value)) {
        CXCursor operand = written_expr(op->operand_value);
        CXType t = clang_getCanonicalType(clang_getCursorType(operand));
        operand_kind = t.kind;
        operand_size = clang_Type_getSizeOf(t);
        if (type_is_integer(t))
            json_object_set_new_nocheck(fact, "operand_integer", json_true());
        if (repeatable(operand))
            json_object_set_new_nocheck(fact, "operand_repeatable", json_true());
    }
    if (sum_keeps_type(value.kind, clang_Type_getSizeOf(value), operand_kind, operand_size))
        json_object_set_new_nocheck(fact, "sum_keeps_type", json_true());
}

/* The fact of one operation at `op_cursor`, without its variable (set_identity adds it);
 * NULL when the cursor has no position. */
static json_t *build_fact(atomic_state *x, CXCursor op_cursor, const atomic_op *op)
{
    hs_pos start, end;
    if (!hs_cursor_pos(x->walk, op_cursor, &start, &end))
        return NULL;
    json_t *fact = json_object();
    json_object_set_new_nocheck(fact, "op", json_string(op->op));
    json_object_set_new_nocheck(fact, "order", json_string(op->order));
    json_object_set_new_nocheck(fact, "form", json_string(op->form));
    json_object_set_new_nocheck(fact, "api", json_string(op->api));
    /* A load compared for equality, or masked in a test: a sequence lock's or a
     * version's check (`if (v & 1)`, `load() != v`), never a counter's. */
    bool version_check = strcmp(op->op, "load") == 0 &&
                         (hs_walk_in_equality(x->walk) ||
                          (hs_walk_in_mask(x->walk) &&
                           (hs_walk_in_condition(x->walk) || hs_walk_in_comparison(x->walk))));
    const char *use = version_check ? "version_check" : result_use(x);
    json_object_set_new_nocheck(fact, "use", json_string(use));
    int limit = strcmp(use, "condition") == 0 || strcmp(use, "loop_condition") == 0 ? limit_comparison(x, op_cursor) : -1;
    if (limit >= 0) {
        json_object_set_new_nocheck(fact, "limit_test", json_true());
        if (strcmp(op->op, "load") == 0)
            note_bound_test(x, limit, fact, op_cursor, clang_getNullCursor(), clang_getNullCursor());
    }
    if (op->value_const >= 0)
        json_object_set_new_nocheck(fact, "value_constant", json_boolean(op->value_const == 1));
    long long stored;
    bool has_stored;
    if (op->value_const == 1 && !hs_cursor_is_null(op->value_arg) && stored_constant(op->value_arg, &stored, &has_stored) &&
        has_stored)
        json_object_set_new_nocheck(fact, "value", json_integer(stored));
    char *sink = hs_sink_key(x->walk);
    if (sink)
        json_object_set_new_nocheck(fact, "sink", json_string(sink));
    free(sink);
    bool named = false;
    CXCursor local = strcmp(use, "value") == 0 ? hs_walk_sink_local(x->walk, &named) : clang_getNullCursor();
    if (!hs_cursor_is_null(local)) {
        local_sink *ls = hs_xmalloc(sizeof *ls);
        ls->fact = json_incref(fact);
        ls->decl = local;
        ls->named = named;
        hs_vec_push(&x->local_sinks, ls);
    }
    const char *function = hs_walk_function_usr(x->walk);
    const char *function_name = hs_walk_function_name(x->walk);
    json_object_set_new_nocheck(fact, "function", json_string(function ? function : ""));
    json_object_set_new_nocheck(fact, "function_name", json_string(function_name ? function_name : "(a global's initializer)"));
    hs_fact_set_position(fact, &start, &end);
    json_object_set_new_nocheck(fact, "macro", json_boolean(hs_location_in_macro(hs_cursor_start(op_cursor), NULL, NULL)));
    char *text = hs_cursor_source(x->walk, op_cursor);
    json_object_set_new_nocheck(fact, "text", json_string(text));
    free(text);
    /* What a fix-it rewrites: the code as written, its parts, and for code written in
     * a macro's definition, where that definition spells it. */
    hs_span span;
    if (hs_written_span(x->walk, op_cursor, &span)) {
        json_t *spanned = json_object();
        json_object_set_new_nocheck(spanned, "offset", json_integer(span.offset));
        json_object_set_new_nocheck(spanned, "length", json_integer(span.length));
        if (hs_json_set_string(spanned, "text", span.text))
            json_object_set_new_nocheck(fact, "span", spanned);
        else
            json_decref(spanned); /* text that is not UTF-8: no span, as with json_pack */
        if (span.macro_name) {
            json_object_set_new_nocheck(fact, "macro_name", json_string(span.macro_name));
            json_t *spelled = spelled_call(x, op_cursor);
            if (spelled)
                json_object_set_new_nocheck(fact, "spelled", spelled);
        }
        note_rewrite_shape(x, fact, op_cursor, op, use, &span);
        hs_span_free(&span);
    }
    if (!hs_cursor_is_null(op->object)) {
        char *object = hs_cursor_source(x->walk, op->object);
        json_object_set_new_nocheck(fact, "object_text", json_string(object));
        free(object);
    }
    if (!hs_cursor_is_null(op->value_arg) || !hs_cursor_is_null(op->operand_value)) {
        char *value = hs_cursor_source(x->walk, hs_cursor_is_null(op->operand_value) ? op->value_arg : op->operand_value);
        /* Said apart from the text: json_string() refuses text that is not UTF-8 (a Latin-1
         * string literal), and a missing operand must not read as "no operand". */
        json_object_set_new_nocheck(fact, "value_operand", json_true());
        json_object_set_new_nocheck(fact, "value_text", json_string(value));
        free(value);
    }
    if (!hs_cursor_is_null(op->order_arg)) {
        hs_pos os, oe;
        if (hs_cursor_pos(x->walk, op->order_arg, &os, &oe) && oe.offset > os.offset) {
            json_object_set_new_nocheck(fact, "order_offset", json_integer(os.offset));
            json_object_set_new_nocheck(fact, "order_length", json_integer(oe.offset - os.offset));
        }
    }
    /* An ordinal keeps two operations at one macro expansion apart in the merge. */
    json_object_set_new_nocheck(fact, "ordinal", json_integer(hs_site_ordinal(x->walk, "atomic", start.file, start.offset)));
    return fact;
}

/*
 * Whether a stored value is an integer parameter of the function the store is in, as
 * given (through chained assignments and casts): a setter's new total
 * (`void SetTickerCount(uint32_t t, uint64_t count) { tickers_[t].store(count); }`).
 */
static bool value_is_parameter(atomic_state *x, CXCursor value)
{
    CXType types[CHAIN_MAX];
    int links;
    CXCursor e = hs_strip_expr(chain_end(value, types, &links));
    if (hs_cursor_kind(e) != CXCursor_DeclRefExpr)
        return false;
    CXCursor parm = clang_getCursorReferenced(e);
    if (hs_cursor_kind(parm) != CXCursor_ParmDecl || !type_is_integer(clang_getCursorType(parm)))
        return false;
    const char *function = hs_walk_function_usr(x->walk);
    const char *owner = hs_cursor_usr_cached(x->walk, clang_getCursorSemanticParent(parm));
    return function && owner && function[0] && strcmp(function, owner) == 0;
}

/* The local pointer alias (alias_arms) an object expression is, `p` or `*p`, or a null
 * cursor; its arms into `arms`, their number into `n`. */
static CXCursor alias_through(CXCursor e, CXCursor arms[2], unsigned *n)
{
    *n = 0;
    e = hs_strip_expr(e);
    if (hs_cursor_kind(e) == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(e) == CXUnaryOperator_Deref) {
        hs_cursor_list kids;
        hs_children(e, &kids);
        CXCursor inner = kids.len == 1 ? kids.items[0] : clang_getNullCursor();
        hs_cursor_list_free(&kids);
        e = hs_strip_expr(inner);
    }
    if (hs_cursor_kind(e) != CXCursor_DeclRefExpr)
        return clang_getNullCursor();
    CXCursor d = clang_getCursorReferenced(e);
    *n = alias_arms(d, arms);
    return *n ? d : clang_getNullCursor();
}

static void note_alias_fact(atomic_state *x, json_t *fact, CXCursor local, bool op, bool first)
{
    alias_fact *a = hs_xmalloc(sizeof *a);
    a->fact = json_incref(fact);
    a->local = local;
    a->op = op;
    a->first = first;
    hs_vec_push(&x->alias_facts, a);
}

static void set_identity(atomic_state *x, json_t *fact, CXCursor object_expr, CXCursor decl);

/* An operation through a local pointer to one of two atomics (`c ? &X : &Y`): the same
 * operation on the second, as its own fact. */
static void record_second_arm(atomic_state *x, json_t *fact, CXCursor local, CXCursor arm)
{
    CXCursor decl = object_decl(arm);
    if (hs_cursor_is_null(decl))
        return;
    json_t *other = json_deep_copy(fact);
    static const char *const keys[] = {"var", "var_name", "var_visible", "var_decl", "var_field",
                                       "through_pointer", "value_narrow"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        json_object_del(other, keys[i]);
    set_identity(x, other, arm, decl);
    json_object_set_new_nocheck(other, "alias_targets", json_integer(2));
    note_alias_fact(x, other, local, true, false);
    json_array_append_new(x->atomics, other);
}

static void record(atomic_state *x, CXCursor op_cursor, CXCursor object_expr, CXCursor decl, const atomic_op *op)
{
    if (relaxed_type_context(x))
        return;
    json_t *fact = build_fact(x, op_cursor, op);
    if (!fact)
        return;
    CXCursor arms[2];
    unsigned n_arms = 0;
    bool escape = strcmp(op->op, "escape") == 0;
    CXCursor alias = escape ? clang_getNullCursor() : alias_through(object_expr, arms, &n_arms);
    if (!hs_cursor_is_null(alias)) {
        if (n_arms == 2)
            json_object_set_new_nocheck(fact, "alias_targets", json_integer(2));
        note_alias_fact(x, fact, alias, true, true);
    } else if (escape) {
        /* `&X` in the declaration of such a local: an escape only if the local is more. */
        bool named = false;
        CXCursor local = hs_walk_sink_local(x->walk, &named);
        if (!named && !hs_cursor_is_null(local) && alias_arms(local, arms) > 0)
            note_alias_fact(x, fact, local, false, false);
    }
    /* A store of the function's parameter into a variable (not into a wrapper's own pointer
     * parameter, whose callers pass any value): a setter. */
    if (strcmp(op->op, "store") == 0 && op->value_const == 0 && !hs_cursor_is_null(op->value_arg) &&
        hs_cursor_kind(decl) != CXCursor_ParmDecl && value_is_parameter(x, op->value_arg))
        json_object_set_new_nocheck(fact, "value_parameter", json_true());
    set_identity(x, fact, object_expr, decl);
    /* An atomic update in a branch arm: a plain update in the branch's other arm is its
     * single-threaded fallback (mark_fallback_updates). */
    bool rmw = strstr(op->op, "add") || strstr(op->op, "sub") || strcmp(op->op, "cas") == 0 ||
               strcmp(op->op, "exchange") == 0 || strcmp(op->op, "bitwise") == 0;
    arm_note *arm = rmw ? note_arm(x, json_string_value(json_object_get(fact, "var")), NULL) : NULL;
    if (arm)
        hs_vec_push(&x->atomic_arms, arm);
    /* A function that returns the variable's value is its accessor: `bool pending_io()
     * const { return n_pending_ios; }`. Its calls in conditions are tests of the variable. */
    const char *function = hs_walk_function_usr(x->walk);
    if (function && function[0] && strcmp(op->op, "load") == 0 && in_return(x, op_cursor))
        note_accessor(x, function, fact, op_cursor);
    json_array_append_new(x->atomics, fact);
    if (n_arms == 2)
        record_second_arm(x, fact, alias, arms[1]);
}

/* ---- recognizers --------------------------------------------------------------------- */

/* The object of a member or operator call on std::atomic: x in x.load() or ++x. */
static CXCursor member_object(CXCursor call)
{
    hs_cursor_list kids;
    hs_children(call, &kids);
    CXCursor r = clang_getNullCursor();
    if (kids.len > 0) {
        CXCursor first = hs_strip_expr(kids.items[0]);
        enum CXCursorKind target = hs_cursor_kind(clang_getCursorReferenced(first));
        bool names_method = target == CXCursor_CXXMethod || target == CXCursor_ConversionFunction;
        if (hs_cursor_kind(first) == CXCursor_MemberRefExpr && names_method) {
            hs_cursor_list inner;
            hs_children(first, &inner);
            if (inner.len > 0)
                r = inner.items[0];
            hs_cursor_list_free(&inner);
        } else {
            r = kids.items[0];
        }
    }
    hs_cursor_list_free(&kids);
    return r;
}

static bool std_atomic_method(const char *qname)
{
    if (strncmp(qname, "std::", 5) != 0)
        return false;
    const char *last = strrchr(qname, ':');
    if (!last || last - qname < 2)
        return false;
    /* the class part, before "::method" */
    return memmem(qname, (size_t)(last - qname), "atomic", 6) != NULL;
}

static bool on_std_atomic_call(atomic_state *x, CXCursor call, CXCursor callee, const char *qname)
{
    if (!std_atomic_method(qname))
        return false;
    if (hs_cursor_kind(callee) == CXCursor_Constructor)
        return true; /* making an atomic or an atomic_ref is no operation on it */
    const char *method = strrchr(qname, ':') + 1;
    CXCursor object = member_object(call);
    CXCursor decl = hs_cursor_is_null(object) ? object : object_decl(object);
    if (hs_cursor_is_null(decl))
        return true;
    consume(x, object);
    int nargs = clang_Cursor_getNumArguments(call);
    atomic_op op = {.order = "seq_cst", .form = "member", .api = method, .object = object,
                    .operand_value = clang_getNullCursor(), .order_arg = clang_getNullCursor(),
                    .value_const = -1, .value_arg = clang_getNullCursor()};
    bool is_operator = strncmp(method, "operator", 8) == 0;
    if (is_operator) {
        op.form = "operator";
        const char *sym = method + 8;
        /* The object is argument 0; postfix ++/-- carry a dummy int as argument 1. */
        bool postfix = nargs > 1;
        if (strcmp(sym, "++") == 0)
            op.op = postfix ? "fetch_add" : "add_fetch";
        else if (strcmp(sym, "--") == 0)
            op.op = postfix ? "fetch_sub" : "sub_fetch";
        else if (strcmp(sym, "+=") == 0)
            op.op = "add_fetch";
        else if (strcmp(sym, "-=") == 0)
            op.op = "sub_fetch";
        else if (strcmp(sym, "&=") == 0 || strcmp(sym, "|=") == 0 || strcmp(sym, "^=") == 0)
            op.op = "bitwise";
        else if (strcmp(sym, "=") == 0) {
            op.op = "store";
            if (nargs > 0) {
                op.value_arg = clang_Cursor_getArgument(call, (unsigned)nargs - 1);
                op.value_const = is_constant(op.value_arg);
            }
        } else
            op.op = "load"; /* operator T: an implicit load */
        if ((strcmp(sym, "+=") == 0 || strcmp(sym, "-=") == 0) && nargs > 1)
            op.operand_value = clang_Cursor_getArgument(call, (unsigned)nargs - 1);
    } else {
        op.op = normalize_op(method);
        if (!op.op)
            op.op = "other";
        /* The order is the last argument, after the value(s): load(o), fetch_add(v, o),
         * store(v, o), exchange(v, o); compare_exchange has two orders. */
        int value_args = strcmp(op.op, "load") == 0 ? 0 : strcmp(op.op, "cas") == 0 ? 2 : 1;
        if (nargs > value_args) {
            op.order_arg = clang_Cursor_getArgument(call, (unsigned)value_args);
            op.order = decode_order(x, op.order_arg);
            hs_pos p;
            if (!hs_cursor_pos(x->walk, op.order_arg, &p, NULL))
                op.order_arg = clang_getNullCursor(); /* a defaulted argument */
        }
        if (strcmp(op.op, "store") == 0 && nargs > 0) {
            op.value_arg = clang_Cursor_getArgument(call, 0);
            op.value_const = is_constant(op.value_arg);
        }
    }
    (void)callee;
    record(x, call, object, decl, &op);
    return true;
}

/* The last wrapper whose name matches `qname` (a trailing '*' matches any rest), or NULL;
 * looked up once per callee name and TU, since every call asks. */
static json_t *wrapper_for(atomic_state *x, const char *qname)
{
    const hs_vec *wrappers = &hs_walk_ruledata(x->walk)->atomic_wrappers;
    uintptr_t known = (uintptr_t)hs_strmap_get(x->wrapper_of, qname);
    if (known)
        return known == 1 ? NULL : wrappers->items[known - 2];
    if (!x->wrapper_names) {
        x->wrapper_names = hs_xcalloc(wrappers->len ? wrappers->len : 1, sizeof *x->wrapper_names);
        for (size_t i = 0; i < wrappers->len; i++)
            x->wrapper_names[i] = json_string_value(json_object_get(wrappers->items[i], "name"));
    }
    size_t found = 1;
    for (size_t i = wrappers->len; i-- > 0;) {
        const char *name = x->wrapper_names[i];
        size_t n = strlen(name);
        if ((n && name[n - 1] == '*') ? strncmp(name, qname, n - 1) == 0 : strcmp(name, qname) == 0) {
            found = i + 2;
            break;
        }
    }
    hs_strmap_put(x->wrapper_of, qname, (void *)(uintptr_t)found);
    return found == 1 ? NULL : wrappers->items[found - 2];
}

/* Wrappers from rule data: {"name", "op", "order" or "order_arg", "object_arg"}. */
static bool on_wrapper_call(atomic_state *x, CXCursor call, const char *qname)
{
    json_t *w = wrapper_for(x, qname);
    if (w) {
        const char *opname = json_string_value(json_object_get(w, "op"));
        json_t *oa = json_object_get(w, "object_arg");
        int object_arg = json_is_integer(oa) ? (int)json_integer_value(oa) : 0;
        int nargs = clang_Cursor_getNumArguments(call);
        if (object_arg >= nargs)
            return true;
        CXCursor object = clang_Cursor_getArgument(call, (unsigned)object_arg);
        CXCursor decl = object_decl(object);
        if (hs_cursor_is_null(decl))
            return true;
        consume(x, object);
        atomic_op op = {.op = opname ? normalize_op(opname) : NULL, .form = "wrapper", .api = qname,
                        .order_arg = clang_getNullCursor(), .value_const = -1, .value_arg = NO_CURSOR, .object = NO_CURSOR, .operand_value = NO_CURSOR};
        if (!op.op)
            op.op = opname ? opname : "other";
        const char *order = json_string_value(json_object_get(w, "order"));
        op.order = order ? order : "seq_cst";
        json_t *ordarg = json_object_get(w, "order_arg");
        if (json_is_integer(ordarg) && json_integer_value(ordarg) < nargs) {
            op.order_arg = clang_Cursor_getArgument(call, (unsigned)json_integer_value(ordarg));
            op.order = decode_order(x, op.order_arg);
        }
        json_t *va = json_object_get(w, "value_arg");
        if (strcmp(op.op, "store") == 0 && json_is_integer(va) && json_integer_value(va) < nargs) {
            op.value_arg = clang_Cursor_getArgument(call, (unsigned)json_integer_value(va));
            op.value_const = is_constant(op.value_arg);
        }
        record(x, call, object, decl, &op);
        return true;
    }
    return false;
}

/* __sync_* builtins and std::atomic_* / C11 generic functions reached as calls. */
static bool on_builtin_call(atomic_state *x, CXCursor call, CXCursor callee, const char *qname)
{
    bool sync = strncmp(qname, "__sync_", 7) == 0;
    /* The standard's atomic_* functions, not a project's own atomic_fetch_add_relaxed64. */
    bool free_fn = (strncmp(qname, "std::atomic_", 12) == 0 || strncmp(qname, "atomic_", 7) == 0) &&
                   clang_Location_isInSystemHeader(clang_getCursorLocation(callee));
    if (!sync && !free_fn)
        return false;
    int nargs = clang_Cursor_getNumArguments(call);
    if (nargs < 1)
        return true;
    CXCursor object = clang_Cursor_getArgument(call, 0);
    CXCursor decl = object_decl(object);
    if (hs_cursor_is_null(decl))
        return true;
    consume(x, object);
    const char *base = strrchr(qname, ':') ? strrchr(qname, ':') + 1 : qname;
    atomic_op op = {.op = normalize_op(base), .order = "seq_cst", .form = sync ? "sync" : "c11",
                    .api = qname, .order_arg = clang_getNullCursor(), .value_const = -1, .value_arg = NO_CURSOR, .object = NO_CURSOR, .operand_value = NO_CURSOR};
    if (!op.op)
        op.op = "other";
    if (!sync && strstr(base, "_explicit")) {
        op.order_arg = clang_Cursor_getArgument(call, (unsigned)nargs - 1);
        op.order = decode_order(x, op.order_arg);
    }
    if (sync && strcmp(op.op, "store") == 0)
        op.order = "release"; /* __sync_lock_release */
    if (strcmp(op.op, "store") == 0 && nargs > 1) {
        op.value_arg = clang_Cursor_getArgument(call, 1);
        op.value_const = is_constant(op.value_arg);
    }
    record(x, call, object, decl, &op);
    return true;
}

/* The first identifier where a cursor's code is spelled (inside macro definitions too). */
static char *spelled_name(atomic_state *x, CXCursor c)
{
    CXFile file;
    unsigned offset;
    size_t size;
    const char *text = hs_spelled_text(x->walk, c, &file, &offset, &size);
    size_t n = text ? hs_identifier_length(text, size, offset) : 0;
    return n ? hs_xstrndup(text + offset, n) : NULL;
}

/*
 * Clang's atomic builtins (the C11 generic functions expand to __c11_atomic_*, and the
 * GNU __atomic_* family) are AtomicExpr nodes, unexposed in libclang. Their children are
 * [object, order, value...]; the operation is read from the spelled builtin name.
 */
static bool on_atomic_expr(atomic_state *x, CXCursor c, const hs_cursor_list *list)
{
    hs_cursor_list kids = *list; /* c's children, the walk's */
    if (kids.len < 2)
        return false;
    char *name = spelled_name(x, c);
    bool is_builtin = name && (strncmp(name, "__c11_atomic_", 13) == 0 || strncmp(name, "__atomic_", 9) == 0 ||
                               strncmp(name, "atomic_", 7) == 0);
    if (!is_builtin || strstr(name, "thread_fence") || strstr(name, "signal_fence") ||
        strstr(name, "always_lock_free") || strstr(name, "is_lock_free")) {
        free(name);
        return false;
    }
    CXCursor object = kids.items[0];
    CXCursor decl = object_decl(object);
    if (!hs_cursor_is_null(decl)) {
        consume(x, object);
        bool gnu = strncmp(name, "__atomic_", 9) == 0;
        atomic_op op = {.op = normalize_op(name), .form = gnu ? "gnu" : "c11", .api = name,
                        .order_arg = kids.items[1], .value_const = -1, .value_arg = NO_CURSOR, .object = NO_CURSOR, .operand_value = NO_CURSOR};
        if (!op.op)
            op.op = "other";
        op.order = decode_order(x, kids.items[1]);
        /* A C11 generic call without _explicit spells no order: it is seq_cst. */
        hs_pos p;
        if (!gnu && !strstr(name, "_explicit"))
            op.order_arg = clang_getNullCursor();
        else if (!hs_cursor_pos(x->walk, op.order_arg, &p, NULL))
            op.order_arg = clang_getNullCursor();
        /* The stored value; atomic_init(obj, value) is a plain initialization whose
         * children are [obj, value], no order. */
        bool init = strstr(name, "atomic_init") != NULL;
        if (init) {
            op.op = "store";
            op.order = "relaxed";
            op.order_arg = clang_getNullCursor();
        }
        unsigned value_index = init ? 1 : 2;
        if (strcmp(op.op, "store") == 0 && kids.len > value_index) {
            op.value_arg = kids.items[value_index];
            op.value_const = is_constant(op.value_arg);
        }
        record(x, c, object, decl, &op);
    }
    free(name);
    return true;
}

static void on_c11_operator(atomic_state *x, CXCursor c, CXCursor operand, const char *opname,
                            const char *api, CXCursor value)
{
    if (!type_is_c11_atomic(clang_getCursorType(operand)))
        return;
    CXCursor decl = object_decl(operand);
    if (hs_cursor_is_null(decl))
        return;
    consume(x, operand);
    atomic_op op = {.op = opname, .order = "seq_cst", .form = "c11_operator", .api = api,
                    .order_arg = clang_getNullCursor(), .value_const = -1, .value_arg = NO_CURSOR,
                    .object = operand, .operand_value = value};
    record(x, c, operand, decl, &op);
}

/* ---- plain (non-atomic) uses of integers --------------------------------------------
 *
 * Code that uses __atomic/__sync builtins or wrappers on a plain `int` also reads and
 * writes it directly (`if (!t->refcnt) free(t)`), possibly in another TU. Each TU keeps
 * one summary per integer global or field it touches; the rule looks only at the
 * summaries of variables that are used atomically somewhere.
 */

static bool type_is_integer(CXType t)
{
    enum CXTypeKind k = clang_getCanonicalType(t).kind;
    return (k >= CXType_Bool && k <= CXType_Int128) || k == CXType_Enum;
}

/* The "var" set_identity gives an object that is no parameter: its root's USR, then its path. */
static char *object_identity(atomic_state *x, CXCursor object_expr, CXCursor decl)
{
    CXCursor root;
    char *path;
    object_path(object_expr, decl, &root, &path);
    const char *usr = hs_cursor_usr_cached(x->walk, root);
    char *id = path ? hs_printf("%s%s", usr, path) : hs_xstrdup(usr);
    free(path);
    return id;
}

static json_t *plain_use(atomic_state *x, CXCursor use, CXCursor object, CXCursor decl, const char *what)
{
    hs_pos pos;
    if (!hs_cursor_pos(x->walk, use, &pos, NULL))
        return NULL;
    /* Keyed by the object's identity (its path when it has one), as atomic facts are. Only a
     * variable's first use needs the rest of set_identity's answer (its first call also noted
     * the name, remember_name). */
    char *var = object_identity(x, object, decl);
    json_t *sum = hs_strmap_get(x->plain_uses, var);
    free(var);
    if (!sum) {
        json_t *id = json_object();
        set_identity(x, id, object, decl);
        const char *usr = json_string_value(json_object_get(id, "var"));
        sum = hs_strmap_get(x->plain_uses, usr);
        if (!sum) {
            sum = json_pack("{s:s, s:O, s:s, s:s, s:s, s:{}}", "var", usr, "var_name", json_object_get(id, "var_name"),
                            "op", "plain", "order", "n/a", "function", "", "plain");
            if (json_object_get(id, "var_field"))
                json_object_set(sum, "var_field", json_object_get(id, "var_field"));
            hs_strmap_put(x->plain_uses, usr, sum);
        }
        json_decref(id);
    }
    json_t *counts = json_object_get(sum, "plain");
    json_t *n = json_object_get(counts, what);
    json_object_set_new(counts, what, json_integer(n ? json_integer_value(n) + 1 : 1));
    /* Where each kind of use first happens, for messages. */
    char *where_key = hs_strjoin3(what, "_at", "");
    if (!json_object_get(counts, where_key))
        json_object_set_new(counts, where_key, place_json(pos.file, pos.line, pos.column));
    free(where_key);
    return sum;
}

/* A container of atomics (std::array<std::atomic<T>, N>, std::vector<...>). */
static bool type_contains_atomics(CXType t)
{
    CXType canonical = clang_getCanonicalType(t);
    if (is_builtin(canonical))
        return false;
    CXString s = clang_getTypeSpelling(canonical);
    bool r = strstr(clang_getCString(s), "std::atomic<") != NULL;
    clang_disposeString(s);
    return r;
}

/*
 * What a variable's type is to this collector, computed once per declaration: 'a'
 * atomic, 'c' a container of atomics (named other than through [] it escapes: a range-for
 * binds its elements to references), 'i' a project integer global or field (plain uses
 * are summarized), 'o' other.
 */
static char type_class(atomic_state *x, CXCursor decl)
{
    void *v = hs_ptrmap_get(x->type_classes, decl.data[0], 0);
    if (v)
        return (char)(intptr_t)v;
    CXType t = clang_getCursorType(decl);
    char cls = 'o';
    if (hs_cursor_kind(decl) == CXCursor_ParmDecl)
        cls = is_object_pointer(t) ? 'p' : 'o';
    else if (type_is_atomic(t))
        cls = 'a';
    else if (type_contains_atomics(t))
        cls = 'c';
    else if (type_is_integer(t) && hs_location_is_project(x->walk, clang_getCursorLocation(decl)))
        cls = 'i';
    hs_ptrmap_put(x->type_classes, decl.data[0], 0, (void *)(intptr_t)cls);
    return cls;
}

/* A plain use of an integer global or field, by context: read, tested, written. */
static bool on_plain_object(atomic_state *x, CXCursor use, CXCursor object, const char *write_kind)
{
    CXCursor decl = object_decl(object);
    if (hs_cursor_is_null(decl) || !type_is_integer(clang_getCursorType(decl)) ||
        !hs_location_is_project(x->walk, clang_getCursorLocation(decl)))
        return false;
    consume(x, object);
    if (write_kind) {
        plain_use(x, use, object, decl, write_kind);
    } else if (hs_walk_in_loop_condition(x->walk)) {
        plain_use(x, use, object, decl, "loads_loop_condition");
    } else if (hs_walk_in_condition(x->walk) || hs_walk_in_comparison(x->walk)) {
        plain_use(x, use, object, decl, "loads_condition");
        int limit = limit_comparison(x, use);
        if (limit >= 0) {
            plain_use(x, use, object, decl, "loads_limit");
            note_bound_test(x, limit, NULL, use, object, decl);
        }
    } else {
        plain_use(x, use, object, decl, "reads");
        const char *function = hs_walk_function_usr(x->walk);
        if (function && function[0] && in_return(x, use)) {
            json_t *id = json_object();
            set_identity(x, id, object, decl);
            note_accessor(x, function, id, use);
            json_decref(id);
        }
    }
    return true;
}

/*
 * Whether an object expression names a part of a local or of a parameter passed by value
 * (`total.hits` with `struct stats total;`): a copy on the stack, which no other thread
 * updates. A field reached through a pointer, a reference or `this`, and a global's, are
 * shared.
 */
static bool object_is_local(CXCursor e)
{
    for (int guard = 0; guard < 32; guard++) {
        e = hs_strip_expr(e);
        enum CXCursorKind k = hs_cursor_kind(e);
        if (k == CXCursor_DeclRefExpr) {
            CXCursor d = clang_getCursorReferenced(e);
            enum CXCursorKind dk = hs_cursor_kind(d);
            enum CXTypeKind tk = clang_getCanonicalType(clang_getCursorType(d)).kind;
            bool by_value = tk != CXType_LValueReference && tk != CXType_RValueReference && tk != CXType_Pointer;
            return by_value && (dk == CXCursor_ParmDecl ||
                                (dk == CXCursor_VarDecl && clang_Cursor_hasVarDeclGlobalStorage(d) != 1));
        }
        if (k != CXCursor_MemberRefExpr && k != CXCursor_ArraySubscriptExpr)
            return false;
        CXCursor base = hs_first_child(e);
        if (hs_cursor_is_null(base))
            return false; /* a member of `this` */
        enum CXTypeKind bk = clang_getCanonicalType(clang_getCursorType(hs_strip_expr(base))).kind;
        if (bk == CXType_Pointer || bk == CXType_LValueReference || bk == CXType_RValueReference)
            return false;
        e = base;
    }
    return false;
}

/* The plain updates of one variable a TU's summary lists, with where each is. */
#define UPDATE_SITES_MAX 8

/*
 * `x++`, `x--`, `x += n`, `x -= n` on a plain integer global or field: a statement of its
 * own on a shared object is an update ("updates", and "decrements" for subtracts), which a
 * variable updated atomically elsewhere races with (atomic-mixed-access); each TU lists its
 * first UPDATE_SITES_MAX in "updates_sites". Anything else (its value used, a local copy's
 * field) is a computed write, as before.
 */
static void on_plain_update(atomic_state *x, CXCursor use, CXCursor object, bool decrement)
{
    if (strcmp(result_use(x), "discarded") != 0 || object_is_local(object)) {
        on_plain_object(x, use, object, "writes_computed");
        return;
    }
    CXCursor decl = object_decl(object);
    if (hs_cursor_is_null(decl) || !type_is_integer(clang_getCursorType(decl)) ||
        !hs_location_is_project(x->walk, clang_getCursorLocation(decl)))
        return;
    consume(x, object);
    json_t *sum = plain_use(x, use, object, decl, "updates");
    if (!sum)
        return;
    if (decrement)
        plain_use(x, use, object, decl, "decrements");
    json_t *counts = json_object_get(sum, "plain");
    json_t *sites = json_object_get(counts, "updates_sites");
    if (!sites)
        json_object_set_new(counts, "updates_sites", sites = json_array());
    hs_pos start, end;
    if (json_array_size(sites) >= UPDATE_SITES_MAX || !hs_cursor_pos(x->walk, use, &start, &end))
        return;
    json_t *site = json_object();
    hs_fact_set_position(site, &start, &end);
    const char *function_name = hs_walk_function_name(x->walk);
    json_object_set_new_nocheck(site, "function_name", json_string(function_name ? function_name : ""));
    char *text = hs_cursor_source(x->walk, use);
    if (!hs_json_set_string(site, "text", text))
        json_object_set_new_nocheck(site, "text", json_string(""));
    free(text);
    json_array_append_new(sites, site);
    arm_note *a = note_arm(x, json_string_value(json_object_get(sum, "var")), site);
    if (a)
        hs_vec_push(&x->plain_arms, a);
}

static void arm_notes_clear(hs_vec *notes)
{
    for (size_t i = 0; i < notes->len; i++) {
        arm_note *a = notes->items[i];
        free(a->var);
        json_decref(a->site);
        free(a);
    }
    notes->len = 0;
}

/* Marks "beside" the plain updates in one arm of a branch whose other arm updates the same
 * variable atomically (`if (shared) atomic_add(&x); else x++;`). */
static void mark_fallback_updates(atomic_state *x)
{
    for (size_t i = 0; i < x->plain_arms.len; i++) {
        const arm_note *p = x->plain_arms.items[i];
        for (size_t j = 0; j < x->atomic_arms.len; j++) {
            const arm_note *a = x->atomic_arms.items[j];
            if (a->node_start == p->node_start && a->depth == p->depth && a->arm != p->arm &&
                strcmp(a->var, p->var) == 0) {
                json_object_set_new_nocheck(p->site, "beside", json_true());
                break;
            }
        }
    }
    arm_notes_clear(&x->plain_arms);
    arm_notes_clear(&x->atomic_arms);
}

/*
 * With `w`, marks "dead_store" the results stored into a local that nothing else in the
 * function names: `atomic_sub(&count, 1, &orig)` with OVS's `#define atomic_sub(RMW, ARG,
 * ORIG) (*(ORIG) = atomic_fetch_sub_explicit(...), (void) 0)` and `orig` never read. The
 * stores name the local once each (not a declaration's initializer); any other mention may
 * read it. Then forgets them.
 */
/*
 * With `w`, judges the function's local pointer aliases: a local that the function names
 * only in the operations made through it (each once) is no more than another name for what
 * its declaration picks, so the addresses its declaration takes are no escapes (they are
 * dropped). A local named anywhere else (assigned, passed on, its address taken) may hold
 * other objects: the addresses stay escapes, and the operations through it are marked
 * "through_pointer" (on whatever it points to). Then forgets them.
 */
static void local_aliases_check(atomic_state *x, hs_walk *w)
{
    hs_vec drop = {0};
    for (size_t i = 0; w && i < x->alias_facts.len; i++) {
        alias_fact *a = x->alias_facts.items[i];
        unsigned sites = 0;
        for (size_t j = 0; j < x->alias_facts.len; j++) {
            const alias_fact *o = x->alias_facts.items[j];
            sites += o->op && o->first && clang_equalCursors(o->local, a->local);
        }
        bool only_ops = sites > 0 && hs_walk_count_references(w, a->local) == sites;
        if (only_ops && !a->op)
            hs_vec_push(&drop, a->fact);
        else if (!only_ops && a->op)
            json_object_set_new_nocheck(a->fact, "through_pointer", json_true());
    }
    for (size_t k = json_array_size(x->atomics); drop.len && k-- > x->function_start;) {
        json_t *f = json_array_get(x->atomics, k);
        for (size_t d = 0; d < drop.len; d++)
            if (drop.items[d] == f) {
                json_array_remove(x->atomics, k);
                break;
            }
    }
    hs_vec_free(&drop);
    for (size_t i = 0; i < x->alias_facts.len; i++) {
        alias_fact *a = x->alias_facts.items[i];
        json_decref(a->fact);
        free(a);
    }
    x->alias_facts.len = 0;
}

static void local_sinks_clear(atomic_state *x, hs_walk *w)
{
    for (size_t i = 0; w && i < x->local_sinks.len; i++) {
        local_sink *ls = x->local_sinks.items[i];
        unsigned stores = 0;
        for (size_t j = 0; j < x->local_sinks.len; j++) {
            const local_sink *o = x->local_sinks.items[j];
            stores += o->named && clang_equalCursors(o->decl, ls->decl);
        }
        if (hs_walk_count_references(w, ls->decl) == stores)
            json_object_set_new_nocheck(ls->fact, "dead_store", json_true());
    }
    for (size_t i = 0; i < x->local_sinks.len; i++) {
        local_sink *ls = x->local_sinks.items[i];
        json_decref(ls->fact);
        free(ls);
    }
    x->local_sinks.len = 0;
}

static void atomics_function_start(void *state, hs_walk *w)
{
    (void)w;
    atomic_state *x = state;
    x->function_start = json_array_size(x->atomics);
    x->return_start = x->return_end = 0;
    for (size_t i = 0; i < x->orderings.len; i++)
        free(x->orderings.items[i]);
    x->orderings.len = 0;
    x->subscripts.len = 0;
}

/* Whether the function indexes an array with the local or parameter whose node is `decl`. */
static bool indexes_with(const atomic_state *x, const void *decl)
{
    for (size_t i = 0; decl && i < x->subscripts.len; i++)
        if (x->subscripts.items[i] == decl)
            return true;
    return false;
}

/* The function's reads in limit comparisons whose other operand also indexes an array. */
static void judge_bound_tests(atomic_state *x)
{
    for (size_t i = 0; i < x->bound_tests.len; i++) {
        bound_test *t = x->bound_tests.items[i];
        const ordering_range *r = x->orderings.items[t->ordering];
        if (indexes_with(x, r->operands[0]) || indexes_with(x, r->operands[1])) {
            if (t->fact)
                json_object_set_new_nocheck(t->fact, "bounds_index", json_true());
            else
                plain_use(x, t->use, t->object, t->decl, "loads_bounds_index");
        }
        json_decref(t->fact);
        free(t);
    }
    x->bound_tests.len = 0;
}

/* A result stored in a name the function later tests decides that test. */
/*
 * Drops the facts of a parameter the function does no operation on (an `int *len` out
 * parameter only assigned through): only a wrapper's object parameter is kept.
 */
static void keep_wrapper_parameters(atomic_state *x)
{
    hs_strmap *operated = NULL;
    bool any = false;
    for (size_t i = x->function_start; i < json_array_size(x->atomics); i++) {
        json_t *fact = json_array_get(x->atomics, i);
        const char *var = json_string_value(json_object_get(fact, "var"));
        if (!var || strncmp(var, "param:", 6) != 0)
            continue;
        any = true;
        const char *op = json_string_value(json_object_get(fact, "op"));
        if (op && (strcmp(op, "escape") != 0 || json_object_get(fact, "callee"))) {
            if (!operated)
                operated = hs_strmap_create();
            hs_strmap_put(operated, var, (void *)1);
        }
    }
    if (!any)
        return;
    for (size_t i = json_array_size(x->atomics); i-- > x->function_start;) {
        json_t *fact = json_array_get(x->atomics, i);
        const char *var = json_string_value(json_object_get(fact, "var"));
        if (var && strncmp(var, "param:", 6) == 0 && !(operated && hs_strmap_has(operated, var)))
            json_array_remove(x->atomics, i);
    }
    if (operated)
        hs_strmap_delete(operated);
}

static void atomics_function_end(void *state, hs_walk *w)
{
    atomic_state *x = state;
    judge_bound_tests(x);
    keep_wrapper_parameters(x);
    mark_fallback_updates(x);
    local_sinks_clear(x, w);
    local_aliases_check(x, w);
    for (size_t i = x->function_start; i < json_array_size(x->atomics); i++) {
        json_t *fact = json_array_get(x->atomics, i);
        const char *sink = json_string_value(json_object_get(fact, "sink"));
        int tested = sink ? hs_walk_tested(w, sink) : -1;
        const char *use = json_string_value(json_object_get(fact, "use"));
        /* Not for adds: `index = counter++ % size; if (index == 0) ...` is the ring
         * buffer the seed describes, a counter used as a value. */
        const char *op = json_string_value(json_object_get(fact, "op"));
        bool add = op && (strcmp(op, "fetch_add") == 0 || strcmp(op, "add_fetch") == 0);
        if (tested >= 0 && use && strcmp(use, "value") == 0 && !add) {
            json_object_set_new_nocheck(fact, "use", json_string(tested == 1 ? "loop_condition" : "condition"));
            json_object_set_new_nocheck(fact, "through_sink", json_true());
        }
        if (sink && op && strcmp(op, "load") == 0 && hs_walk_version_key(w, sink))
            json_object_set_new_nocheck(fact, "use", json_string("version_check"));
    }
}

static enum CXChildVisitResult initializer_visitor(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    atomic_state *x = data;
    if (hs_cursor_kind(c) != CXCursor_UnaryOperator || clang_getCursorUnaryOperatorKind(c) != CXUnaryOperator_AddrOf)
        return CXChildVisit_Recurse;
    hs_cursor_list kids;
    hs_children(c, &kids);
    if (kids.len == 1) {
        CXCursor decl = object_decl(kids.items[0]);
        if (!hs_cursor_is_null(decl) && atomic_type(x, clang_getCursorType(decl))) {
            atomic_op e = {.op = "escape", .order = "n/a", .form = "escape", .api = "&",
                           .order_arg = NO_CURSOR, .value_const = -1, .value_arg = NO_CURSOR,
                           .object = NO_CURSOR, .operand_value = NO_CURSOR};
            record(x, c, kids.items[0], decl, &e);
        } else if (!hs_cursor_is_null(decl)) {
            on_plain_object(x, c, kids.items[0], "address_taken");
        }
    }
    hs_cursor_list_free(&kids);
    return CXChildVisit_Continue;
}

/* Addresses taken in a global's initializer (`{"hits", &hits}` tables) are escapes. */
static void atomics_declaration(void *state, hs_walk *w, CXCursor var)
{
    (void)w;
    atomic_state *x = state;
    if (atomic_type(x, clang_getCursorType(var))) {
        char *usr = hs_xstrdup(hs_cursor_usr_cached(x->walk, var));
        remember_name(x, var, usr, hs_qualified_name(x->walk, var));
        free(usr);
    }
    if (hs_cursor_kind(var) == CXCursor_VarDecl)
        clang_visitChildren(var, initializer_visitor, state);
}

static void *atomics_tu_start(hs_walk *w)
{
    atomic_state *x = hs_xcalloc(1, sizeof *x);
    x->walk = w;
    x->atomics = json_array();
    x->consumed = hs_keyset_create();
    x->type_classes = hs_ptrmap_create();
    x->atomic_types = hs_ptrmap_create();
    x->plain_uses = hs_strmap_create();
    x->wrapper_of = hs_strmap_create();
    x->names = hs_strmap_create();
    x->accessors = hs_strmap_create();
    return x;
}

/*
 * Calls in conditions were noted as loads of no variable yet, with their callee in
 * "accessor_of"; those whose callee returns a variable's value (an accessor, seen anywhere
 * in the TU) become loads of that variable. The others stay, without a variable: their
 * callee may be an accessor whose body this worker skipped or another TU defines, which the
 * rule resolves against the program's "returns" facts (it drops the rest).
 */
static void resolve_accessor_calls(atomic_state *x)
{
    json_t *kept = json_array();
    size_t i;
    json_t *fact;
    json_array_foreach(x->atomics, i, fact) {
        const char *callee = json_string_value(json_object_get(fact, "accessor_of"));
        if (!callee) {
            json_array_append(kept, fact);
            continue;
        }
        json_t *id = hs_strmap_get(x->accessors, callee);
        if (!id) {
            if (!json_is_true(json_object_get(fact, "accessor_local")))
                json_array_append(kept, fact);
            continue;
        }
        json_object_del(fact, "accessor_local");
        json_object_del(fact, "accessor_of");
        json_object_update(fact, id);
        json_array_append(kept, fact);
    }
    json_decref(x->atomics);
    x->atomics = kept;
}

/* The plain-use summaries go last, one per integer, with the TU as their place. */
/*
 * An "inactive" fact for each atomic whose name appears in code this configuration
 * compiles out: the rule cannot see what that code does with it (a debug build's wait
 * on a counter), so it offers no fix-it that rests on the uses it saw (issue 10, item 5).
 * By name, not by declaration: compiled-out code has no AST, and a mention of another
 * variable of the same name only costs a fix-it.
 */
static void record_compiled_out_mentions(atomic_state *x, hs_walk *w)
{
    const char *usr;
    void *pair;
    for (size_t it = 0; hs_strmap_next(x->names, &it, &usr, &pair);) {
        hs_pos at;
        /* A name that is not UTF-8 cannot be a fact's string: no fact. */
        json_t *text = NULL, *qualified = NULL;
        if (hs_walk_compiled_out_use(w, pair, &at) && (text = json_string(pair)) &&
            (qualified = json_string(pair_qualified(pair)))) {
            json_t *fact = json_object();
            json_object_set_new_nocheck(fact, "var", json_string(usr));
            json_object_set_new_nocheck(fact, "var_name", qualified);
            json_object_set_new_nocheck(fact, "op", json_string("inactive"));
            json_object_set_new_nocheck(fact, "order", json_string("n/a"));
            json_object_set_new_nocheck(fact, "text", text);
            hs_fact_set_position(fact, &at, NULL);
            json_object_set_new_nocheck(fact, "ordinal", json_integer(0));
            json_array_append_new(x->atomics, fact);
        } else {
            json_decref(text);
        }
        free(pair);
    }
    hs_strmap_delete(x->names);
}

static void atomics_tu_end(void *state, hs_walk *w, json_t *facts)
{
    atomic_state *x = state;
    const char *usr;
    void *sum;
    record_compiled_out_mentions(x, w);
    resolve_accessor_calls(x);
    for (size_t it = 0; hs_strmap_next(x->plain_uses, &it, &usr, &sum);) {
        json_object_set_new_nocheck(sum, "file", json_string(hs_walk_tu_file(w)));
        json_object_set_new_nocheck(sum, "offset", json_integer(0));
        json_object_set_new_nocheck(sum, "ordinal", json_integer(0));
        json_array_append(x->atomics, sum);
    }
    json_object_set_new_nocheck(facts, "atomics", x->atomics);
    hs_keyset_delete(x->consumed);
    hs_ptrmap_delete(x->type_classes);
    hs_ptrmap_delete(x->atomic_types);
    for (size_t it = 0; hs_strmap_next(x->plain_uses, &it, &usr, &sum);)
        json_decref(sum);
    hs_strmap_delete(x->plain_uses);
    hs_strmap_delete(x->wrapper_of);
    free(x->wrapper_names);
    for (size_t it = 0; hs_strmap_next(x->accessors, &it, &usr, &sum);)
        json_decref(sum);
    hs_strmap_delete(x->accessors);
    for (size_t i = 0; i < x->orderings.len; i++)
        free(x->orderings.items[i]);
    hs_vec_free(&x->orderings);
    hs_vec_free(&x->subscripts);
    hs_vec_free(&x->bound_tests); /* emptied at each function's end */
    arm_notes_clear(&x->atomic_arms); /* also emptied at each function's end */
    arm_notes_clear(&x->plain_arms);
    hs_vec_free(&x->atomic_arms);
    hs_vec_free(&x->plain_arms);
    local_sinks_clear(x, NULL);
    hs_vec_free(&x->local_sinks);
    local_aliases_check(x, NULL);
    hs_vec_free(&x->alias_facts);
    free(x);
}

/* ---- uses that are not escapes, and tests through accessors ------------------------ */

/* hs_strip_expr, and through reinterpret_cast and const_cast too. */
static CXCursor strip_casts(CXCursor c)
{
    for (int guard = 0; guard < 16; guard++) {
        c = hs_strip_expr(c);
        enum CXCursorKind k = hs_cursor_kind(c);
        if (k != CXCursor_CXXReinterpretCastExpr && k != CXCursor_CXXConstCastExpr)
            return c;
        hs_cursor_list kids;
        hs_children(c, &kids);
        CXCursor next = kids.len ? kids.items[kids.len - 1] : clang_getNullCursor();
        hs_cursor_list_free(&kids);
        if (hs_cursor_is_null(next))
            return c;
        c = next;
    }
    return c;
}

/* The declaration node of the local or parameter `e` names (`key`, `(key)`), or NULL. */
static const void *local_named(CXCursor e)
{
    e = hs_strip_expr(e);
    if (hs_cursor_kind(e) != CXCursor_DeclRefExpr)
        return NULL;
    CXCursor d = clang_getCursorReferenced(e);
    enum CXCursorKind k = hs_cursor_kind(d);
    if (k == CXCursor_ParmDecl || (k == CXCursor_VarDecl && clang_Cursor_hasVarDeclGlobalStorage(d) == 0))
        return d.data[0];
    return NULL;
}

/* Notes a < > <= >= operator's extent, and whether it compares with -1, 0 or 1. */
static void note_ordering(atomic_state *x, CXCursor c)
{
    hs_pos start, end;
    if (!hs_cursor_pos(x->walk, c, &start, &end))
        return;
    hs_cursor_list kids;
    hs_children(c, &kids);
    bool zero = false;
    ordering_range *r = hs_xcalloc(1, sizeof *r);
    for (unsigned i = 0; i < kids.len; i++) {
        CXEvalResult ev = clang_Cursor_Evaluate(kids.items[i]);
        if (ev && clang_EvalResult_getKind(ev) == CXEval_Int) {
            long long v = clang_EvalResult_getAsLongLong(ev);
            zero |= v >= -1 && v <= 1;
        }
        if (ev)
            clang_EvalResult_dispose(ev);
        if (i < 2)
            r->operands[i] = local_named(kids.items[i]);
    }
    hs_cursor_list_free(&kids);
    r->start = start.offset;
    r->end = end.offset > start.offset ? end.offset : start.offset + 1;
    r->zero = zero;
    hs_vec_push(&x->orderings, r);
}

/* The declarations of the locals and parameters an array index names, for indexes_with. */
static enum CXChildVisitResult index_names_visitor(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    const void *decl = local_named(c);
    if (decl)
        hs_vec_push(data, (void *)decl);
    return CXChildVisit_Recurse;
}

static void note_subscript(atomic_state *x, CXCursor c)
{
    hs_cursor_list kids;
    hs_children(c, &kids);
    if (kids.len == 2) {
        CXCursor index = kids.items[1];
        index_names_visitor(index, c, &x->subscripts);
        clang_visitChildren(index, index_names_visitor, &x->subscripts);
    }
    hs_cursor_list_free(&kids);
}

/*
 * `(char *)&c->x - (char *)c`: the difference of two addresses is an offset (haproxy sums
 * per-thread counter blocks by the offset of a field); the address goes nowhere.
 */
static void on_offset_difference(atomic_state *x, CXCursor c)
{
    enum CXTypeKind k = clang_getCanonicalType(clang_getCursorType(c)).kind;
    if (k == CXType_Pointer)
        return; /* pointer - n: still an address */
    hs_cursor_list kids;
    hs_children(c, &kids);
    for (unsigned i = 0; kids.len == 2 && i < 2; i++) {
        CXCursor side = strip_casts(kids.items[i]);
        if (hs_cursor_kind(side) == CXCursor_UnaryOperator &&
            clang_getCursorUnaryOperatorKind(side) == CXUnaryOperator_AddrOf)
            consume(x, side);
    }
    hs_cursor_list_free(&kids);
}

/* `&((struct s *)0)->f`, offsetof written by hand: an object at address 0, never used. */
static bool is_offsetof_idiom(CXCursor e)
{
    for (int guard = 0; guard < 16; guard++) {
        e = hs_strip_expr(e);
        enum CXCursorKind k = hs_cursor_kind(e);
        if (k == CXCursor_IntegerLiteral || k == CXCursor_CXXNullPtrLiteralExpr || k == CXCursor_GNUNullExpr)
            return true;
        if (k != CXCursor_MemberRefExpr && k != CXCursor_ArraySubscriptExpr)
            return false;
        hs_cursor_list kids;
        hs_children(e, &kids);
        CXCursor next = kids.len ? kids.items[0] : clang_getNullCursor();
        hs_cursor_list_free(&kids);
        if (hs_cursor_is_null(next))
            return false;
        e = next;
    }
    return false;
}

/*
 * memset/memcpy/memmove/bzero of a counter block (`memset(&stats, 0, sizeof stats)`, a
 * snapshot copied out): the bytes are cleared or copied, the address goes nowhere else.
 */
static bool on_block_copy(atomic_state *x, CXCursor call, CXCursor callee, const char *name)
{
    static const char *const names[] = {"memset", "memcpy", "memmove", "bzero", "explicit_bzero"};
    const char *base = name;
    while (base[0] == '_')
        base++;
    if (strncmp(base, "builtin_", 8) == 0)
        base += 8;
    while (base[0] == '_')
        base++;
    bool known = false;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !known; i++) {
        size_t n = strlen(names[i]);
        known = strncmp(base, names[i], n) == 0 && (base[n] == '\0' || strcmp(base + n, "_chk") == 0);
    }
    CXSourceLocation where = clang_getCursorLocation(callee);
    if (!known || (!clang_Location_isInSystemHeader(where) && hs_location_is_project(x->walk, where) &&
                   !hs_decl_is_implicit(callee)))
        return false;
    int nargs = clang_Cursor_getNumArguments(call);
    int blocks = strstr(base, "set") || strstr(base, "zero") ? 1 : 2;
    for (int i = 0; i < nargs && i < blocks; i++) {
        CXCursor arg = strip_casts(clang_Cursor_getArgument(call, (unsigned)i));
        CXCursor object = arg;
        if (hs_cursor_kind(arg) == CXCursor_UnaryOperator &&
            clang_getCursorUnaryOperatorKind(arg) == CXUnaryOperator_AddrOf) {
            hs_cursor_list kids;
            hs_children(arg, &kids);
            if (kids.len == 1)
                object = kids.items[0];
            hs_cursor_list_free(&kids);
        }
        if (!hs_cursor_is_null(object_decl(object)))
            consume(x, arg);
    }
    return true;
}

/*
 * A call in a condition (`while (space->pending_io())`, `if (obj->get_refcount() == 0)`)
 * to a project function: noted as a load of no variable yet, with the callee in
 * "accessor_of"; at the TU's end it becomes a load of the variable the callee returns, or is
 * dropped (resolve_accessor_calls). Such a load is never reported, only judged.
 */
static void on_condition_call(atomic_state *x, CXCursor call, CXCursor callee, const char *qname)
{
    if (!hs_walk_in_condition(x->walk) && !hs_walk_in_comparison(x->walk))
        return;
    enum CXCursorKind k = hs_cursor_kind(callee);
    if ((k != CXCursor_FunctionDecl && k != CXCursor_CXXMethod) ||
        !hs_location_is_project(x->walk, clang_getCursorLocation(callee)) || hs_decl_is_implicit(callee))
        return;
    atomic_op op = {.op = "load", .order = "n/a", .form = "accessor", .api = qname,
                    .order_arg = NO_CURSOR, .value_const = -1, .value_arg = NO_CURSOR,
                    .object = NO_CURSOR, .operand_value = NO_CURSOR};
    json_t *fact = build_fact(x, call, &op);
    if (!fact)
        return;
    json_object_set_new_nocheck(fact, "accessor_of", json_string(hs_cursor_usr_cached(x->walk, callee)));
    /* A callee defined in the main file is walked in this TU: no other TU can know better. */
    CXCursor def = clang_getCursorDefinition(callee);
    if (!hs_cursor_is_null(def) && clang_Location_isFromMainFile(clang_getCursorLocation(def)))
        json_object_set_new_nocheck(fact, "accessor_local", json_true());
    json_array_append_new(x->atomics, fact);
}

/*
 * `while (t && t->refs_)` in a template (`T *t`): a member of a dependent type has no
 * declaration until the template is instantiated, and libclang shows no instantiated body, so
 * the test is a load of no variable. Recorded, when it is in a condition or a comparison, as
 * a load of whatever field has that name ("dependent_member"): the rule applies it to every
 * atomic field so named in the program (rocksdb's `LRUList<T>::Pop` waits for
 * `LRUElement::refs_`, decremented outside any template, to reach zero before it evicts).
 * By name, so another class's field of the same name only costs findings, never adds one.
 */
static void on_dependent_member(atomic_state *x, CXCursor c)
{
    if (!hs_walk_in_condition(x->walk) && !hs_walk_in_comparison(x->walk) && !hs_walk_in_equality(x->walk))
        return;
    if (!hs_location_is_project(x->walk, clang_getCursorLocation(c)))
        return;
    /* libclang spells a dependent member expression as "": its name ends its text. */
    char *text = hs_cursor_source(x->walk, c);
    size_t end = text ? strlen(text) : 0, start = end;
    while (start > 0 && (isalnum((unsigned char)text[start - 1]) || text[start - 1] == '_'))
        start--;
    if (end > start && !isdigit((unsigned char)text[start])) {
        atomic_op op = {.op = "load", .order = "n/a", .form = "accessor", .api = "dependent member",
                        .order_arg = NO_CURSOR, .value_const = -1, .value_arg = NO_CURSOR,
                        .object = NO_CURSOR, .operand_value = NO_CURSOR};
        json_t *fact = build_fact(x, c, &op);
        if (fact) {
            json_object_set_new_nocheck(fact, "dependent_member", json_string(text + start));
            json_array_append_new(x->atomics, fact);
        }
    }
    free(text);
}

/*
 * `PFS_atomic::add_u32(&x.m_u32, 1)`, `bump(&hits)`: an atomic's or an integer's address, or
 * a wrapper's own object parameter, passed to a project function. Recorded as an escape
 * that names the callee and the argument ("callee", "arg"); when the callee operates on
 * that parameter (its facts under "param:<callee>:<arg>"), the rule applies those
 * operations to the object passed, with this call's result use for what the callee returns.
 */
static void on_project_call(atomic_state *x, CXCursor call, CXCursor callee, const char *qname)
{
    enum CXCursorKind k = hs_cursor_kind(callee);
    if ((k != CXCursor_FunctionDecl && k != CXCursor_CXXMethod) ||
        !hs_location_is_project(x->walk, clang_getCursorLocation(callee)) || hs_decl_is_implicit(callee))
        return;
    int nargs = clang_Cursor_getNumArguments(call);
    for (int i = 0; i < nargs; i++) {
        CXCursor arg = hs_strip_expr(clang_Cursor_getArgument(call, (unsigned)i));
        CXCursor object = clang_getNullCursor();
        enum CXCursorKind ak = hs_cursor_kind(arg);
        if (ak == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(arg) == CXUnaryOperator_AddrOf) {
            hs_cursor_list kids;
            hs_children(arg, &kids);
            if (kids.len == 1 && !is_offsetof_idiom(kids.items[0])) {
                CXType t = clang_getCursorType(kids.items[0]);
                if (atomic_type(x, t) || type_is_integer(t))
                    object = kids.items[0];
            }
            hs_cursor_list_free(&kids);
        } else if (ak == CXCursor_DeclRefExpr && type_class(x, clang_getCursorReferenced(arg)) == 'p') {
            object = arg;
        }
        if (hs_cursor_is_null(object) || is_consumed(x, arg))
            continue;
        CXCursor decl = object_decl(object);
        if (hs_cursor_is_null(decl))
            continue;
        consume(x, arg);
        atomic_op e = {.op = "escape", .order = "n/a", .form = "escape", .api = qname,
                       .order_arg = NO_CURSOR, .value_const = -1, .value_arg = NO_CURSOR,
                       .object = NO_CURSOR, .operand_value = NO_CURSOR};
        size_t before = json_array_size(x->atomics);
        record(x, call, object, decl, &e);
        if (json_array_size(x->atomics) > before) {
            json_t *fact = json_array_get(x->atomics, before);
            json_object_set_new_nocheck(fact, "callee", json_string(hs_cursor_usr_cached(x->walk, callee)));
            json_object_set_new_nocheck(fact, "arg", json_integer(i));
        }
    }
}

static void on_c11_store(atomic_state *x, CXCursor c, CXCursor operand, CXCursor value)
{
    if (!type_is_c11_atomic(clang_getCursorType(operand)))
        return;
    CXCursor decl = object_decl(operand);
    if (hs_cursor_is_null(decl))
        return;
    consume(x, operand);
    atomic_op op = {.op = "store", .order = "seq_cst", .form = "c11_operator", .api = "=",
                    .order_arg = clang_getNullCursor(), .value_const = is_constant(value), .value_arg = value,
                    .object = operand, .operand_value = value};
    record(x, c, operand, decl, &op);
}

/* Each cursor of a function body: the operations it is, and plain uses of integers. */
static void atomics_cursor(void *state, hs_walk *w, CXCursor c)
{
    atomic_state *x = state;
    enum CXCursorKind k = hs_cursor_kind(c);
    switch (k) {
    case CXCursor_CallExpr: {
        CXCursor callee = clang_getCursorReferenced(c);
        if (hs_cursor_is_null(callee))
            return;
        const char *qname = hs_qualified_name(x->walk, callee);
        /* Asking a container of atomics its size touches no element. */
        const char *method = strrchr(qname, ':') ? strrchr(qname, ':') + 1 : qname;
        if (hs_cursor_kind(callee) == CXCursor_CXXMethod && strncmp(qname, "std::", 5) == 0 &&
            (strcmp(method, "size") == 0 || strcmp(method, "empty") == 0 || strcmp(method, "max_size") == 0)) {
            CXCursor object = member_object(c);
            if (!hs_cursor_is_null(object))
                consume(x, object);
            return;
        }
        if (on_block_copy(x, c, callee, method))
            return;
        if (!on_std_atomic_call(x, c, callee, qname) && !on_wrapper_call(x, c, qname) &&
            !on_builtin_call(x, c, callee, qname)) {
            on_condition_call(x, c, callee, qname);
            on_project_call(x, c, callee, qname);
        }
        return;
    }
    case CXCursor_UnaryExpr:
        /* sizeof, alignof: the operand is not evaluated. */
        consume(x, c);
        return;
    case CXCursor_ArraySubscriptExpr:
        note_subscript(x, c);
        return;
    case CXCursor_UnexposedExpr:
        on_atomic_expr(x, c, hs_walk_children(w));
        return;
    case CXCursor_ReturnStmt: {
        hs_pos start, end;
        if (hs_cursor_pos(x->walk, c, &start, &end)) {
            x->return_start = start.offset;
            x->return_end = end.offset;
        }
        return;
    }
    case CXCursor_UnaryOperator: {
        enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(c);
        const hs_cursor_list kids = *hs_walk_children(w);
        if (kids.len == 1) {
            if (op == CXUnaryOperator_PreInc)
                on_c11_operator(x, c, kids.items[0], "add_fetch", "++", clang_getNullCursor());
            else if (op == CXUnaryOperator_PostInc)
                on_c11_operator(x, c, kids.items[0], "fetch_add", "++", clang_getNullCursor());
            else if (op == CXUnaryOperator_PreDec)
                on_c11_operator(x, c, kids.items[0], "sub_fetch", "--", clang_getNullCursor());
            else if (op == CXUnaryOperator_PostDec)
                on_c11_operator(x, c, kids.items[0], "fetch_sub", "--", clang_getNullCursor());
            if (op >= CXUnaryOperator_PostInc && op <= CXUnaryOperator_PreDec && !is_consumed(x, kids.items[0]) &&
                !atomic_type(x, clang_getCursorType(kids.items[0])))
                on_plain_update(x, c, kids.items[0], op == CXUnaryOperator_PostDec || op == CXUnaryOperator_PreDec);
            if (op == CXUnaryOperator_AddrOf && !is_consumed(x, c) && is_offsetof_idiom(kids.items[0]))
                consume(x, c);
            if (op == CXUnaryOperator_AddrOf && !is_consumed(x, c) &&
                !atomic_type(x, clang_getCursorType(kids.items[0])))
                on_plain_object(x, c, kids.items[0], "address_taken");
            else if (op == CXUnaryOperator_AddrOf && !is_consumed(x, c) &&
                     atomic_type(x, clang_getCursorType(kids.items[0]))) {
                /* The address goes somewhere hotscan does not follow: an escape. */
                CXCursor decl = object_decl(kids.items[0]);
                if (!hs_cursor_is_null(decl)) {
                    consume(x, kids.items[0]);
                    atomic_op e = {.op = "escape", .order = "n/a", .form = "escape", .api = "&",
                                   .order_arg = clang_getNullCursor(), .value_const = -1, .value_arg = NO_CURSOR, .object = NO_CURSOR, .operand_value = NO_CURSOR};
                    record(x, c, kids.items[0], decl, &e);
                }
            }
        }
        return;
    }
    case CXCursor_CompoundAssignOperator:
    case CXCursor_BinaryOperator: {
        enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(c);
        if (op == CXBinaryOperator_LT || op == CXBinaryOperator_GT || op == CXBinaryOperator_LE ||
            op == CXBinaryOperator_GE) {
            note_ordering(x, c);
            return;
        }
        if (op == CXBinaryOperator_Sub) {
            on_offset_difference(x, c);
            return;
        }
        if (op != CXBinaryOperator_Assign && op != CXBinaryOperator_AddAssign &&
            op != CXBinaryOperator_SubAssign && op != CXBinaryOperator_AndAssign &&
            op != CXBinaryOperator_OrAssign && op != CXBinaryOperator_XorAssign)
            return;
        const hs_cursor_list kids = *hs_walk_children(w);
        if (kids.len == 2 && !atomic_type(x, clang_getCursorType(kids.items[0]))) {
            bool constant = op == CXBinaryOperator_Assign && is_constant(kids.items[1]);
            if (op == CXBinaryOperator_AddAssign || op == CXBinaryOperator_SubAssign)
                on_plain_update(x, c, kids.items[0], op == CXBinaryOperator_SubAssign);
            else
                on_plain_object(x, c, kids.items[0], constant ? "writes_constant" : "writes_computed");
        } else if (kids.len == 2) {
            if (op == CXBinaryOperator_Assign)
                on_c11_store(x, c, kids.items[0], kids.items[1]);
            else if (op == CXBinaryOperator_AddAssign)
                on_c11_operator(x, c, kids.items[0], "add_fetch", "+=", kids.items[1]);
            else if (op == CXBinaryOperator_SubAssign)
                on_c11_operator(x, c, kids.items[0], "sub_fetch", "-=", kids.items[1]);
            else
                on_c11_operator(x, c, kids.items[0], "bitwise", "op=", kids.items[1]);
        }
        return;
    }
    case CXCursor_DeclRefExpr:
    case CXCursor_MemberRefExpr: {
        CXCursor decl = clang_getCursorReferenced(c);
        enum CXCursorKind dk = hs_cursor_kind(decl);
        if (k == CXCursor_MemberRefExpr && hs_cursor_is_null(decl)) {
            on_dependent_member(x, c);
            return;
        }
        if (dk != CXCursor_VarDecl && dk != CXCursor_FieldDecl && dk != CXCursor_ParmDecl)
            return;
        char cls = type_class(x, decl);
        if (cls == 'o' || is_consumed(x, c))
            return;
        if (cls == 'p') {
            /* A wrapper's object parameter used other than as an operation's object (kept
             * only when the function also operates on it: atomics_function_end). */
            atomic_op e = {.op = "escape", .order = "n/a", .form = "escape", .api = "parameter",
                           .order_arg = NO_CURSOR, .value_const = -1, .value_arg = NO_CURSOR,
                           .object = NO_CURSOR, .operand_value = NO_CURSOR};
            record(x, c, c, decl, &e);
            return;
        }
        CXType t = clang_getCursorType(decl);
        if (cls == 'i') {
            on_plain_object(x, c, c, NULL);
            return;
        }
        if (cls == 'c') {
            CXCursor container = object_decl(c);
            if (!hs_cursor_is_null(container)) {
                atomic_op e = {.op = "escape", .order = "n/a", .form = "escape", .api = "reference",
                               .order_arg = NO_CURSOR, .value_const = -1, .value_arg = NO_CURSOR,
                               .object = NO_CURSOR, .operand_value = NO_CURSOR};
                record(x, c, c, container, &e);
            }
            return;
        }
        /* A local pointer alias named other than as an operation's object (passed on,
         * assigned): local_aliases_check counts it. */
        CXCursor arms[2];
        if (dk == CXCursor_VarDecl && alias_arms(decl, arms) > 0)
            return;
        decl = object_decl(c);
        if (hs_cursor_is_null(decl))
            return;
        /* A plain read of an _Atomic object is a seq_cst load; a std::atomic named
         * outside any member call (bound to a reference, passed on) escapes. */
        atomic_op op = {.order = "seq_cst", .form = "c11_operator", .api = "read",
                        .order_arg = clang_getNullCursor(), .value_const = -1, .value_arg = NO_CURSOR, .object = NO_CURSOR, .operand_value = NO_CURSOR};
        if (type_is_c11_atomic(t)) {
            op.op = "load";
            op.object = c;
        } else {
            op.op = "escape";
            op.order = "n/a";
            op.form = "escape";
        }
        record(x, c, c, decl, &op);
        return;
    }
    default:
        return;
    }
}

const hs_collector hs_collector_atomics = {
    .family = "atomics",
    .tu_start = atomics_tu_start,
    .tu_end = atomics_tu_end,
    .function_start = atomics_function_start,
    .function_end = atomics_function_end,
    .cursor = atomics_cursor,
    .declaration = atomics_declaration,
    .function_skipped = atomics_function_skipped,
    .worker_memo_delete = atomics_worker_memo_delete,
};
