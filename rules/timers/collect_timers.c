/*
 * collect_timers.c - records clock reads: which API, which clock and its cost, where,
 * in which loops and branch arms, and which names hold the reading afterwards.
 *
 * When a function is finished, readings that are combined with each other (one
 * subtracted from or compared with the other, or both passed to one call) are marked
 * "elapsed_with" each other: that is a measurement, not a duplicate.
 *
 * Also tracks blocking calls (rule data's blocking_functions): which loops make one, how
 * many precede each reading, and whether the function makes one unconditionally.
 *
 * The timer family's collector (hs_collector_timers, registered in rules/registry.c);
 * its state lives here, and it adds "clock_reads" to the facts.
 */
#include "hotscan/ptrmap.h"
#include "hotscan/walk.h"
#include "timer_facts.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One clock read inside the current function, kept until the function is finished. */
typedef struct {
    json_t *fact;       /* the fact object, appended to clock_reads at the function's end */
    unsigned hash;      /* clang_hashCursor of the call, for "r:" keys */
    unsigned offset;
    hs_strmap *keys;    /* names that hold this reading: the sink and copies of it */
    char *loop_path;
    unsigned loop_id;   /* the innermost loop around the read, 0 outside loops */
    json_t *cached_in;  /* texts of static-storage names given this reading or a value computed
                           from it (`server.mstime = server.ustime / 1000`), or NULL */
    bool cached_file_only; /* one of them is visible in its file only (a `static` global) */
    unsigned branch_count; /* how many branches the read sits in */
} timer_read;

/*
 * A call with no arguments whose value is used: perhaps a clock wrapper (redis' ustime(),
 * haproxy's now_mono_time(), a function pointer like getMonotonicUs). When its value is
 * subtracted from or compared with another, the call site is "timed": the wrapper's read
 * is half of an interval measurement there, which the judge cannot see from the wrapper.
 */
typedef struct {
    hs_strmap *keys;    /* names holding its value */
    hs_pos pos;
    bool to_caller;     /* stored through a pointer parameter: the caller gets the value */
    char *sink_field;   /* stored into this field (USR), or NULL */
    bool guarded;       /* in an arm one of the function's parameters decides */
} value_call;

/* A call of a project function with arguments: a reading passed to it may be what the
 * callee stores as the program's cached time (redis' updateCachedTimeWithUs(0, us)). */
typedef struct {
    const char *callee;     /* USR, the walk's string */
    unsigned offset;
    hs_cursor_list args;
    hs_key_set *keys;       /* each argument's keys, made on first need */
} arg_call;

/* The collector's state for one TU. */
typedef struct {
    json_t *clock_reads;
    json_t *param_caches;   /* {function, param, text, file_only}: a parameter stored into static
                               storage every time the function runs */
    hs_strmap *param_keys;  /* the current function's parameters' keys -> index + 1, made on first need;
                               once one is cached, also the names given values computed from one */
    bool params_cached;     /* the current function stored a parameter into static storage */
    hs_vec arg_calls;       /* arg_call*, in the current function */
    json_t *timed_calls;    /* sites of value calls combined with another value */
    json_t *interval_fields;/* field USR -> true: a field subtracted from or compared with a
                               fresh value (`now() - t->wake_date`): it holds a start time */
    hs_ptrmap *apis;        /* a callee's qualified name (the walk's string, one per declaration)
                               -> its timer API or NULL: asked for every call */
    hs_vec value_calls;     /* value_call*, in the current function */
    hs_cursor_list returns; /* the current function's returned expressions */
    /* The current function. */
    bool is_timer_wrapper;  /* the function is itself a listed timer API */
    hs_vec reads;           /* timer_read* */
    hs_strmap *reads_clock; /* USR -> 1 (no), 2 (yes), 3 (being looked at): functions of this
                               TU whose body calls a clock API, directly or through another */
    hs_strmap *blocking_loops; /* loop id (as text) -> 1 when the loop blocks */
    unsigned call_seq;
    hs_cursor_list printed; /* arguments of variadic calls (printf, loggers) in the function */
    hs_vec printed_depth;   /* for each, how many branches the call sits in (as a pointer-sized int) */
    unsigned blocking_seq;  /* blocking or slow calls seen so far */
    unsigned blocking_work_seq; /* of those, the ones that are no event wait */
    bool blocks_unconditionally; /* one is made outside any branch and error path */
    bool waits_in_loop;     /* one is made on every pass of a loop (a wait: spin-then-yield) */
} timers;

/* Linux clockid_t values, for clock ids written as numbers or through variables. */
static const char *const linux_clock_ids[] = {
    "CLOCK_REALTIME",        "CLOCK_MONOTONIC",       "CLOCK_PROCESS_CPUTIME_ID",
    "CLOCK_THREAD_CPUTIME_ID", "CLOCK_MONOTONIC_RAW", "CLOCK_REALTIME_COARSE",
    "CLOCK_MONOTONIC_COARSE", "CLOCK_BOOTTIME",       "CLOCK_REALTIME_ALARM",
    "CLOCK_BOOTTIME_ALARM"};

/* The clock id an argument names: its spelling when it is one identifier, else its value. */
static char *decode_clock_id(hs_walk *x, CXCursor arg)
{
    char *text = hs_cursor_text(x, arg);
    if (hs_strmap_has(hs_walk_ruledata(x)->clock_ids, text))
        return text;
    free(text);
    CXEvalResult ev = clang_Cursor_Evaluate(arg);
    char *result = NULL;
    if (ev) {
        if (clang_EvalResult_getKind(ev) == CXEval_Int) {
            long long v = clang_EvalResult_getAsLongLong(ev);
            if (v >= 0 && v < (long long)(sizeof linux_clock_ids / sizeof linux_clock_ids[0]))
                result = hs_xstrdup(linux_clock_ids[v]);
        }
        clang_EvalResult_dispose(ev);
    }
    return result;
}

static bool is_null_argument(CXCursor arg)
{
    CXCursor s = hs_strip_expr(arg);
    enum CXCursorKind k = hs_cursor_kind(s);
    if (k == CXCursor_GNUNullExpr || k == CXCursor_CXXNullPtrLiteralExpr)
        return true;
    if (k == CXCursor_IntegerLiteral) {
        CXEvalResult ev = clang_Cursor_Evaluate(s);
        bool zero = ev && clang_EvalResult_getKind(ev) == CXEval_Int &&
                    clang_EvalResult_getAsLongLong(ev) == 0;
        if (ev)
            clang_EvalResult_dispose(ev);
        return zero;
    }
    return false;
}

/*
 * True when the read sits in a sampled branch inside its innermost loop: it runs on
 * some iterations only, on purpose (`if (i % 1000 == 0) now = time(NULL);`).
 */
static bool sampled_inside_innermost_loop(const hs_walk *x)
{
    unsigned loops = hs_walk_loop_count(x);
    if (loops == 0)
        return false;
    unsigned loop_start = hs_walk_loop_id(x, loops - 1);
    for (unsigned i = 0; i < hs_walk_branch_count(x); i++) {
        const hs_branch *branch = hs_walk_branch(x, i);
        if (branch->node_start > loop_start && branch->sampled)
            return true;
    }
    return false;
}

/* The whitespace that starts the line of the statement at `offset` (for inserted code). */
static const char *statement_indent(hs_walk *x, CXCursor call, unsigned offset)
{
    static char indent[64];
    indent[0] = '\0';
    CXFile file;
    clang_getExpansionLocation(hs_cursor_start(call), &file, NULL, NULL, NULL);
    size_t size = 0;
    const char *text = hs_walk_file_contents(x, file, &size);
    if (!text || offset > size)
        return indent;
    size_t line = offset;
    while (line > 0 && text[line - 1] != '\n')
        line--;
    size_t n = 0;
    while (line + n < offset && n + 1 < sizeof indent && (text[line + n] == ' ' || text[line + n] == '\t'))
        n++;
    memcpy(indent, text + line, n);
    indent[n] = '\0';
    return indent;
}

/* A blocking call made on every pass of its innermost loop: no branch inside the loop
 * decides it, and it is not on an error path (`while (...) { yield(); ... }`). */
static bool blocks_every_pass(const hs_walk *x)
{
    unsigned loop = hs_walk_innermost_loop(x);
    if (!loop || hs_walk_on_error_path(x))
        return false;
    for (unsigned i = 0; i < hs_walk_branch_count(x); i++)
        if (hs_walk_branch(x, i)->node_start > loop)
            return false;
    return true;
}

/* Marks every enclosing loop as containing a blocking call. */
static void mark_loops_blocking(timers *t, const hs_walk *x)
{
    for (unsigned i = 0; i < hs_walk_loop_count(x); i++) {
        char key[16];
        snprintf(key, sizeof key, "%u", hs_walk_loop_id(x, i));
        hs_strmap_put(t->blocking_loops, key, (void *)1);
    }
}

static void note_value_call(timers *t, hs_walk *x, CXCursor call)
{
    value_call *v = hs_xcalloc(1, sizeof *v);
    if (!hs_cursor_pos(x, call, &v->pos, NULL)) {
        free(v);
        return;
    }
    v->keys = hs_strmap_create();
    char key[32];
    snprintf(key, sizeof key, "r:%u", clang_hashCursor(call));
    hs_strmap_put(v->keys, key, (void *)1);
    if (hs_walk_has_sink(x)) {
        char *sink = hs_sink_key(x);
        if (sink)
            hs_strmap_put(v->keys, sink, (void *)1);
        free(sink);
    }
    v->to_caller = hs_walk_sink_through_parameter(x);
    v->sink_field = hs_walk_sink_field(x);
    json_t *guards = hs_walk_guards_json(x);
    v->guarded = guards != NULL;
    json_decref(guards);
    hs_vec_push(&t->value_calls, v);
}

/* Returned expressions: a reading returned makes the function a clock wrapper. */
static void timers_cursor(void *state, hs_walk *x, CXCursor c)
{
    timers *t = state;
    if (hs_cursor_kind(c) != CXCursor_ReturnStmt || !hs_walk_function_usr(x))
        return;
    const hs_cursor_list *kids = hs_walk_children(x);
    if (kids->len == 1)
        hs_cursor_list_push(&t->returns, kids->items[0]);
}

/*
 * Could this call be a clock wrapper's: a project function (redis' mstime(), haproxy's
 * now_mono_time(), MariaDB's my_interval_timer()) or a call through a function pointer
 * (getMonotonicUs()), whose used value is a number or a small struct by value, called with
 * no arguments or only constants (`ut_time_us(NULL)`, `monotime(NULL)`)? Whether it is a
 * wrapper is known only once every TU is merged (timer_facts.c): such a call is recorded
 * as a candidate read with everything a read has, and becomes one if its callee turns out
 * to return a clock reading.
 */
/* `&name`, `&obj.field`, `&p->field`: where a callee may write a reading for its caller. */
static bool address_argument(CXCursor arg)
{
    return hs_cursor_kind(arg) == CXCursor_UnaryOperator &&
           clang_getCursorUnaryOperatorKind(arg) == CXUnaryOperator_AddrOf;
}

/* The arguments of a candidate call that are not constants. */
#define HS_MAX_SELECTORS 8
typedef struct {
    unsigned n_sel;
    struct {
        unsigned pos;
        int param;      /* the caller's parameter it starts from, or -1 (a static) */
        bool hard;      /* passed by value (`c->id`), not an address (`&monotonic_clock`) */
    } sel[HS_MAX_SELECTORS];
    int out;            /* the argument a callee may write its reading through, or -1 */
    bool extended;      /* passes a parameter or a static by value, or a pointer parameter */
} cand_args;

static const hs_strmap *param_keys(timers *t, hs_walk *x);

/* The index of the current function's parameter `decl`, or -1. */
static int param_index(timers *t, hs_walk *x, CXCursor decl)
{
    if (hs_cursor_kind(decl) != CXCursor_ParmDecl)
        return -1;
    const char *usr = hs_cursor_usr_cached(x, decl);
    if (!usr || !usr[0])
        return -1;
    char *key = hs_printf("v:%s", usr);
    uintptr_t i = (uintptr_t)hs_strmap_get(param_keys(t, x), key);
    free(key);
    return (int)i - 1;
}

/* A pointer parameter passed on as itself (`xclock_gettime(c->id, ts)` in a function taking
 * `ts`): the callee may write the caller's result through it. */
static bool pointer_parameter(CXCursor arg)
{
    return hs_cursor_kind(hs_strip_expr(arg)) == CXCursor_DeclRefExpr && hs_expr_through_parameter(arg);
}

typedef struct {
    timers *t;
    hs_walk *x;
    unsigned depth;
    bool found;
} clock_search;

static bool function_reads_clock(timers *t, hs_walk *x, CXCursor fn, unsigned depth);

static enum CXChildVisitResult find_clock_call(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    clock_search *cs = data;
    if (hs_cursor_kind(c) != CXCursor_CallExpr)
        return CXChildVisit_Recurse;
    CXCursor callee = clang_getCursorReferenced(c);
    enum CXCursorKind k = hs_cursor_kind(callee);
    if (k != CXCursor_FunctionDecl && k != CXCursor_CXXMethod && k != CXCursor_FunctionTemplate)
        return CXChildVisit_Recurse;
    const char *qname = hs_qualified_name(cs->x, callee);
    if ((qname && hs_ruledata_find_timer(hs_walk_ruledata(cs->x), qname)) ||
        (hs_location_is_project(cs->x, clang_getCursorLocation(callee)) &&
         function_reads_clock(cs->t, cs->x, callee, cs->depth + 1))) {
        cs->found = true;
        return CXChildVisit_Break;
    }
    return CXChildVisit_Recurse;
}

/*
 * Does `fn`, defined in this TU, call a clock API, itself or through functions defined in
 * this TU (at most 6 calls down)? Only such a callee is worth a candidate that passes its
 * parameters on (`time_msec__(c)`): the resolution across TUs then decides whether those
 * only choose the clock.
 */
static bool function_reads_clock(timers *t, hs_walk *x, CXCursor fn, unsigned depth)
{
    const char *usr = hs_cursor_usr_cached(x, fn);
    if (!usr || !usr[0] || depth > 6)
        return false;
    if (!t->reads_clock)
        t->reads_clock = hs_strmap_create();
    uintptr_t known = (uintptr_t)hs_strmap_get(t->reads_clock, usr);
    if (known)
        return known == 2;
    CXCursor def = clang_getCursorDefinition(fn);
    if (hs_cursor_is_null(def)) {
        hs_strmap_put(t->reads_clock, usr, (void *)1);
        return false;
    }
    hs_strmap_put(t->reads_clock, usr, (void *)3);
    clock_search cs = {t, x, depth, false};
    clang_visitChildren(def, find_clock_call, &cs);
    hs_strmap_put(t->reads_clock, usr, (void *)(uintptr_t)(cs.found ? 2 : 1));
    return cs.found;
}

/*
 * The candidate's arguments are constants (`ut_time_us(NULL)`), addresses a wrapper could
 * write its reading through (`elapsedStart(&timer)`, `i_gettimeofday(&tv)`), or what may
 * choose the clock: a parameter or a static, itself, a member or its address
 * (`xclock_gettime(c->id, ts)`, `time_msec__(&monotonic_clock)`). The value the call
 * returns must be a number or a struct, used, unless an address is passed. A call passing
 * a parameter or a static by value, or a pointer parameter, is one only when its callee
 * reads a clock in this TU; whether those arguments only choose the clock is decided once
 * the program is merged (timer_facts.c).
 */
static bool candidate_call(timers *t, hs_walk *x, CXCursor call, CXCursor callee, bool value_used, cand_args *ca)
{
    int n = clang_Cursor_getNumArguments(call);
    memset(ca, 0, sizeof *ca);
    ca->out = -1;
    int address_like[HS_MAX_SELECTORS];
    unsigned n_address = 0;
    bool has_address = false;
    for (int i = 0; i < n; i++) {
        CXCursor arg = hs_strip_expr(clang_Cursor_getArgument(call, (unsigned)i));
        enum CXCursorKind k = hs_cursor_kind(arg);
        if (k == CXCursor_IntegerLiteral || k == CXCursor_GNUNullExpr || k == CXCursor_CXXNullPtrLiteralExpr ||
            is_null_argument(arg))
            continue;
        bool address = address_argument(arg) && n <= 3;
        bool pointer_param = !address && pointer_parameter(arg);
        CXCursor root = hs_expr_selector_root(arg);
        if (!address && hs_cursor_is_null(root))
            return false;
        if (ca->n_sel == HS_MAX_SELECTORS || n_address == HS_MAX_SELECTORS)
            return false;
        has_address |= address;
        if (address || pointer_param)
            address_like[n_address++] = i;
        ca->extended |= !address;
        if (hs_cursor_is_null(root))
            continue; /* the address of a local: only where a reading may land */
        ca->sel[ca->n_sel].pos = (unsigned)i;
        ca->sel[ca->n_sel].param = param_index(t, x, root);
        ca->sel[ca->n_sel].hard = !address && !pointer_param;
        ca->n_sel++;
    }
    /* The reading lands in the last address passed, when the value is not used. */
    if (!value_used && n_address)
        ca->out = address_like[n_address - 1];
    CXType type = clang_getCanonicalType(clang_getCursorType(call));
    switch (type.kind) {
    case CXType_Int: case CXType_UInt: case CXType_Long: case CXType_ULong:
    case CXType_LongLong: case CXType_ULongLong: case CXType_Int128: case CXType_UInt128:
    case CXType_Float: case CXType_Double: case CXType_LongDouble: case CXType_Record:
        if (!value_used && ca->out < 0)
            return false;
        break;
    default:
        if (!has_address && ca->out < 0)
            return false;
        break;
    }
    enum CXCursorKind ck = hs_cursor_kind(callee);
    bool direct = ck == CXCursor_FunctionDecl || ck == CXCursor_CXXMethod || ck == CXCursor_FunctionTemplate;
    if (ca->extended)
        return direct && hs_location_is_project(x, clang_getCursorLocation(callee)) &&
               function_reads_clock(t, x, callee, 0);
    if (direct)
        return hs_location_is_project(x, clang_getCursorLocation(callee));
    /* Through a pointer: a variable, a field or an expression. */
    return hs_cursor_is_null(callee) || ck == CXCursor_VarDecl || ck == CXCursor_FieldDecl ||
           ck == CXCursor_ParmDecl;
}

static void record_read(timers *t, hs_walk *x, CXCursor call, CXCursor callee, const hs_timer_api *api,
                        const char *qname, const cand_args *ca);

static void timers_call(void *state, hs_walk *x, CXCursor call, CXCursor callee, const char *qname)
{
    timers *t = state;
    t->call_seq++;
    /* What a variadic call gets is printed (a log line, a reply field), not computed on. */
    if (!hs_cursor_is_null(callee) && clang_Cursor_isVariadic(callee)) {
        int n = clang_Cursor_getNumArguments(call);
        for (int i = 0; i < n; i++) {
            hs_cursor_list_push(&t->printed, clang_Cursor_getArgument(call, (unsigned)i));
            hs_vec_push(&t->printed_depth, (void *)(uintptr_t)hs_walk_branch_count(x));
        }
    }
    void *api_of = NULL;
    if (qname && !hs_ptrmap_find(t->apis, qname, 0, &api_of)) {
        api_of = (void *)hs_ruledata_find_timer(hs_walk_ruledata(x), qname);
        hs_ptrmap_put(t->apis, qname, 0, api_of);
    }
    const hs_timer_api *clock_api = api_of;
    int nargs_all = clang_Cursor_getNumArguments(call);
    if (!clock_api && qname && nargs_all > 0 && hs_walk_function_usr(x) &&
        hs_location_is_project(x, clang_getCursorLocation(callee))) {
        arg_call *ac = hs_xcalloc(1, sizeof *ac);
        ac->callee = hs_cursor_usr_cached(x, callee);
        hs_pos at;
        ac->offset = hs_cursor_pos(x, call, &at, NULL) ? at.offset : 0;
        for (int i = 0; i < nargs_all && i < 16; i++)
            hs_cursor_list_push(&ac->args, clang_Cursor_getArgument(call, (unsigned)i));
        hs_vec_push(&t->arg_calls, ac);
    }
    bool value_used = hs_walk_parent_kind(x) != CXCursor_CompoundStmt || hs_walk_has_sink(x);
    if (!clock_api && clang_Cursor_getNumArguments(call) == 0 &&
        clang_getCursorType(call).kind != CXType_Void && value_used)
        note_value_call(t, x, call);
    cand_args ca;
    if (!clock_api && !t->is_timer_wrapper && hs_walk_function_usr(x) &&
        candidate_call(t, x, call, callee, value_used, &ca))
        record_read(t, x, call, callee, NULL, qname, &ca);
    if (!qname)
        return;
    if (hs_ruledata_is_blocking(hs_walk_ruledata(x), qname)) {
        mark_loops_blocking(t, x);
        t->blocking_seq++;
        if (!hs_timer_is_event_wait(qname))
            t->blocking_work_seq++;
        /* A log line on an error branch does not make the function's work slow. */
        if (hs_walk_branch_count(x) == 0 && !hs_walk_on_error_path(x))
            t->blocks_unconditionally = true;
        if (blocks_every_pass(x))
            t->waits_in_loop = true;
    }
    if (t->is_timer_wrapper || !clock_api)
        return;
    record_read(t, x, call, callee, clock_api, qname, NULL);
}

/*
 * Records the call as a read of `api`'s clock, or with `api` NULL as a candidate: a call
 * that reads a clock if its callee turns out to be a clock wrapper.
 */
static void record_read(timers *t, hs_walk *x, CXCursor call, CXCursor callee, const hs_timer_api *api,
                        const char *qname, const cand_args *ca)
{
    hs_pos start, end;
    if (!hs_cursor_pos(x, call, &start, &end))
        return;
    int nargs = clang_Cursor_getNumArguments(call);
    hs_cost cost = api ? api->cost : HS_COST_VDSO;
    char *clock_id = NULL;
    json_t *clock_arg = NULL;
    int clock_id_param = -1;
    if (api && api->clock_id_arg >= 0 && api->clock_id_arg < nargs) {
        CXCursor arg = clang_Cursor_getArgument(call, (unsigned)api->clock_id_arg);
        /* A clock chosen by the caller (`clock_gettime(id, ts)` in a function taking `id`). */
        clock_id_param = param_index(t, x, hs_expr_selector_root(arg));
        hs_span span;
        if (hs_written_span(x, arg, &span)) {
            const char *name = span.macro_name ? span.macro_name : span.text;
            if (hs_strmap_has(hs_walk_ruledata(x)->clock_ids, name))
                clock_id = hs_xstrdup(name);
            clock_arg = json_pack("{s:i, s:i, s:s}", "offset", (json_int_t)span.offset, "length",
                                  (json_int_t)span.length, "text", span.text);
            hs_span_free(&span);
        }
        if (!clock_id && strncmp(api->name, "clock_", 6) == 0)
            clock_id = decode_clock_id(x, arg);
        if (!clock_id)
            clock_id = hs_cursor_text(x, arg); /* a variable: compared by its spelling */
        hs_cost id_cost;
        if (clock_id && hs_ruledata_clock_id_cost(hs_walk_ruledata(x), clock_id, &id_cost))
            cost = id_cost;
    }
    /* Where the reading goes: the out argument, else the name being assigned. */
    char *sink = NULL;
    char *sink_text = NULL;
    /* The reading lands in static storage (`gettimeofday(&date, NULL)`, `server.mstime =
     * mstime()`: perhaps the program's cached time), or goes to the caller through a pointer
     * parameter (`gettimeofday(tv, NULL)` in a wrapper taking `tv`). */
    bool sink_static = false, out_to_caller = false, candidate_out = false;
    if (api && api->out_arg >= 0 && api->out_arg < nargs) {
        CXCursor out = clang_Cursor_getArgument(call, (unsigned)api->out_arg);
        if (!is_null_argument(out)) {
            sink = hs_expr_key(x, out);
            sink_text = hs_cursor_source(x, out);
            sink_static = hs_expr_static_storage(out);
            out_to_caller = hs_expr_through_parameter(out);
        }
    }
    /* A candidate that passes an address (`elapsedStart(&timer)`): if its callee writes a
     * reading through it, the reading lands there. */
    if (ca && ca->out >= 0) {
        CXCursor arg = hs_strip_expr(clang_Cursor_getArgument(call, (unsigned)ca->out));
        sink = hs_expr_key(x, arg);
        sink_text = hs_cursor_source(x, arg);
        sink_static = hs_expr_static_storage(arg);
        out_to_caller = hs_expr_through_parameter(arg);
        candidate_out = true;
    }
    char *assigned_text = NULL;
    bool exact = false;
    if (!sink && hs_walk_has_sink(x)) {
        sink_static = hs_walk_sink_static(x);
        out_to_caller = hs_walk_sink_through_parameter(x);
        sink = hs_sink_key(x);
        /* The name holds the reading itself only when the call is the whole value
         * (`t->a = clock()`, not `t->a = clock() / 1000`): only then may a later read
         * reuse it. */
        exact = clang_equalCursors(hs_strip_expr(hs_walk_sink_value(x)), call) != 0;
        if (sink && exact)
            assigned_text = hs_sink_text(x);
    }

    timer_read *r = hs_xcalloc(1, sizeof *r);
    r->hash = clang_hashCursor(call);
    r->offset = start.offset;
    r->keys = hs_strmap_create();
    char rkey[32];
    snprintf(rkey, sizeof rkey, "r:%u", r->hash);
    hs_strmap_put(r->keys, rkey, (void *)(uintptr_t)(start.offset + 1));
    if (sink)
        hs_strmap_put(r->keys, sink, (void *)(uintptr_t)(start.offset + 1));
    r->loop_path = hs_loop_path(x);
    r->branch_count = hs_walk_branch_count(x);
    const char *static_text = sink_text ? sink_text : assigned_text;
    if (sink_static && static_text && hs_walk_branch_count(x) == 0 && !hs_walk_on_error_path(x)) {
        r->cached_in = json_array();
        json_array_append_new(r->cached_in, json_string(static_text));
        CXCursor out = api && api->out_arg >= 0 && api->out_arg < nargs
                           ? clang_Cursor_getArgument(call, (unsigned)api->out_arg)
                           : clang_getNullCursor();
        r->cached_file_only = hs_cursor_is_null(out) ? hs_walk_sink_internal_static(x) : hs_expr_internal_static(out);
    }

    CXSourceLocation loc = hs_cursor_start(call);
    CXFile sf, ef;
    unsigned soff, eoff;
    clang_getSpellingLocation(loc, &sf, NULL, NULL, &soff);
    clang_getExpansionLocation(loc, &ef, NULL, NULL, &eoff);
    bool in_macro = sf != ef || soff != eoff;

    json_t *fact = json_object();
    if (api) {
        json_object_set_new_nocheck(fact, "api", json_string(qname));
        json_object_set_new_nocheck(fact, "clock", json_string(api->clock));
        json_object_set_new_nocheck(fact, "clock_id", clock_id ? json_string(clock_id) : json_null());
        json_object_set_new_nocheck(fact, "cost", json_string(hs_cost_name(cost)));
    } else {
        /* A candidate: the callee as the source names it, and its USR when it is direct. */
        json_object_set_new_nocheck(fact, "candidate", json_true());
        const char *usr = qname ? hs_cursor_usr_cached(x, callee) : NULL;
        if (usr && usr[0])
            json_object_set_new_nocheck(fact, "callee", json_string(usr));
        char *named = qname ? hs_xstrdup(qname) : NULL;
        if (!named) {
            CXString sp = clang_getCursorSpelling(call);
            named = hs_xstrdup(clang_getCString(sp));
            clang_disposeString(sp);
        }
        hs_json_set_string(fact, "api", named); /* a name that is not UTF-8 stays out: "" */
        free(named);
    }
    json_object_set_new_nocheck(fact, "function", json_string(hs_walk_function_usr(x)));
    json_object_set_new_nocheck(fact, "function_name", json_string(hs_walk_function_name(x)));
    hs_fact_set_position(fact, &start, &end);
    json_object_set_new_nocheck(fact, "macro", json_boolean(in_macro));
    /* The macro the source calls (`NOW()`), for messages: the source does not say clock(). */
    hs_span written;
    if (in_macro && hs_written_span(x, call, &written)) {
        if (written.macro_name)
            json_object_set_new_nocheck(fact, "macro_name", json_string(written.macro_name));
        hs_span_free(&written);
    }
    char *text = hs_cursor_source(x, call);
    json_object_set_new_nocheck(fact, "text", json_string(text));
    free(text);
    json_object_set_new_nocheck(fact, "in_loop", json_boolean(hs_in_loop(x)));
    r->loop_id = hs_walk_innermost_loop(x);
    json_object_set_new_nocheck(fact, "loop_path", json_string(r->loop_path));
    json_object_set_new_nocheck(fact, "branches", hs_branch_path(x));
    json_object_set_new_nocheck(fact, "sink", sink ? json_string(sink) : json_null());
    if (sink_text)
        json_object_set_new_nocheck(fact, "sink_text", json_string(sink_text));
    else if (assigned_text)
        json_object_set_new_nocheck(fact, "sink_text", json_string(assigned_text));
    json_object_set_new_nocheck(fact, "out_param", json_boolean((api && api->out_arg >= 0 && api->out_arg < nargs &&
                                                         sink_text != NULL) || candidate_out));
    if (sink_static)
        json_object_set_new_nocheck(fact, "sink_static", json_true());
    if (out_to_caller)
        json_object_set_new_nocheck(fact, "out_to_caller", json_true());
    if (clock_arg)
        json_object_set_new_nocheck(fact, "clock_arg", clock_arg);
    if (clock_id_param >= 0)
        json_object_set_new_nocheck(fact, "clock_id_param", json_integer(clock_id_param));
    /* What a candidate passes that may choose the clock: [position, the caller's parameter
     * or -1, by value, as written]; the reading's own argument is not one. */
    json_t *selectors = NULL;
    for (unsigned i = 0; ca && i < ca->n_sel; i++) {
        if ((int)ca->sel[i].pos == ca->out)
            continue;
        char *arg_text = hs_cursor_source(x, clang_Cursor_getArgument(call, ca->sel[i].pos));
        if (!selectors)
            selectors = json_array();
        json_array_append_new(selectors, json_pack("[i, i, b, s]", (json_int_t)ca->sel[i].pos,
                                                   (json_int_t)ca->sel[i].param, ca->sel[i].hard,
                                                   arg_text ? arg_text : ""));
        free(arg_text);
    }
    if (selectors)
        json_object_set_new_nocheck(fact, "selectors", selectors);
    json_object_set_new_nocheck(fact, "stmt_offset", json_integer(hs_walk_statement_start(x)));
    json_object_set_new_nocheck(fact, "stmt_indent", json_string(statement_indent(x, call, hs_walk_statement_start(x))));
    json_object_set_new_nocheck(fact, "block_end", json_integer(hs_walk_block_end(x)));
    CXString type = clang_getTypeSpelling(clang_getCursorType(call));
    json_object_set_new_nocheck(fact, "type", json_string(clang_getCString(type)));
    clang_disposeString(type);
    json_object_set_new_nocheck(fact, "result_used",
                        json_boolean(hs_walk_parent_kind(x) != CXCursor_CompoundStmt || sink != NULL));
    json_object_set_new_nocheck(fact, "error_path", json_boolean(hs_walk_on_error_path(x)));
    json_object_set_new_nocheck(fact, "in_variadic", json_boolean(hs_walk_function_variadic(x)));
    if (hs_walk_rare(x))
        json_object_set_new_nocheck(fact, "rare", json_string(hs_walk_rare(x)));
    json_t *guards = hs_walk_guards_json(x);
    if (guards)
        json_object_set_new_nocheck(fact, "guards", guards);
    json_object_set_new_nocheck(fact, "seq", json_integer(t->call_seq));
    json_object_set_new_nocheck(fact, "blocking_seq", json_integer(t->blocking_seq));
    json_object_set_new_nocheck(fact, "blocking_work_seq", json_integer(t->blocking_work_seq));
    json_object_set_new_nocheck(fact, "sampled_in_loop", json_boolean(sampled_inside_innermost_loop(x)));
    json_object_set_new_nocheck(fact, "lambda", json_integer(hs_walk_lambda(x)));
    json_object_set_new_nocheck(fact, "ordinal", json_integer((json_int_t)t->reads.len));
    r->fact = fact;
    hs_vec_push(&t->reads, r);
    free(sink);
    free(sink_text);
    free(assigned_text);
    free(clock_id);
}

static bool read_in_set(const timer_read *r, const hs_key_set *set)
{
    return hs_key_set_meets(set, r->keys);
}

/*
 * Does the combination at `offset` use this reading: one of its names that held the reading
 * by then? A name given the reading only later (`x = a - b; ...; b = time(NULL);`) held
 * something else when the combination ran. In a loop a later assignment may reach an
 * earlier combination on the next pass, so there any name counts.
 */
static bool read_in_set_at(const timer_read *r, const hs_key_set *set, unsigned offset)
{
    if (r->loop_path[0])
        return hs_key_set_meets(set, r->keys);
    for (unsigned i = 0; i < set->len; i++) {
        uintptr_t since = (uintptr_t)hs_strmap_get(r->keys, set->keys[i]);
        if (since && since - 1 <= offset)
            return true;
    }
    return false;
}

/* Whether a combination's set holds anything: a name, or the static-storage or sum mark. */
static bool set_is_empty(const hs_key_set *set)
{
    return set->len == 0 && !set->static_storage && !set->sum;
}

/* Fields compared with or subtracted from these values hold start times. */
static void note_interval_fields(timers *t, hs_walk *x, const hs_strmap *keys)
{
    json_t *fields = hs_walk_fields_compared_with(x, keys);
    size_t i;
    json_t *f;
    json_array_foreach(fields, i, f) json_object_set_new(t->interval_fields, json_string_value(f), json_true());
    json_decref(fields);
}

/*
 * How each value call's value is used, when the judge cares: "timed" (subtracted from,
 * compared with or added to another value: `ustime() - call_timer`, `now + timeout`),
 * "to-caller" (returned, or stored through a pointer parameter: the function is a wrapper
 * too, its callers decide), "guarded" (in an arm a parameter decides: `if (us == 0) us =
 * ustime();`, a fallback when the caller passed no reading), "field" (stored into a field:
 * timing when, somewhere in the program, that field is subtracted from a fresh value).
 * Others are not listed.
 */
static void finish_value_calls(timers *t, hs_walk *x)
{
    if (t->value_calls.len == 0)
        return;
    const hs_vec *combiners = hs_walk_combinations(x);
    hs_key_set returned = {0};
    for (size_t k = 0; k < t->returns.len; k++)
        hs_collect_keys(x, t->returns.items[k], &returned);
    for (size_t i = 0; i < t->value_calls.len; i++) {
        value_call *v = t->value_calls.items[i];
        bool timed = false;
        for (size_t c = 0; !timed && c < combiners->len; c++) {
            const hs_combination *sets = combiners->items[c];
            for (unsigned a = 0; !timed && a < sets->n; a++)
                for (unsigned b = 0; !timed && b < sets->n; b++)
                    timed = a != b && hs_key_set_meets(&sets->sets[a], v->keys) && !set_is_empty(&sets->sets[b]);
        }
        note_interval_fields(t, x, v->keys);
        const char *use = timed                                          ? "timed"
                          : v->to_caller || hs_key_set_meets(&returned, v->keys) ? "to-caller"
                          : v->guarded                                     ? "guarded"
                          : v->sink_field                                  ? "field"
                                                                           : NULL;
        if (use) {
            json_t *site = json_object();
            if (hs_json_set_string(site, "function", hs_walk_function_usr(x)) &&
                hs_json_set_string(site, "file", v->pos.file)) {
                json_object_set_new_nocheck(site, "line", json_integer(v->pos.line));
                json_object_set_new_nocheck(site, "column", json_integer(v->pos.column));
                json_object_set_new_nocheck(site, "offset", json_integer(v->pos.offset));
                json_object_set_new_nocheck(site, "use", json_string(use));
                if (v->sink_field)
                    json_object_set_new_nocheck(site, "field", json_string(v->sink_field));
                json_array_append_new(t->timed_calls, site);
            } else {
                json_decref(site);
            }
        }
    }
    for (size_t i = 0; i < t->reads.len; i++)
        note_interval_fields(t, x, ((timer_read *)t->reads.items[i])->keys);
    hs_key_set_free(&returned);
}

static const char *innermost_loop(const char *loop_path)
{
    const char *slash = strrchr(loop_path, '/');
    return slash ? slash + 1 : loop_path;
}

static bool text_listed(json_t *array, const char *text)
{
    size_t i;
    json_t *v;
    json_array_foreach(array, i, v) if (strcmp(json_string_value(v) ? json_string_value(v) : "", text) == 0) return true;
    return false;
}

/* The current function's parameters, as name keys ("v:USR") -> index + 1. */
static const hs_strmap *param_keys(timers *t, hs_walk *x)
{
    if (t->param_keys)
        return t->param_keys;
    t->param_keys = hs_strmap_create();
    CXCursor fn = hs_walk_function_cursor(x);
    int n = hs_cursor_is_null(fn) ? 0 : clang_Cursor_getNumArguments(fn);
    for (int i = 0; i < n && i < 64; i++) {
        const char *usr = hs_cursor_usr_cached(x, clang_Cursor_getArgument(fn, (unsigned)i));
        if (usr && usr[0]) {
            char *key = hs_printf("v:%s", usr);
            hs_strmap_put(t->param_keys, key, (void *)(uintptr_t)(i + 1));
            free(key);
        }
    }
    return t->param_keys;
}

/* A value computed from a parameter stored into static storage every time the function runs
 * (`server.ustime = ustime;` in updateCachedTimeWithUs): what the callers pass is cached. */
static void note_param_caches(timers *t, hs_walk *x, const hs_key_set *value, bool is_static)
{
    const hs_strmap *params = param_keys(t, x);
    for (unsigned i = 0; i < value->len; i++) {
        uintptr_t index = (uintptr_t)hs_strmap_get(params, value->keys[i]);
        if (!index)
            continue;
        /* The name now holds that parameter's value too (`server.mstime = server.ustime /
         * 1000` after `server.ustime = ustime`). */
        char *target = hs_sink_key(x);
        if (target)
            hs_strmap_put(t->param_keys, target, (void *)index);
        free(target);
        if (!is_static)
            return;
        t->params_cached = true;
        char *text = hs_sink_text(x);
        json_t *fact = json_object();
        if (text && hs_json_set_string(fact, "function", hs_walk_function_usr(x)) &&
            hs_json_set_string(fact, "text", text)) {
            json_object_set_new_nocheck(fact, "param", json_integer((json_int_t)index - 1));
            if (hs_walk_sink_internal_static(x))
                json_object_set_new_nocheck(fact, "file_only", json_true());
            json_array_append(t->param_caches, fact);
        }
        json_decref(fact);
        free(text);
        return;
    }
}

/* Copies: names already holding a reading now also hold it in the name assigned. */
static void timers_assigned(void *state, hs_walk *x, CXCursor value)
{
    timers *t = state;
    /* Only a store made every time the function runs refreshes a cache: not a rate limit's
     * `if (now != last) last = now;`. */
    bool unconditional_static = hs_walk_branch_count(x) == 0 && !hs_walk_on_error_path(x) && hs_walk_has_sink(x) &&
                                hs_walk_function_usr(x) && hs_walk_sink_static(x);
    if (t->reads.len == 0 && t->value_calls.len == 0) {
        if (unconditional_static || t->params_cached) {
            hs_key_set only = {0};
            hs_collect_keys(x, value, &only);
            note_param_caches(t, x, &only, unconditional_static);
            hs_key_set_free(&only);
        }
        return;
    }
    char *target_key = hs_sink_key(x);
    hs_key_set set = {0};
    if (target_key)
        hs_collect_keys(x, value, &set);
    char *static_text = NULL;
    bool target_static = target_key && unconditional_static;
    if (target_static || (target_key && t->params_cached))
        note_param_caches(t, x, &set, target_static);
    unsigned at = 0;
    if (target_key)
        clang_getExpansionLocation(hs_cursor_start(value), NULL, NULL, NULL, &at);
    for (size_t i = 0; target_key && i < t->reads.len; i++) {
        timer_read *r = t->reads.items[i];
        if (!read_in_set(r, &set))
            continue;
        /* The name holds the reading from here on (the first place it got it). */
        if (!hs_strmap_has(r->keys, target_key))
            hs_strmap_put(r->keys, target_key, (void *)(uintptr_t)(at + 1));
        /* Static storage that holds this reading, or a value computed from it: perhaps the
         * program's cached time. */
        if (target_static) {
            r->cached_file_only |= hs_walk_sink_internal_static(x);
            if (!static_text)
                static_text = hs_sink_text(x);
            if (!r->cached_in)
                r->cached_in = json_array();
            if (static_text && json_array_size(r->cached_in) < 8 && !text_listed(r->cached_in, static_text))
                json_array_append_new(r->cached_in, json_string(static_text));
        }
    }
    free(static_text);
    for (size_t i = 0; target_key && i < t->value_calls.len; i++) {
        value_call *v = t->value_calls.items[i];
        if (hs_key_set_meets(&set, v->keys))
            hs_strmap_put(v->keys, target_key, (void *)1);
    }
    hs_key_set_free(&set);
    free(target_key);
}

/* Readings finished: elapsed_with, blocking, later writes to their names; then listed. */
static void finish_reads(timers *t, hs_walk *x)
{
    size_t n = t->reads.len;
    if (n == 0)
        return;
    /* elapsed_with[i] lists the ordinals of readings combined with reading i; only two
     * readings can be combined. */
    json_t **elapsed = hs_xcalloc(n, sizeof(json_t *));
    for (size_t i = 0; i < n; i++)
        elapsed[i] = json_array();
    bool *vs_static = hs_xcalloc(n, sizeof(bool));
    const hs_vec *combiners = hs_walk_combinations(x);
    for (size_t c = 0; combiners && c < combiners->len; c++) {
        const hs_combination *cmb = combiners->items[c];
        const hs_key_set *sets = cmb->sets;
        size_t nsets = cmb->n;
        /* A reading compared with or subtracted from a value in static storage: the
         * previous reading of a rate limit (`now - logged_time > 60`) or a cache. */
        /* Sums (`now + timeout`) are deadlines, not comparisons: skipped here. */
        if (nsets && sets[0].sum)
            continue;
        for (size_t a = 0; a < nsets; a++) {
            for (size_t b = 0; b < nsets; b++) {
                if (a == b || !sets[b].static_storage)
                    continue;
                for (size_t i = 0; i < n; i++)
                    if (read_in_set_at(t->reads.items[i], &sets[a], cmb->offset))
                        vs_static[i] = true;
            }
        }
        if (n < 2)
            continue;
        for (size_t a = 0; a < nsets; a++) {
            for (size_t b = a + 1; b < nsets; b++) {
                for (size_t i = 0; i < n; i++) {
                    if (!read_in_set_at(t->reads.items[i], &sets[a], cmb->offset))
                        continue;
                    for (size_t j = 0; j < n; j++) {
                        if (i == j || !read_in_set_at(t->reads.items[j], &sets[b], cmb->offset))
                            continue;
                        json_array_append_new(elapsed[i], json_integer((json_int_t)j));
                        json_array_append_new(elapsed[j], json_integer((json_int_t)i));
                    }
                }
            }
        }
    }
    /* Readings returned: the function is a clock wrapper (its callers hold the reading). */
    bool *returned = hs_xcalloc(n, sizeof(bool));
    for (size_t k = 0; k < t->returns.len; k++) {
        hs_key_set set = {0};
        hs_collect_keys(x, t->returns.items[k], &set);
        for (size_t i = 0; i < n; i++) /* a read in a loop makes no wrapper: many readings */
            returned[i] |= !((timer_read *)t->reads.items[i])->loop_path[0] &&
                           read_in_set(t->reads.items[i], &set);
        hs_key_set_free(&set);
    }
    /* Readings printed by a variadic call: one the read's arm makes, not one in a branch
     * deeper inside (`now = time(NULL); if (now - last >= interval) log("%ld", now);` reads
     * the clock every pass and prints once an interval: the read is not there to print). */
    bool *printed = hs_xcalloc(n, sizeof(bool));
    for (size_t k = 0; k < t->printed.len; k++) {
        unsigned depth = (unsigned)(uintptr_t)t->printed_depth.items[k];
        hs_key_set set = {0};
        hs_collect_keys(x, t->printed.items[k], &set);
        for (size_t i = 0; i < n; i++)
            printed[i] |= depth <= ((timer_read *)t->reads.items[i])->branch_count &&
                          read_in_set(t->reads.items[i], &set);
        hs_key_set_free(&set);
    }
    for (size_t i = 0; i < n; i++) {
        timer_read *r = t->reads.items[i];
        json_object_set_new_nocheck(r->fact, "elapsed_with", elapsed[i]);
        json_object_set_new_nocheck(r->fact, "vs_static", json_boolean(vs_static[i]));
        json_object_set_new_nocheck(r->fact, "printed", json_boolean(printed[i]));
        /* A field or a parameter subtracted from it (`now_ns() - t->wake_date`,
         * `getMonotonicUs() - start_time`): it holds the other end of a measurement. (A
         * comparison, `now > c->retry_at`, is a deadline check.) */
        if (hs_walk_subtracted_from_held(x, r->keys))
            json_object_set_new_nocheck(r->fact, "vs_field", json_true());
        json_object_set_new_nocheck(r->fact, "returned", json_boolean(returned[i]));
        bool blocking = r->loop_path[0] && hs_strmap_has(t->blocking_loops, innermost_loop(r->loop_path));
        json_object_set_new_nocheck(r->fact, "loop_blocking", json_boolean(blocking));
        /* Only the reading decides when its loop ends: a deadline spin (`for (;;) { now =
         * ...; if (now >= deadline) break; }`) or a retry (`while (time(&t) == -1)`). The
         * loop exists to read the clock: that is its job, not an overhead. A loop that also
         * ends on something else (a list's end, a flag) does work the reading slows. */
        bool decides_exit = r->loop_id && hs_walk_loop_ends_only_on(x, r->loop_id, r->keys);
        json_object_set_new_nocheck(r->fact, "decides_loop_exit", json_boolean(decides_exit));
        json_object_set_new_nocheck(r->fact, "function_blocks", json_boolean(t->blocks_unconditionally));
        json_object_set_new_nocheck(r->fact, "function_waits", json_boolean(t->waits_in_loop));
        /* The first later write to the name holding this reading, for the reuse fix-it. */
        const char *sink = json_string_value(json_object_get(r->fact, "sink"));
        json_int_t modified = -1;
        const hs_vec *writes = sink ? hs_walk_writes(x) : NULL;
        for (size_t w = 0; writes && w < writes->len; w++) {
            const hs_write *write = writes->items[w];
            json_int_t off = write->offset;
            if (off > (json_int_t)r->offset && strcmp(write->key, sink) == 0 &&
                (modified < 0 || off < modified))
                modified = off;
        }
        json_object_set_new_nocheck(r->fact, "sink_modified_at", modified >= 0 ? json_integer(modified) : json_null());
        if (r->cached_in)
            json_object_set_new_nocheck(r->fact, "cached_in", r->cached_in);
        if (r->cached_in && r->cached_file_only)
            json_object_set_new_nocheck(r->fact, "cached_file_only", json_true());
        /* The project functions this reading is passed to, later in the function. */
        json_t *passed = NULL;
        for (size_t c = 0; c < t->arg_calls.len; c++) {
            arg_call *ac = t->arg_calls.items[c];
            if (ac->offset <= r->offset)
                continue;
            if (!ac->keys) {
                ac->keys = hs_xcalloc(ac->args.len ? ac->args.len : 1, sizeof *ac->keys);
                for (size_t a = 0; a < ac->args.len; a++)
                    hs_collect_keys(x, ac->args.items[a], &ac->keys[a]);
            }
            for (size_t a = 0; a < ac->args.len; a++) {
                if (!read_in_set(r, &ac->keys[a]))
                    continue;
                if (!passed)
                    passed = json_array();
                json_array_append_new(passed, json_pack("[s, i]", ac->callee, (json_int_t)a));
            }
        }
        if (passed)
            json_object_set_new_nocheck(r->fact, "passed_to", passed);
        r->cached_in = NULL;
        json_array_append(t->clock_reads, r->fact);
    }
    free(elapsed);
    free(vs_static);
    free(printed);
    free(returned);
}

static void *timers_tu_start(hs_walk *x)
{
    (void)x;
    timers *t = hs_xcalloc(1, sizeof *t);
    t->clock_reads = json_array();
    t->param_caches = json_array();
    t->timed_calls = json_array();
    t->interval_fields = json_object();
    t->apis = hs_ptrmap_create();
    return t;
}

static void timers_tu_end(void *state, hs_walk *x, json_t *facts)
{
    (void)x;
    timers *t = state;
    json_object_set_new_nocheck(facts, "clock_reads", t->clock_reads);
    json_object_set_new_nocheck(facts, "param_caches", t->param_caches);
    json_object_set_new_nocheck(facts, "timed_calls", t->timed_calls);
    json_t *fields = json_array();
    const char *field;
    json_t *unused;
    json_object_foreach(t->interval_fields, field, unused) json_array_append_new(fields, json_string(field));
    json_decref(t->interval_fields);
    json_object_set_new_nocheck(facts, "interval_fields", fields);
    hs_ptrmap_delete(t->apis);
    hs_strmap_delete(t->reads_clock);
    free(t);
}

static void timers_function_start(void *state, hs_walk *x)
{
    timers *t = state;
    t->is_timer_wrapper = hs_ruledata_find_timer(hs_walk_ruledata(x), hs_walk_function_name(x)) != NULL;
    t->blocking_loops = hs_strmap_create();
    t->call_seq = t->blocking_seq = t->blocking_work_seq = 0;
    t->blocks_unconditionally = false;
    t->waits_in_loop = false;
}

static void timers_function_end(void *state, hs_walk *x)
{
    timers *t = state;
    finish_reads(t, x);
    finish_value_calls(t, x);
    for (size_t i = 0; i < t->value_calls.len; i++) {
        value_call *v = t->value_calls.items[i];
        hs_strmap_delete(v->keys);
        free(v->sink_field);
        free(v);
    }
    hs_vec_free(&t->value_calls);
    for (size_t i = 0; i < t->arg_calls.len; i++) {
        arg_call *ac = t->arg_calls.items[i];
        for (size_t a = 0; ac->keys && a < ac->args.len; a++)
            hs_key_set_free(&ac->keys[a]);
        free(ac->keys);
        hs_cursor_list_free(&ac->args);
        free(ac);
    }
    hs_vec_free(&t->arg_calls);
    hs_strmap_delete(t->param_keys);
    t->param_keys = NULL;
    t->params_cached = false;
    hs_cursor_list_free(&t->returns);
    for (size_t i = 0; i < t->reads.len; i++) {
        timer_read *r = t->reads.items[i];
        json_decref(r->fact);
        json_decref(r->cached_in);
        hs_strmap_delete(r->keys);
        free(r->loop_path);
        free(r);
    }
    hs_vec_free(&t->reads);
    hs_cursor_list_free(&t->printed);
    hs_vec_free(&t->printed_depth);
    hs_strmap_delete(t->blocking_loops);
    t->blocking_loops = NULL;
}

const hs_collector hs_collector_timers = {
    .family = "timers",
    .tu_start = timers_tu_start,
    .tu_end = timers_tu_end,
    .function_start = timers_function_start,
    .function_end = timers_function_end,
    .call = timers_call,
    .cursor = timers_cursor,
    .assigned = timers_assigned,
};
