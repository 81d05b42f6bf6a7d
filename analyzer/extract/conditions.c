/*
 * conditions.c - what a branch condition says about the code it guards.
 *
 * Two questions the walk asks of each arm (if/else, ?:, the right side of && and ||):
 *
 *  - Is the arm rare? An arm that runs only when something went wrong or exceeded a
 *    limit is not a per-request path, however hot the function around it is:
 *      unlikely(x), __builtin_expect(x, 0)      "unlikely"
 *      errno tested, `r == -1`, `r < 0`          "error-check"
 *      `d >= server.slow_threshold` (a value     "threshold"
 *      exceeding one held in a global)
 *      an arm that ends in `return -1;`          "error-check"
 *      an arm that sets the static its           "once"
 *      condition tests (`if (!inited) {
 *      inited = 1; ... }`, `if (once_start(&o))
 *      { ...; once_done(&o); }`): a lazy init
 *    Found on redis (slowlog, latency monitor), memcached (EMFILE on accept) and haproxy
 *    (profiling and tracing under unlikely()); each made a wrong timer-hot-path finding.
 *
 *  - Does the arm run only for some value of one of the function's parameters
 *    (`force ? time(NULL) : cached`, `if (fresh)`)? Then a caller that passes a constant
 *    contradicting it never runs the arm (redis feeds `genAofTimestamp...(0)` per command).
 *
 * Pure functions of the cursors: no walk state.
 */
#include "conditions.h"

#include <string.h>

static CXCursor strip(CXCursor c)
{
    return hs_strip_expr(c);
}

/* The two operands of a binary operator, or false. */
static bool operands(CXCursor c, CXCursor *l, CXCursor *r)
{
    hs_cursor_list kids;
    hs_children(c, &kids);
    bool ok = kids.len == 2;
    if (ok) {
        *l = kids.items[0];
        *r = kids.items[1];
    }
    hs_cursor_list_free(&kids);
    return ok;
}

static bool only_child(CXCursor c, CXCursor *out)
{
    hs_cursor_list kids;
    hs_children(c, &kids);
    bool ok = kids.len == 1;
    if (ok)
        *out = kids.items[0];
    hs_cursor_list_free(&kids);
    return ok;
}

/* The spelling of a unary operator's first token ("!", "-", ...), compared with `op`. */
static bool unary_is(CXTranslationUnit tu, CXCursor c, const char *op)
{
    CXToken *tok = clang_getToken(tu, hs_cursor_start(c));
    if (!tok)
        return false;
    CXString s = clang_getTokenSpelling(tu, *tok);
    bool r = strcmp(clang_getCString(s), op) == 0;
    clang_disposeString(s);
    clang_disposeTokens(tu, tok, 1);
    return r;
}

/* A constant integer (literal, enumerator, character, NULL, true/false, -1), or false. */
bool hs_condition_constant(CXCursor c, long long *value)
{
    c = strip(c);
    enum CXCursorKind k = hs_cursor_kind(c);
    bool literal = k == CXCursor_IntegerLiteral || k == CXCursor_CharacterLiteral ||
                   k == CXCursor_CXXBoolLiteralExpr || k == CXCursor_GNUNullExpr ||
                   k == CXCursor_CXXNullPtrLiteralExpr || k == CXCursor_UnaryOperator;
    if (k == CXCursor_DeclRefExpr)
        literal = hs_cursor_kind(clang_getCursorReferenced(c)) == CXCursor_EnumConstantDecl;
    if (k == CXCursor_UnaryOperator) {
        CXCursor sub;
        literal = only_child(c, &sub) && hs_cursor_kind(strip(sub)) == CXCursor_IntegerLiteral;
    }
    if (!literal)
        return false;
    if (k == CXCursor_GNUNullExpr || k == CXCursor_CXXNullPtrLiteralExpr) {
        *value = 0;
        return true;
    }
    CXEvalResult ev = clang_Cursor_Evaluate(c);
    bool ok = ev && clang_EvalResult_getKind(ev) == CXEval_Int;
    if (ok)
        *value = clang_EvalResult_getAsLongLong(ev);
    if (ev)
        clang_EvalResult_dispose(ev);
    return ok;
}

/* The callee's name of a call expression, or "". */
static void callee_name(CXCursor call, char *out, size_t size)
{
    out[0] = '\0';
    CXCursor callee = clang_getCursorReferenced(call);
    if (hs_cursor_is_null(callee))
        return;
    CXString s = clang_getCursorSpelling(callee);
    snprintf(out, size, "%s", clang_getCString(s));
    clang_disposeString(s);
}

static enum CXChildVisitResult find_errno(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    if (hs_cursor_kind(c) == CXCursor_CallExpr) {
        char name[64];
        callee_name(c, name, sizeof name);
        /* errno is a macro over one of these (glibc, musl, BSDs, macOS). */
        if (strcmp(name, "__errno_location") == 0 || strcmp(name, "__errno") == 0 ||
            strcmp(name, "__error") == 0) {
            *(bool *)data = true;
            return CXChildVisit_Break;
        }
    }
    if (hs_cursor_kind(c) == CXCursor_DeclRefExpr) {
        CXString s = clang_getCursorSpelling(c);
        bool hit = strcmp(clang_getCString(s), "errno") == 0;
        clang_disposeString(s);
        if (hit) {
            *(bool *)data = true;
            return CXChildVisit_Break;
        }
    }
    return CXChildVisit_Recurse;
}

static bool mentions_errno(CXCursor c)
{
    bool found = false;
    find_errno(c, clang_getNullCursor(), &found);
    if (!found)
        clang_visitChildren(c, find_errno, &found);
    return found;
}

/* A variable with static storage (a global, a static), or a member of one: `server.x`. */
bool hs_condition_static_storage(CXCursor c)
{
    for (int depth = 0; depth < 16; depth++) {
        c = strip(c);
        enum CXCursorKind k = hs_cursor_kind(c);
        if (k == CXCursor_DeclRefExpr) {
            CXCursor d = clang_getCursorReferenced(c);
            if (hs_cursor_kind(d) != CXCursor_VarDecl)
                return false;
            enum CX_StorageClass sc = clang_Cursor_getStorageClass(d);
            CXCursor parent = clang_getCursorSemanticParent(d);
            enum CXCursorKind pk = hs_cursor_kind(parent);
            bool file_scope = pk == CXCursor_TranslationUnit || pk == CXCursor_Namespace;
            return file_scope || sc == CX_SC_Static || sc == CX_SC_Extern;
        }
        if (k != CXCursor_MemberRefExpr)
            return false;
        /* `server.x`: the base is the only child; `this->x` and `p->x` are not global. */
        CXCursor base;
        if (!only_child(c, &base))
            return false;
        c = base;
    }
    return false;
}

/* `errno == EAGAIN` (EWOULDBLOCK, EINPROGRESS, as Linux numbers them), either way round. */
static bool would_block_test(CXCursor l, CXCursor r)
{
    long long v;
    CXCursor value = r, other = l;
    if (!hs_condition_constant(value, &v)) {
        value = l;
        other = r;
        if (!hs_condition_constant(value, &v))
            return false;
    }
    return (v == 11 || v == 115) && mentions_errno(other);
}

/* The arm runs when `big` exceeds `small` (or equals it). */
static bool exceeds_global(CXCursor big, CXCursor small)
{
    long long v;
    return !hs_condition_constant(big, &v) && hs_condition_static_storage(small);
}

/* Why the arm that runs when `cond` evaluates to `truth` is rare, or NULL. */
const char *hs_condition_rare(CXTranslationUnit tu, CXCursor cond, bool truth)
{
    cond = strip(cond);
    enum CXCursorKind k = hs_cursor_kind(cond);
    if (k == CXCursor_UnaryOperator && unary_is(tu, cond, "!")) {
        CXCursor sub;
        return only_child(cond, &sub) ? hs_condition_rare(tu, sub, !truth) : NULL;
    }
    if (k == CXCursor_CallExpr) {
        char name[64];
        callee_name(cond, name, sizeof name);
        if (strcmp(name, "__builtin_expect") == 0 && clang_Cursor_getNumArguments(cond) == 2) {
            long long expected;
            if (hs_condition_constant(clang_Cursor_getArgument(cond, 1), &expected) &&
                (expected != 0) != truth)
                return "unlikely";
            return hs_condition_rare(tu, clang_Cursor_getArgument(cond, 0), truth);
        }
    }
    CXCursor l, r;
    bool binary = k == CXCursor_BinaryOperator && operands(cond, &l, &r);
    enum CXBinaryOperatorKind op = binary ? clang_getCursorBinaryOperatorKind(cond) : CXBinaryOperator_Invalid;
    if (op == CXBinaryOperator_LAnd || op == CXBinaryOperator_LOr) {
        /* a && b runs when both hold: either one being rare makes it rare; a || b only
         * when both are. Negated, the other way round. */
        bool any = (op == CXBinaryOperator_LAnd) == truth;
        const char *rl = hs_condition_rare(tu, l, truth), *rr = hs_condition_rare(tu, r, truth);
        if (any)
            return rl ? rl : rr;
        return rl && rr ? rl : NULL;
    }
    /* errno is set only after a failure: the arm where its test holds handles one. Not
     * `errno == EAGAIN` (or EWOULDBLOCK, EINPROGRESS): a non-blocking server takes that arm
     * whenever a socket has no more data, on every request. */
    if (truth && binary && op == CXBinaryOperator_EQ && would_block_test(l, r))
        return NULL;
    if (truth && mentions_errno(cond))
        return "error-check";
    if (!binary)
        return NULL;
    /* Normalise to "holds": for the false arm, the negated comparison. */
    if (!truth) {
        switch (op) {
        case CXBinaryOperator_EQ: op = CXBinaryOperator_NE; break;
        case CXBinaryOperator_NE: op = CXBinaryOperator_EQ; break;
        case CXBinaryOperator_LT: op = CXBinaryOperator_GE; break;
        case CXBinaryOperator_GE: op = CXBinaryOperator_LT; break;
        case CXBinaryOperator_GT: op = CXBinaryOperator_LE; break;
        case CXBinaryOperator_LE: op = CXBinaryOperator_GT; break;
        default: return NULL;
        }
    }
    long long lv, rv;
    bool lc = hs_condition_constant(l, &lv), rc = hs_condition_constant(r, &rv);
    /* A call's or variable's failure value: `== -1`, `< 0`, `<= -1`. */
    if (op == CXBinaryOperator_EQ && ((rc && rv == -1 && !lc) || (lc && lv == -1 && !rc)))
        return "error-check";
    if (op == CXBinaryOperator_LT && rc && rv == 0 && !lc)
        return "error-check";
    if (op == CXBinaryOperator_LE && rc && rv == -1 && !lc)
        return "error-check";
    if (op == CXBinaryOperator_GT && lc && lv == 0 && !rc)
        return "error-check";
    if ((op == CXBinaryOperator_GE || op == CXBinaryOperator_GT) && exceeds_global(l, r))
        return "threshold";
    if ((op == CXBinaryOperator_LE || op == CXBinaryOperator_LT) && exceeds_global(r, l))
        return "threshold";
    return NULL;
}

/* An arm that ends by returning a negative constant (`return -1;`, `return C_ERR;`). */
bool hs_arm_returns_error(CXCursor arm)
{
    CXCursor last = arm;
    if (hs_cursor_kind(arm) == CXCursor_CompoundStmt) {
        hs_cursor_list kids;
        hs_children(arm, &kids);
        bool any = kids.len > 0;
        if (any)
            last = kids.items[kids.len - 1];
        hs_cursor_list_free(&kids);
        if (!any)
            return false;
    }
    if (hs_cursor_kind(last) != CXCursor_ReturnStmt)
        return false;
    CXCursor value;
    long long v;
    return only_child(last, &value) && hs_condition_constant(value, &v) && v < 0;
}

/* `&e`: what a call is given to set. */
static bool is_address_of(CXCursor c)
{
    return hs_cursor_kind(c) == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(c) == CXUnaryOperator_AddrOf;
}

/* A variable with static storage that `c` names (itself, a member, its address), or a
 * null cursor. */
static CXCursor static_flag(CXCursor c)
{
    CXCursor d = hs_expr_selector_root(c);
    return hs_cursor_kind(d) == CXCursor_VarDecl ? d : clang_getNullCursor();
}

/* The flags a condition tests, holding when it is false: `!inited`, `ready == 0`,
 * `p == NULL`, and what a call is given the address of (`once_start(&once)`); up to 4. */
static unsigned condition_flags(CXCursor cond, CXCursor flags[4], unsigned n)
{
    cond = strip(cond);
    enum CXCursorKind k = hs_cursor_kind(cond);
    CXCursor sub, l, r;
    if (k == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(cond) == CXUnaryOperator_LNot &&
        only_child(cond, &sub)) {
        CXCursor d = static_flag(sub);
        if (!hs_cursor_is_null(d) && n < 4)
            flags[n++] = d;
        return n;
    }
    if (k == CXCursor_BinaryOperator && operands(cond, &l, &r)) {
        enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(cond);
        if (op == CXBinaryOperator_LAnd)
            return condition_flags(r, flags, condition_flags(l, flags, n));
        long long v;
        if (op == CXBinaryOperator_EQ) {
            CXCursor d = hs_condition_constant(r, &v) && v == 0   ? static_flag(l)
                         : hs_condition_constant(l, &v) && v == 0 ? static_flag(r)
                                                                  : clang_getNullCursor();
            if (!hs_cursor_is_null(d) && n < 4)
                flags[n++] = d;
        }
        return n;
    }
    if (k == CXCursor_CallExpr) {
        int nargs = clang_Cursor_getNumArguments(cond);
        for (int i = 0; i < nargs && n < 4; i++) {
            CXCursor arg = strip(clang_Cursor_getArgument(cond, (unsigned)i));
            if (is_address_of(arg)) {
                CXCursor d = static_flag(arg);
                if (!hs_cursor_is_null(d))
                    flags[n++] = d;
            }
        }
    }
    return n;
}

typedef struct {
    const CXCursor *flags;
    unsigned n;
    bool found;
} flag_write;

static bool is_flag(const flag_write *fw, CXCursor c)
{
    CXCursor d = static_flag(c);
    for (unsigned i = 0; !hs_cursor_is_null(d) && i < fw->n; i++)
        if (clang_equalCursors(d, fw->flags[i]))
            return true;
    return false;
}

static enum CXChildVisitResult find_flag_write(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    flag_write *fw = data;
    enum CXCursorKind k = hs_cursor_kind(c);
    bool hit = false;
    if ((k == CXCursor_BinaryOperator && clang_getCursorBinaryOperatorKind(c) == CXBinaryOperator_Assign) ||
        k == CXCursor_CompoundAssignOperator) {
        hit = is_flag(fw, hs_first_child(c));
    } else if (k == CXCursor_UnaryOperator) {
        enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(c);
        hit = (op == CXUnaryOperator_PostInc || op == CXUnaryOperator_PostDec || op == CXUnaryOperator_PreInc ||
               op == CXUnaryOperator_PreDec) && is_flag(fw, hs_first_child(c));
    } else if (k == CXCursor_CallExpr) {
        int nargs = clang_Cursor_getNumArguments(c);
        for (int i = 0; i < nargs && !hit; i++) {
            CXCursor arg = strip(clang_Cursor_getArgument(c, (unsigned)i));
            hit = is_address_of(arg) && is_flag(fw, arg);
        }
    }
    if (hit) {
        fw->found = true;
        return CXChildVisit_Break;
    }
    return CXChildVisit_Recurse;
}

bool hs_arm_runs_once(CXCursor cond, CXCursor arm)
{
    CXCursor flags[4];
    unsigned n = condition_flags(cond, flags, 0);
    if (!n)
        return false;
    flag_write fw = {flags, n, false};
    /* The arm itself may be the write (`if (!t) t = now();`). */
    if (find_flag_write(arm, clang_getNullCursor(), &fw) != CXChildVisit_Break)
        clang_visitChildren(arm, find_flag_write, &fw);
    return fw.found;
}

/* The index of the parameter `c` names (a plain reference to one of `fn`'s), or -1. */
static int parameter_index(CXCursor fn, CXCursor c)
{
    c = strip(c);
    if (hs_cursor_kind(c) != CXCursor_DeclRefExpr)
        return -1;
    CXCursor d = clang_getCursorReferenced(c);
    if (hs_cursor_kind(d) != CXCursor_ParmDecl)
        return -1;
    int n = clang_Cursor_getNumArguments(fn);
    for (int i = 0; i < n; i++)
        if (clang_equalCursors(clang_Cursor_getArgument(fn, (unsigned)i), d))
            return i;
    return -1;
}

/*
 * The arm that runs when `cond` is `truth` runs only when parameter *param is non-zero
 * (*nonzero true) or zero (false): `p`, `!p`, `p != 0`, `p == 0`, and `p && ...` when true,
 * `p || ...` when false. False when no single parameter decides it.
 */
bool hs_condition_param_guard(CXTranslationUnit tu, CXCursor fn, CXCursor cond, bool truth, int *param,
                              bool *nonzero)
{
    cond = strip(cond);
    int i = parameter_index(fn, cond);
    if (i >= 0) {
        *param = i;
        *nonzero = truth;
        return true;
    }
    enum CXCursorKind k = hs_cursor_kind(cond);
    if (k == CXCursor_UnaryOperator && unary_is(tu, cond, "!")) {
        CXCursor sub;
        return only_child(cond, &sub) && hs_condition_param_guard(tu, fn, sub, !truth, param, nonzero);
    }
    if (k != CXCursor_BinaryOperator)
        return false;
    CXCursor l, r;
    if (!operands(cond, &l, &r))
        return false;
    enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(cond);
    /* Both sides of `a && b` hold in its true arm; both fail in the false arm of `a || b`. */
    if ((op == CXBinaryOperator_LAnd && truth) || (op == CXBinaryOperator_LOr && !truth))
        return hs_condition_param_guard(tu, fn, l, truth, param, nonzero) ||
               hs_condition_param_guard(tu, fn, r, truth, param, nonzero);
    if (op == CXBinaryOperator_EQ || op == CXBinaryOperator_NE) {
        long long v;
        CXCursor side;
        if (hs_condition_constant(r, &v))
            side = l;
        else if (hs_condition_constant(l, &v))
            side = r;
        else
            return false;
        if (v != 0)
            return false;
        i = parameter_index(fn, side);
        if (i < 0)
            return false;
        *param = i;
        /* p != 0 holds: p non-zero; p == 0 holds: p zero. */
        *nonzero = (op == CXBinaryOperator_NE) == truth;
        return true;
    }
    return false;
}
