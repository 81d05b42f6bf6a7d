/*
 * timer_hot_path.c - timer-hot-path: a clock read on a hot path.
 *
 * Hot means one of: inside a loop that does not also block (a read paced by a sleep or
 * a poll costs nothing that matters); in a hot root (--hot, hot_functions in rule data,
 * __attribute__((hot))); in a function reachable from a hot root; in a function called
 * from a loop of a hot function. Cold functions, and code reachable only through cold
 * ones, are never hot. Severity follows the clock's cost class.
 */
#include "hotscan/common.h"
#include "hotscan/findings.h"
#include "hotscan/fixits.h"
#include "hotscan/rules.h"
#include "timer_facts.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *severity_for(const char *cost)
{
    if (strcmp(cost, "syscall") == 0)
        return "error";
    if (strcmp(cost, "vdso") == 0)
        return "warning";
    return "note";
}

static const char *cost_phrase(const char *cost)
{
    if (strcmp(cost, "syscall") == 0)
        return "a system call on every read";
    if (strcmp(cost, "vdso") == 0)
        return "a vDSO clock read (tens of ns; a syscall on some platforms)";
    if (strcmp(cost, "coarse") == 0)
        return "a coarse clock read (cheap)";
    return "a cycle-counter read (cheap, but it stalls the pipeline)";
}

/* The cost class in a few words, for a measured cost ("1.9 us here (a system call)"). */
static const char *cost_kind(const char *cost)
{
    if (strcmp(cost, "syscall") == 0)
        return "a system call";
    if (strcmp(cost, "vdso") == 0)
        return "a vDSO clock read";
    if (strcmp(cost, "coarse") == 0)
        return "a coarse clock read";
    return "a cycle-counter read";
}

/* "1.9 \u00b5s here (a system call)" when a calibration measured this read, else NULL. */
static char *measured_phrase(const hs_ruledata *rd, const hs_clock_read *read, const char *cost)
{
    char *name = hs_clock_read_name(read);
    double ns;
    bool known = hs_ruledata_calibrated_ns(rd, name, &ns);
    free(name);
    if (!known)
        return NULL;
    bool micro = ns >= 1000;
    double v = micro ? ns / 1000 : ns;
    return hs_printf(v < 10 ? "%.1f %s here (%s)" : "%.0f %s here (%s)", v, micro ? "\u00b5s" : "ns", cost_kind(cost));
}

/* A loop call from a caller hot by a strong path, by a call that is strong itself (not a
 * wide indirect call, not in a rare arm). */
static bool strong_edge(const hs_call_edge *e)
{
    return e->caller->hot_narrow && e->targets <= HS_WIDE_INDIRECT_TARGETS && !e->rare && !e->dead &&
           !e->callee->variadic;
}

/*
 * Is the read's arm dead on every strong hot path into `f`? It is when the arm runs only
 * for some value of a parameter (`fresh ? time(NULL) : cached`) and every strong hot
 * caller passes a constant that rules it out (`stamp(0)`). A hot root's own reads are
 * never dead: it is entered from outside.
 */
/*
 * A clock wrapper (it returns its reading: redis' ustime(), haproxy's now_mono_time())
 * whose strong hot callers time intervals or deadlines with it (`ustime() - call_timer`,
 * `now() + timeout`), apart from callers that only pass the value on or read as a
 * fallback: the read is half of a start/end pair, deliberate instrumentation. A syscall
 * clock is still reported: timing with it costs a system call per request.
 */
static bool timed_by_hot_callers(const hs_timer_store *store, const hs_clock_read *read, const hs_function *f)
{
    if (!read->returned || f->hot_root || f->hot_depth <= 0 || strcmp(read->cost, "syscall") == 0)
        return false;
    size_t timed = 0;
    for (size_t i = 0; i < f->callers.len; i++) {
        const hs_call_edge *e = f->callers.items[i];
        if (e->caller->hot_depth < 0 || e->error_path || !strong_edge(e))
            continue;
        /* A caller that passes the value on (a wrapper of the wrapper, `*start = now()`) or
         * reads only as a fallback (`if (us == 0) us = ustime();`) decides nothing itself. */
        const char *use = hs_timer_site_use(store, e->file, e->line, e->column);
        if (!use)
            return false;
        timed += strcmp(use, "timed") == 0;
    }
    return timed > 0;
}

static bool dead_for_hot_callers(const hs_clock_read *read, const hs_function *f)
{
    if (read->n_guards == 0 || f->hot_root || f->hot_depth <= 0)
        return false;
    size_t hot_callers = 0;
    for (size_t i = 0; i < f->callers.len; i++) {
        const hs_call_edge *e = f->callers.items[i];
        /* Only strong hot callers count: a rewrite command reached through the command
         * table passing 1 is weak evidence already. */
        if (e->caller->hot_depth < 0 || e->error_path || !strong_edge(e))
            continue;
        hot_callers++;
        if (!hs_guards_contradicted(read->guards, read->n_guards, e->const_args, e->n_const_args))
            return false;
    }
    return hot_callers > 0;
}

/* The loop-called edge into `f` from a hot caller, if any: a strong one first. */
static const hs_call_edge *hot_loop_caller(const hs_function *f)
{
    const hs_call_edge *weak = NULL;
    for (size_t i = 0; i < f->callers.len; i++) {
        const hs_call_edge *e = f->callers.items[i];
        if (e->in_loop && !e->error_path && e->caller->hot_depth >= 0 && !e->caller->cold_only) {
            if (strong_edge(e))
                return e;
            if (!weak)
                weak = e;
        }
    }
    return weak;
}

/* Steps from the hot root to `f`, each at the call it makes, then `f` at file:line. */
static void add_hot_path_to(json_t *finding, const hs_function *f, const char *file, unsigned line)
{
    hs_vec edges;
    hs_program_hot_path(f, &edges);
    json_t *steps = json_object_get(finding, "hot_path");
    for (size_t i = 0; i < edges.len; i++) {
        const hs_call_edge *e = edges.items[i];
        hs_finding_add_path_step(finding, e->caller->name, e->file, e->line);
        json_t *step = json_array_get(steps, json_array_size(steps) - 1);
        json_object_set_new(step, "column", json_integer(e->column));
        /* The call made here goes through a function pointer or is virtual. */
        if (e->indirect) {
            json_object_set_new(step, "via", json_string(e->via ? e->via : ""));
            if (e->is_virtual)
                json_object_set_new(step, "virtual", json_true());
            json_object_set_new(step, "targets", json_integer(e->targets));
        }
    }
    hs_vec_free(&edges);
    hs_finding_add_path_step(finding, f->name, file, line);
}

static char *chain_text(const hs_function *f)
{
    hs_vec edges;
    hs_program_hot_path(f, &edges);
    hs_buf b;
    hs_buf_init(&b);
    hs_buf_puts(&b, edges.len ? ((const hs_call_edge *)edges.items[0])->caller->name : f->name);
    for (size_t i = 0; i < edges.len; i++) {
        const hs_call_edge *e = edges.items[i];
        hs_buf_printf(&b, " -> %s", e->callee->name);
        if (e->indirect && e->is_virtual)
            hs_buf_printf(&b, " (virtual %s)", e->via ? e->via : "");
        else if (e->indirect)
            hs_buf_printf(&b, " (through %s)", e->via ? e->via : "");
    }
    hs_vec_free(&edges);
    return hs_buf_take(&b);
}

/*
 * Opt-in fixes (--fix-level=aggressive): a coarse clock for CLOCK_MONOTONIC and
 * CLOCK_REALTIME reads (Linux: tick resolution, a memory load), and replacements a
 * project declares in its rule data ("in trx_start_low, use the statement's start
 * time instead of clock()").
 */
/* A rare arm's kind, as the message says it. */
static const char *rare_words(const char *rare)
{
    if (strcmp(rare, "unlikely") == 0)
        return "it runs only in a branch marked unlikely";
    if (strcmp(rare, "threshold") == 0)
        return "it runs only in a branch taken when a value exceeds a configured limit";
    if (strcmp(rare, "once") == 0)
        return "it runs only in a branch that sets the static its condition tests: a one-time "
               "initialisation";
    return "it runs only in an error-handling branch";
}

/*
 * Why the evidence that this read runs per request is weak, in words for the message, with
 * a tag for "reasons"; NULL when it is not. Each is a shape that made wrong findings on
 * redis, memcached or haproxy: the read (or every strong path to it) in a rare arm; a
 * reading that is printed or logged; one compared with a stored earlier reading (a rate
 * limit, a per-second cache); a clock wrapper whose hot callers time an interval with it;
 * an arm every hot caller's constant argument rules out; a path only a wide indirect call
 * or a rare arm leads to.
 */
/*
 * A fallback: the read runs only when a parameter is zero (`if (us == 0) us = ustime();`,
 * the caller passed no reading) and no strong hot caller passes that zero as a constant.
 * The hot callers pass readings of their own; what is left is the path that has none.
 */
static bool fallback_for_hot_callers(const hs_clock_read *read, const hs_function *f)
{
    if (f->hot_root || f->hot_depth <= 0)
        return false;
    const hs_param_guard *zero = NULL;
    for (size_t g = 0; g < read->n_guards && !zero; g++)
        if (!read->guards[g].nonzero)
            zero = &read->guards[g];
    if (!zero)
        return false;
    size_t hot_callers = 0;
    for (size_t i = 0; i < f->callers.len; i++) {
        const hs_call_edge *e = f->callers.items[i];
        if (e->caller->hot_depth < 0 || e->error_path || !strong_edge(e))
            continue;
        hot_callers++;
        for (size_t a = 0; a < e->n_const_args; a++)
            if (e->const_args[a].index == (unsigned)zero->param && e->const_args[a].value == 0)
                return false;
    }
    return hot_callers > 0;
}

/* The read's value is stored into a field that holds a start time. */
static bool interval_field_site(const hs_timer_store *store, const hs_clock_read *read)
{
    return hs_timer_site_interval_field(store, read->site.file, read->site.line, read->site.column);
}

/* The reading is passed to a function that subtracts a value it is given from a fresh
 * reading (`elapsedStart(&t); ...; elapsedUs(t)`): the start of a measurement. */
static bool passed_to_interval_end(const hs_timer_store *store, const hs_clock_read *read)
{
    for (size_t k = 0; k < read->n_passed_to; k++) {
        const hs_vec *reads = hs_timer_reads_of(store, read->passed_to[k].callee);
        for (size_t i = 0; reads && i < reads->len; i++)
            if (store->reads[(size_t)(uintptr_t)reads->items[i]].vs_field)
                return true;
    }
    return false;
}

/* Is every weak edge on f's hot path a call of a logger (a function taking `...`), weak for
 * no other reason? */
static bool weak_only_through_loggers(const hs_function *f)
{
    bool any = false;
    for (const hs_function *g = f; g && g->hot_via && g->hot_depth > 0; g = g->hot_via->caller) {
        const hs_call_edge *e = g->hot_via;
        if (hs_call_edge_weak(e, false))
            return false;
        any |= e->callee->variadic;
    }
    return any;
}

static const char *weak_evidence(const hs_timer_store *store, const hs_clock_read *read, const hs_function *f,
                                 bool wide_only, bool cache_at_hand, const char **tag)
{
    /* The most specific reason first: a dead arm explains more than "printed". */
    if (read->rare) {
        *tag = "rare-branch";
        return rare_words(read->rare);
    }
    *tag = "dead-for-hot-callers";
    if (dead_for_hot_callers(read, f))
        return "every hot caller passes a constant argument that rules out the branch it is in";
    *tag = "fallback";
    if (fallback_for_hot_callers(read, f))
        return "it runs only when a parameter is zero (a fallback when the caller passes no reading), "
               "and every hot caller passes a value of its own";
    *tag = "interval";
    if (timed_by_hot_callers(store, read, f))
        return "it is a clock wrapper whose hot callers time intervals or deadlines with its "
               "readings (or pass them on): an interval measurement needs both ends";
    /* A wrapper's reading that is one end of a measurement: combined with another reading
     * of the function (`c->duration = ustime() - start`, start an earlier reading), with a
     * field that holds the other end (`now_ns() - t->wake_date`), or stored into a field
     * that the program subtracts from a fresh reading (a task's wake-up time, for
     * scheduling latency). A deadline (`now() + timeout`) or a comparison with a time kept
     * in static storage is not: maintainers replace those reads with the cached time. */
    if (read->wrapper && strcmp(read->cost, "syscall") != 0 &&
        (read->n_elapsed_fresh > 0 || read->vs_field || interval_field_site(store, read) ||
         passed_to_interval_end(store, read)))
        return "its reading is one end of an interval measurement (the other end is a reading "
               "too): both ends need a fresh reading";
    *tag = "output";
    /* Where the program keeps this clock cached, a printed reading, a rate limit and a read
     * beside blocking calls are what maintainers replace with the cached time: no demotion. */
    if (read->printed && !cache_at_hand)
        return "its reading is printed (a log line, a reply field): formatting the output costs more "
               "than the read, and the value is what it prints";
    if (read->in_variadic)
        return "it is in a variadic logging or formatting function: the record needs its own timestamp";
    *tag = "rate-limited";
    if (read->vs_static && !cache_at_hand)
        return "its reading is compared with or subtracted from one kept in static storage (a "
               "duration since a stored start, a rate limit, a cache refreshed when the time "
               "changes) and the program keeps no cached time of this clock: the code is built "
               "around this read";
    *tag = "weak-path";
    if (wide_only)
        return f->hot_weak_why ? f->hot_weak_why
                               : "it is reached only through an indirect call with very many possible targets";
    *tag = NULL;
    return NULL;
}

/* Is (line, column) at or before (l2, c2)? */
static bool not_after(unsigned line, unsigned column, unsigned l2, unsigned c2)
{
    return line < l2 || (line == l2 && column <= c2);
}

/*
 * A reading of the read's clock that a hot caller already holds when it calls the read's
 * function: read before the call in the same pass (the same loop, in no branch of it that
 * the call might not be in), kept in a name, with no blocking call between (a reading
 * taken before a poll or a sleep is stale after it; one the caller makes itself, not one a
 * callee makes on some path, such as a log write). Passing it down is the fix: mosquitto's main loop
 * read `now` and then called bridge_check(), which read the clock again. NULL when none;
 * *edge_out is the call.
 */
static const hs_clock_read *caller_reading(const hs_timer_store *store, const hs_ruledata *rd,
                                           const hs_clock_read *read, const hs_function *f,
                                           const hs_call_edge **edge_out)
{
    const char *family = hs_clock_family(read->clock, read->clock_id);
    /* Only a read the function makes once, before anything in it blocks or waits, can take
     * a reading made before the call. */
    if (!family || f->hot_root || read->in_loop || read->blocking_seq > 0 || read->function_waits)
        return NULL;
    for (size_t i = 0; i < f->callers.len; i++) {
        const hs_call_edge *e = f->callers.items[i];
        if (e->caller->hot_depth < 0 || e->error_path || !strong_edge(e) || e->indirect)
            continue;
        const hs_vec *reads = hs_timer_reads_of(store, e->caller->usr);
        for (size_t k = 0; reads && k < reads->len; k++) {
            const hs_clock_read *r = &store->reads[(size_t)(uintptr_t)reads->items[k]];
            const char *rf = hs_clock_family(r->clock, r->clock_id);
            /* As fine as the read it would replace: the same API or wrapper, or a known
             * resolution at least as fine (a time() reading cannot stand for a timespec). */
            double held_ns = hs_clock_resolution_ns(r->wrapper ? NULL : r->api, r->clock);
            double read_ns = hs_clock_resolution_ns(read->wrapper ? NULL : read->api, read->clock);
            bool fine_enough = strcmp(r->api, read->api) == 0 || (held_ns > 0 && read_ns > 0 && held_ns <= read_ns);
            if (!fine_enough || !rf || strcmp(rf, family) != 0 || !r->sink || !r->result_used || r->error_path ||
                strcmp(r->cost, "coarse") == 0 || r->site.file != e->file ||
                !not_after(r->site.line, r->site.column, e->line, e->column) || hs_clock_read_loop(r) != e->loop)
                continue;
            /* In no branch inside its loop (or, outside loops, in none at all). */
            bool dominates = true;
            for (size_t b = 0; b < r->n_branches && dominates; b++)
                dominates = e->loop && r->branches[b].node < (long long)e->loop;
            if (!dominates)
                continue;
            bool blocked = false;
            for (size_t c = 0; c < e->caller->callees.len && !blocked; c++) {
                const hs_call_edge *o = e->caller->callees.items[c];
                blocked = o->file == e->file && not_after(r->site.line, r->site.column, o->line, o->column) &&
                          not_after(o->line, o->column, e->line, e->column) && o != e && o->callee->name &&
                          hs_ruledata_is_blocking(rd, o->callee->name);
            }
            if (blocked)
                continue;
            *edge_out = e;
            return r;
        }
    }
    return NULL;
}

/* "mstime()" for a read through a wrapper, with what it reads: "mstime() (it reads
 * gettimeofday() through mstime -> ustime -> gettimeofday)". */
static char *read_name(const hs_clock_read *read)
{
    char *what = hs_clock_read_name(read);
    if (!read->wrapper)
        return what;
    char *chain = hs_clock_wrapper_chain(read->wrapper);
    /* A clock chosen by what the call passes, or its wrapper does (`&mono`): named so. */
    const char *sel = read->selected && read->selected[0] == '&' ? read->selected + 1 : read->selected;
    char *base = sel ? hs_printf("%s() for `%s`", read->wrapper->api, sel)
                 : read->wrapper->clock_id ? hs_printf("%s(%s)", read->wrapper->api, read->wrapper->clock_id)
                                           : hs_printf("%s()", read->wrapper->api);
    char *longer = hs_printf("%s (it reads %s: %s)", what, base, chain);
    free(chain);
    free(base);
    free(what);
    return longer;
}

static const char *cache_name(const hs_clock_cache *c)
{
    return c->text[0] == '&' ? c->text + 1 : c->text;
}

/* The text of a cached clock of the program (hs_clock_cache) that `r`'s reading is stored
 * into, directly or through a function that stores its parameter, without being compared
 * with a stored time first (a rate limit's `if (now - last < 10) return; last = now;` is
 * no refresh), or NULL. */
static const char *refreshed_cache(const hs_timer_store *s, const hs_clock_read *r)
{
    if (r->vs_static)
        return NULL;
    for (size_t k = 0; k < s->n_caches; k++) {
        const char *text = s->caches[k].text;
        if (r->cached_in && strcmp(r->cached_in, text) == 0)
            return text;
        for (size_t c = 0; c < s->n_param_caches; c++)
            if (strcmp(s->param_caches[c].text, text) == 0 && hs_timer_hands_to(r, &s->param_caches[c]))
                return text;
    }
    return NULL;
}

/* "the program keeps this clock cached: use `server.mstime` (refreshed by updateCachedTime,
 * run by the callback serverCron)"; with several names the same function refreshes from the
 * clock, and none refreshed from the read's own API or wrapper, each is named. */
static char *cache_hint(const hs_timer_store *s, const hs_clock_cache *c, const hs_clock_read *read)
{
    hs_buf names;
    hs_buf_init(&names);
    hs_buf_printf(&names, "`%s`", cache_name(c));
    if (!c->api || strcmp(c->api, read->api) != 0) {
        size_t listed = 1;
        for (size_t k = 0; k < s->n_caches && listed < 4; k++) {
            const hs_clock_cache *o = &s->caches[k];
            if (o != c && o->function == c->function && strcmp(o->family, c->family) == 0) {
                hs_buf_printf(&names, ", `%s`", cache_name(o));
                listed++;
            }
        }
    }
    char *listed = hs_buf_take(&names);
    char *text = listed;
    char *hint = NULL;
    if (c->loop_caller)
        hint = hs_printf("the program keeps this clock cached: use %s (refreshed by %s, which %s "
                         "calls in a loop)", text, c->function_name, c->loop_caller);
    else if (c->callback && strcmp(c->callback, c->function_name) != 0)
        hint = hs_printf("the program keeps this clock cached: use %s (refreshed by %s, run by the "
                         "callback %s)", text, c->function_name, c->callback);
    else
        hint = hs_printf("the program keeps this clock cached: use %s (refreshed by %s)", text, c->function_name);
    free(listed);
    return hint;
}

static void add_aggressive_fixes(hs_judge_ctx *ctx, json_t *finding, const hs_clock_read *read, const hs_function *f)
{
    const char *file = read->site.file;
    for (size_t i = 0; i < ctx->rd->replacements.len; i++) {
        const hs_timer_replacement *r = ctx->rd->replacements.items[i];
        if (strcmp(r->timer, read->api) != 0 || (r->function && strcmp(r->function, f->name) != 0))
            continue;
        json_t *edits = json_array();
        json_array_append_new(edits, hs_edit_new(file, read->site.offset, read->site.length, r->replacement));
        hs_finding_add_fix(finding, r->description, edits);
        return;
    }
    const char *clock_id = read->clock_id;
    if (clock_id && read->has_clock_arg &&
        (strcmp(clock_id, "CLOCK_MONOTONIC") == 0 || strcmp(clock_id, "CLOCK_REALTIME") == 0) &&
        strcmp(read->clock_arg_text, clock_id) == 0) {
        char *coarse = hs_printf("%s_COARSE", clock_id);
        char *desc = hs_printf("read %s (Linux; resolution of one tick, a few ms)", coarse);
        json_t *edits = json_array();
        json_array_append_new(edits, hs_edit_new(file, read->clock_arg_offset, read->clock_arg_length, coarse));
        hs_finding_add_fix(finding, desc, edits);
        free(coarse);
        free(desc);
    }
}

static void judge(hs_judge_ctx *ctx)
{
    hs_timer_store *store = hs_program_store(ctx->program, &hs_family_timers);
    hs_timer_resolve(store, ctx->program, ctx->rd);
    const hs_strmap *blocking = store->blocking;
    for (size_t i = 0; i < store->len; i++) {
        const hs_clock_read *read = &store->reads[i];
        const hs_function *f = read->function ? hs_strmap_get(ctx->program->functions, read->function) : NULL;
        /* Cold code, and reads on an error path (before an abort), are not hot. A coarse
         * clock (a memory load) is the cheap read this rule recommends: never flagged. */
        if (!f || f->cold_only || read->error_path || strcmp(read->cost, "coarse") == 0)
            continue;
        /* A clock wrapper's own read: each call of the wrapper is a read where it is made,
         * and is judged there, where the fix goes. */
        /* (A profile makes every well-sampled function a root, wrappers included: their
         * callers are still where the reads are judged. A root the user names is judged.) */
        if ((!f->hot_root || (f->profile_root && !f->hot_attr)) && hs_timer_wrapper(store, f->usr) &&
            (read->returned || read->out_to_caller) && !read->loop_path[0])
            continue;
        /* A loop that blocks, here or in a function it calls (a logger writing a file, a
         * helper that sleeps), is paced by that: a clock read in it costs nothing that
         * matters. */
        bool in_loop = read->in_loop && !read->loop_blocking && !read->decides_loop_exit &&
                       !hs_timers_loop_calls_blocking(f, hs_clock_read_loop(read), blocking);
        const hs_call_edge *loop_call = hot_loop_caller(f);
        /* Reached only through an indirect call that may go to very many functions (a
         * command table, a base method with many overrides) is weaker evidence (low,
         * below). A weak loop caller adds nothing to a strong path. */
        bool strong_loop_call = loop_call && strong_edge(loop_call);
        bool strong_reach = f->hot_depth > 0 && f->hot_narrow;
        if (loop_call && !strong_loop_call && strong_reach)
            loop_call = NULL;
        json_t *reasons = json_array();
        char *why = NULL;
        /* The strongest reason leads the message; all of them go in "reasons". */
        if (f->hot_root) {
            json_array_append_new(reasons, json_string("hot-root"));
            why = hs_printf("%s is a hot function", f->name);
        }
        if (in_loop) {
            json_array_append_new(reasons, json_string("in-loop"));
            if (!why)
                why = hs_xstrdup("it runs on every iteration of a loop (hoist it out of the loop "
                                 "if one reading per loop is enough)");
        }
        if (loop_call) {
            json_array_append_new(reasons, json_string("called-in-hot-loop"));
            if (!why)
                why = hs_printf("%s is called from a loop in hot function %s", f->name,
                                loop_call->caller->name);
        }
        if (f->hot_depth > 0) {
            json_array_append_new(reasons, json_string("reachable-from-hot"));
            if (!why) {
                char *chain = chain_text(f);
                why = hs_printf("it is reachable from a hot function: %s", chain);
                free(chain);
            }
        }
        if (!why) {
            json_decref(reasons);
            continue;
        }
        const char *cost = read->cost;
        char *what = read_name(read);
        if (read->macro_name) {
            char *longer = hs_printf("%s (through the macro %s)", what, read->macro_name);
            free(what);
            what = longer;
        }
        /* In a clock wrapper, the source on the hot path calls the wrapper: name it, and
         * where the path calls it. */
        if (read->returned && !f->hot_root && f->hot_via) {
            const hs_call_edge *in = f->hot_via;
            const char *base = strrchr(in->file, '/') ? strrchr(in->file, '/') + 1 : in->file;
            char *longer = hs_printf("%s in %s() (called by %s at %s:%u)", what, f->name, in->caller->name,
                                     base, in->line);
            free(what);
            what = longer;
        }
        /* A loop that no hot root reaches is no evidence of a hot path: on real servers such
         * loops are admin commands, start-up, config parsing and shutdown (9 of 9 such
         * findings on redis, memcached and haproxy were wrong). Low, hidden by default. */
        bool only_loop = !f->hot_root && !loop_call && f->hot_depth <= 0;
        /* Hot only through an indirect call with very many possible targets (a command
         * table, a base method with many overrides): low, hidden by default. Such a table
         * holds admin and start-up commands beside the per-request ones (redis: 266
         * commands, INFO and BGSAVE among them), so reaching one of them is no evidence that
         * it runs per request; name the hot commands with --hot to see theirs. */
        bool wide_only = !only_loop && !f->hot_root && !strong_loop_call && !strong_reach;
        /* A cached time of the same clock, refreshed elsewhere: the fix maintainers make. A
         * read that refreshes a cache is that cache's source, not a candidate for it. */
        const hs_clock_cache *cache = read->cached_in ? NULL : hs_timer_cache_for(store, read);
        /* A read that refreshes the program's cached clock, though not on every run of its
         * function (redis' enterExecutionUnit takes a fresh time for each command and hands
         * it to updateCachedTimeWithUs, which stores server.ustime): the snapshot the hot
         * code then reads. The cache is what the fix would use; this read is its source. */
        const char *refreshes = refreshed_cache(store, read);
        if (refreshes)
            cache = NULL;
        /* Or a reading the hot caller already holds when it calls this function. */
        const hs_call_edge *held_at = NULL;
        const hs_clock_read *held = cache ? NULL : caller_reading(store, ctx->rd, read, f, &held_at);
        /* Weak evidence, said in the message: the read, or every strong path to it, sits in
         * a rare arm (an error check, unlikely(), a value over a configured limit), or its
         * arm is dead for the constants every hot caller passes. Low, hidden by default. */
        /* Weak only for a logger call on the way (a function taking `...`): output, unless
         * a cheaper source is at hand, which is what maintainers then use (mosquitto's
         * log__vprintf took db.now_real_s instead of time()). */
        if (wide_only && (cache || held) && weak_only_through_loggers(f))
            wide_only = false;
        const char *weak_tag = NULL;
        const char *weak = weak_evidence(store, read, f, wide_only, cache != NULL || held != NULL, &weak_tag);
        /* Outside a tight loop, a cheap clock read beside blocking I/O in the same
         * function is noise; a syscall read is not (MDEV-12345's clock() cost as much as
         * the network read). So is one in a function that waits in a loop, blocking on
         * every pass (rocksdb's WriteThread::AwaitState times its own yields): the wait,
         * not the reading, is what such a call costs. Where the program keeps the clock
         * cached, the cached time is still the cheaper source. */
        if (!weak && !refreshes && !in_loop && strcmp(cost, "syscall") != 0 &&
            (read->function_waits || (!cache && !held))) {
            if (read->function_waits) {
                weak_tag = "waits";
                weak = "its function waits in a loop that blocks on every pass: the wait, not the "
                       "reading, is what a call costs";
            } else if (read->function_blocks) {
                weak_tag = "blocks";
                weak = "its function makes a blocking call (I/O, a sleep) outside any branch: next to "
                       "it a cheap clock read is noise";
            }
        }
        char *refresh_why = NULL;
        if (!weak && refreshes) {
            weak_tag = "refresh";
            weak = refresh_why = hs_printf("its reading refreshes the program's cached clock (`%s`), which the "
                                           "hot code reads instead of the clock",
                                           refreshes);
        }
        /* A hot root that only main calls is the program's event loop (mosquitto's
         * mosquitto_main_loop, lighttpd's server_main_loop): what it does outside its loops
         * it does once, before the loop starts, or after it ends. */
        if (!weak && f->hot_root && !read->in_loop && hs_function_called_only_from_main(f)) {
            weak_tag = "once";
            weak = "its function is a hot root that only main calls, and the read is outside its loops: it "
                   "runs once per run of that loop, not per request";
        }
        /* Every low finding says which rule lowered it. */
        if (!weak && only_loop) {
            weak_tag = "loop-without-root";
            weak = "no hot function reaches this loop (name the request entry points with --hot)";
        }
        /* The cached time is the fix only where the reading need not be fresh: not for one
         * end of an interval, not in a rare or dead arm. */
        if (weak_tag && strcmp(weak_tag, "weak-path") != 0 && strcmp(weak_tag, "loop-without-root") != 0)
            cache = NULL, held = NULL;
        char *hint = cache ? cache_hint(store, cache, read) : NULL;
        if (!hint && held) {
            const char *base = strrchr(held->site.file, '/') ? strrchr(held->site.file, '/') + 1 : held->site.file;
            hint = held->sink_text
                       ? hs_printf("%s already holds a reading of this clock (`%s`, read at %s:%u) when it calls "
                                   "%s: pass it down", held_at->caller->name, held->sink_text, base, held->site.line,
                                   f->name)
                       : hs_printf("%s already holds a reading of this clock (read at %s:%u) when it calls %s: "
                                   "pass it down", held_at->caller->name, base, held->site.line, f->name);
        }
        char *measured = measured_phrase(ctx->rd, read, cost);
        char *message = hint ? hs_printf("%s on a hot path costs %s: %s; %s",
                                         what, measured ? measured : cost_phrase(cost), why, hint)
                             : hs_printf("%s on a hot path costs %s: %s; read the clock once per "
                                         "request and reuse it, or use a cheaper clock",
                                         what, measured ? measured : cost_phrase(cost), why);
        free(measured);
        if (weak) {
            char *longer = hs_printf("%s (low confidence: %s)", message, weak);
            free(message);
            message = longer;
            json_array_append_new(reasons, json_string(weak_tag));
        }
        const char *confidence = only_loop || wide_only || weak ? "low" : "high";
        json_t *finding = hs_finding_at("timer-hot-path", severity_for(cost), confidence, &read->site,
                                        f->name, message);
        json_object_set_new(finding, "reasons", reasons);
        json_object_set_new(finding, "cost", json_string(cost));
        json_object_set_new(finding, "api", json_string(read->api));
        if (read->wrapper) {
            char *chain = hs_clock_wrapper_chain(read->wrapper);
            json_object_set_new(finding, "wrapper_chain", json_string(chain));
            free(chain);
        }
        if (cache) {
            json_object_set_new(finding, "cached_clock",
                                json_pack("{s:s, s:s}", "name", cache_name(cache), "refreshed_by",
                                          cache->function_name));
        }
        json_object_set_new(finding, "fingerprint_basis", json_string(read->text));
        /* The path shown is the one the message names. */
        bool loop_call_leads = loop_call && !f->hot_root && !in_loop;
        if (loop_call_leads) {
            add_hot_path_to(finding, loop_call->caller, loop_call->file, loop_call->line);
            hs_finding_add_path_step(finding, f->name, read->site.file, read->site.line);
        } else if (f->hot_depth >= 0) {
            add_hot_path_to(finding, f, read->site.file, read->site.line);
        }
        json_object_set_new(finding, "tu_index", json_integer((json_int_t)read->tu_index));
        if (ctx->fix_level == HS_FIX_AGGRESSIVE)
            add_aggressive_fixes(ctx, finding, read, f);
        hs_judge_add_finding(ctx, finding);
        free(what);
        free(message);
        free(why);
        free(hint);
        free(refresh_why);
    }
}

static const hs_fact_family *const reads[] = {&hs_family_timers, NULL};

static const char *const data_sections[] = {"timers", "clock_ids", "blocking_functions", "hot_functions",
                                            "timer_replacements", NULL};

const hs_rule hs_rule_timer_hot_path = {
    .id = "timer-hot-path",
    .summary = "A clock read on a hot path (a loop, a hot function, or code it calls).",
    .description = "Reading a clock costs from a few nanoseconds (coarse clocks, cycle counters) "
                   "to a full system call (clock(), CPU-time clocks). On a path that runs for "
                   "every request or every loop iteration that cost multiplies: removing one "
                   "clock() per transaction gave MariaDB 3x point-select throughput (MDEV-12345).",
    .doc = "docs/rules/timer-hot-path.md",
    .default_severity = "warning",
    .precision = "medium", /* docs/rules/timer-hot-path.md, "Precision" */
    .data_sections = data_sections,
    .judge = judge,
    .reads = reads,
};
