/*
 * timer_facts.c - reads the timers family's facts ("clock_reads") from a TU's facts
 * document into typed hs_clock_read records (timer_facts.h), each read once per place.
 */
#include "timer_facts.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hotscan/common.h"

static void *create(void)
{
    hs_timer_store *s = hs_xcalloc(1, sizeof *s);
    s->timed_sites = hs_strmap_create();
    s->site_fields = hs_strmap_create();
    s->interval_fields = hs_strmap_create();
    return s;
}

/*
 * Interval fields are matched by field name, not by the struct that declares them: C code
 * punning one struct for another with a common initial sequence (haproxy's tasklet and task
 * share wake_date through TASK_COMMON) stores into one and subtracts through the other.
 */
static const char *field_name(const char *usr)
{
    const char *at = usr ? strrchr(usr, '@') : NULL;
    return at ? at + 1 : usr ? usr : "";
}

static char *site_key(const char *file, unsigned line, unsigned column)
{
    return hs_printf("%s:%u:%u", file ? file : "", line, column);
}

const char *hs_timer_site_use(const hs_timer_store *s, const char *file, unsigned line, unsigned column)
{
    char *key = site_key(file, line, column);
    const char *use = hs_strmap_get(s->timed_sites, key);
    const char *field = use && strcmp(use, "field") == 0 ? hs_strmap_get(s->site_fields, key) : NULL;
    free(key);
    if (field)
        return hs_strmap_has(s->interval_fields, field_name(field)) ? "timed" : NULL;
    return use;
}

static void free_read(hs_clock_read *r)
{
    free(r->branches);
    free(r->guards);
    free(r->elapsed);
    free(r->passed_to);
    free(r->selectors);
}

bool hs_timer_site_interval_field(const hs_timer_store *s, const char *file, unsigned line, unsigned column)
{
    char *key = site_key(file, line, column);
    const char *field = hs_strmap_get(s->site_fields, key);
    free(key);
    return field && hs_strmap_has(s->interval_fields, field_name(field));
}

static void destroy(void *store)
{
    hs_timer_store *s = store;
    if (!s)
        return;
    /* A resolved candidate shares its arrays with the candidate it was copied from. */
    for (size_t i = 0; i < s->n_api_reads || (!s->resolved && i < s->len); i++)
        free_read(&s->reads[i]);
    for (size_t i = 0; i < s->n_candidates; i++)
        free_read(&s->candidates[i]);
    free(s->reads);
    free(s->candidates);
    free(s->caches);
    free(s->param_caches);
    if (s->wrappers) {
        const char *usr;
        void *w;
        for (size_t it = 0; hs_strmap_next(s->wrappers, &it, &usr, &w);)
            free(w);
        hs_strmap_delete(s->wrappers);
    }
    if (s->by_function) {
        const char *usr;
        void *v;
        for (size_t it = 0; hs_strmap_next(s->by_function, &it, &usr, &v);) {
            hs_vec_free(v);
            free(v);
        }
        hs_strmap_delete(s->by_function);
    }
    hs_strmap_delete(s->blocking);
    hs_strmap_delete(s->timed_sites);
    hs_strmap_delete(s->site_fields);
    hs_strmap_delete(s->interval_fields);
    free(s);
}

static void read_branches(json_t *arr, hs_clock_read *r)
{
    r->n_branches = json_array_size(arr);
    r->branches = r->n_branches ? hs_xcalloc(r->n_branches, sizeof *r->branches) : NULL;
    for (size_t i = 0; i < r->n_branches; i++) {
        json_t *e = json_array_get(arr, i);
        hs_read_branch *b = &r->branches[i];
        b->node = (long long)json_integer_value(json_array_get(e, 0));
        b->node_end = (long long)json_integer_value(json_array_get(e, 1));
        b->arm = (long long)json_integer_value(json_array_get(e, 2));
        b->exit_until = (long long)json_integer_value(json_array_get(e, 3));
        b->sampled = json_is_true(json_array_get(e, 4));
    }
}

static void read_one(hs_intern *in, json_t *o, size_t tu_index, hs_clock_read *r)
{
    hs_facts_site(in, o, &r->site);
    r->text = hs_facts_str(in, o, "text");
    r->macro = hs_facts_bool(o, "macro");
    r->macro_name = hs_facts_str(in, o, "macro_name");
    r->ordinal = hs_facts_int(o, "ordinal", 0);
    r->tu_index = tu_index;
    r->api = hs_facts_str(in, o, "api");
    r->clock = hs_facts_str(in, o, "clock");
    r->clock_id = hs_facts_str(in, o, "clock_id");
    r->cost = hs_facts_str(in, o, "cost");
    r->type = hs_facts_str(in, o, "type");
    r->function = hs_facts_str(in, o, "function");
    r->function_name = hs_facts_str(in, o, "function_name");
    r->in_loop = hs_facts_bool(o, "in_loop");
    r->loop_blocking = hs_facts_bool(o, "loop_blocking");
    r->decides_loop_exit = hs_facts_bool(o, "decides_loop_exit");
    r->sampled_in_loop = hs_facts_bool(o, "sampled_in_loop");
    r->loop_path = hs_facts_str(in, o, "loop_path");
    r->lambda = hs_facts_int(o, "lambda", 0);
    read_branches(json_object_get(o, "branches"), r);
    r->error_path = hs_facts_bool(o, "error_path");
    r->rare = hs_facts_str(in, o, "rare");
    r->guards = hs_facts_guards(json_object_get(o, "guards"), &r->n_guards);
    r->function_blocks = hs_facts_bool(o, "function_blocks");
    r->function_waits = hs_facts_bool(o, "function_waits");
    r->seq = hs_facts_int(o, "seq", 0);
    r->blocking_seq = hs_facts_int(o, "blocking_seq", 0);
    r->blocking_work_seq = hs_facts_int(o, "blocking_work_seq", r->blocking_seq);
    r->in_variadic = hs_facts_bool(o, "in_variadic");
    r->printed = hs_facts_bool(o, "printed");
    r->returned = hs_facts_bool(o, "returned");
    r->vs_static = hs_facts_bool(o, "vs_static");
    r->result_used = hs_facts_bool(o, "result_used");
    r->sink = hs_facts_str(in, o, "sink");
    r->sink_text = hs_facts_str(in, o, "sink_text");
    r->out_param = hs_facts_bool(o, "out_param");
    r->sink_modified_at = hs_facts_int(o, "sink_modified_at", -1);
    json_t *elapsed = json_object_get(o, "elapsed_with");
    r->n_elapsed = json_array_size(elapsed);
    r->n_elapsed_with = r->n_elapsed;
    r->elapsed = r->n_elapsed ? hs_xcalloc(r->n_elapsed, sizeof *r->elapsed) : NULL;
    for (size_t k = 0; k < r->n_elapsed; k++)
        r->elapsed[k] = (long long)json_integer_value(json_array_get(elapsed, k));
    r->candidate = hs_facts_bool(o, "candidate");
    long long id_param = hs_facts_int(o, "clock_id_param", -1);
    r->clock_id_param = id_param >= 0 && id_param <= 30 ? (int)id_param : -1;
    json_t *selectors = json_object_get(o, "selectors");
    size_t ns = json_array_size(selectors);
    r->selectors = ns ? hs_xcalloc(ns, sizeof *r->selectors) : NULL;
    for (size_t k = 0; k < ns; k++) {
        json_t *e = json_array_get(selectors, k);
        json_t *pos = json_array_get(e, 0), *param = json_array_get(e, 1);
        if (!json_is_integer(pos) || !json_is_integer(param) || json_integer_value(pos) < 0 ||
            json_integer_value(param) < -1 || !json_is_string(json_array_get(e, 3)))
            continue;
        hs_clock_selector *sel = &r->selectors[r->n_selectors++];
        /* Positions past 30 fit no wrapper's parameters (a mask of 31 bits). */
        sel->pos = json_integer_value(pos) > 30 ? 31 : (unsigned)json_integer_value(pos);
        sel->param = json_integer_value(param) > 30 ? -1 : (int)json_integer_value(param);
        sel->hard = json_is_true(json_array_get(e, 2));
        sel->text = hs_intern_str(in, json_string_value(json_array_get(e, 3)));
    }
    r->callee = hs_facts_str(in, o, "callee");
    r->out_to_caller = hs_facts_bool(o, "out_to_caller");
    r->sink_static = hs_facts_bool(o, "sink_static");
    r->vs_field = hs_facts_bool(o, "vs_field");
    r->cached_file_only = hs_facts_bool(o, "cached_file_only");
    json_t *passed = json_object_get(o, "passed_to");
    size_t np = json_array_size(passed);
    r->passed_to = np ? hs_xcalloc(np, sizeof *r->passed_to) : NULL;
    for (size_t k = 0; k < np; k++) {
        json_t *pair = json_array_get(passed, k);
        const char *callee = json_string_value(json_array_get(pair, 0));
        if (!callee || !json_is_integer(json_array_get(pair, 1)))
            continue;
        r->passed_to[r->n_passed_to].callee = hs_intern_str(in, callee);
        r->passed_to[r->n_passed_to].arg = (unsigned)json_integer_value(json_array_get(pair, 1));
        r->n_passed_to++;
    }
    json_t *cached = json_object_get(o, "cached_in");
    if (json_is_array(cached) && json_is_string(json_array_get(cached, 0)))
        r->cached_in = hs_intern_str(in, json_string_value(json_array_get(cached, 0)));
    json_t *arg = json_object_get(o, "clock_arg");
    r->has_clock_arg = json_is_object(arg);
    if (r->has_clock_arg) {
        r->clock_arg_offset = hs_facts_uint(arg, "offset");
        r->clock_arg_length = hs_facts_uint(arg, "length");
        r->clock_arg_text = hs_facts_str(in, arg, "text");
    }
    r->stmt_offset = hs_facts_int(o, "stmt_offset", 0);
    r->stmt_indent = hs_facts_str(in, o, "stmt_indent");
    r->block_end = hs_facts_int(o, "block_end", 0);
    /* Absent strings read as "" where the rules compare them (a facts file is input: the
     * fuzzer found a read without "cost"). */
    const char **compared[] = {&r->loop_path, &r->text, &r->api, &r->cost, &r->clock};
    for (size_t k = 0; k < sizeof compared / sizeof compared[0]; k++)
        if (!*compared[k])
            *compared[k] = hs_intern_str(in, "");
}

static void merge(void *store, hs_program *p, json_t *tu_facts, size_t tu_index)
{
    hs_timer_store *s = store;
    size_t i;
    json_t *o;
    json_array_foreach(json_object_get(tu_facts, "clock_reads"), i, o) {
        /* A header body's candidate is one fact per callee: the same call in another TU can
         * name another function (a macro the TU defines), and each variant counts. */
        bool candidate = json_is_true(json_object_get(o, "candidate"));
        const char *callee = candidate ? json_string_value(json_object_get(o, "callee")) : NULL;
        char *kind = candidate ? hs_printf("candidate %s", callee ? callee : "") : NULL;
        bool first = hs_program_first_fact(p, kind ? kind : "read", o);
        free(kind);
        if (!first)
            continue;
        hs_clock_read *r;
        if (candidate) {
            s->candidates = hs_array_append(s->candidates, &s->n_candidates, &s->cap_candidates,
                                            sizeof *s->candidates);
            r = &s->candidates[s->n_candidates - 1];
        } else {
            s->reads = hs_array_append(s->reads, &s->len, &s->cap, sizeof *s->reads);
            r = &s->reads[s->len - 1];
        }
        read_one(p->strings, o, tu_index, r);
    }
    json_array_foreach(json_object_get(tu_facts, "param_caches"), i, o) {
        const char *function = hs_facts_str(p->strings, o, "function");
        const char *text = hs_facts_str(p->strings, o, "text");
        if (!function || !text || !json_is_integer(json_object_get(o, "param")))
            continue;
        unsigned param = hs_facts_uint(o, "param");
        bool seen = false;
        for (size_t k = 0; k < s->n_param_caches && !seen; k++)
            seen = s->param_caches[k].function == function && s->param_caches[k].text == text &&
                   s->param_caches[k].param == param;
        if (seen)
            continue;
        s->param_caches = hs_array_append(s->param_caches, &s->n_param_caches, &s->cap_param_caches,
                                          sizeof *s->param_caches);
        hs_param_cache *c = &s->param_caches[s->n_param_caches - 1];
        c->function = function;
        c->text = text;
        c->param = param;
        c->file_only = hs_facts_bool(o, "file_only");
    }
    json_array_foreach(json_object_get(tu_facts, "interval_fields"), i, o)
        hs_strmap_put(s->interval_fields, field_name(json_string_value(o)), (void *)1);
    json_array_foreach(json_object_get(tu_facts, "timed_calls"), i, o) {
        const char *file = json_string_value(json_object_get(o, "file"));
        char *key = site_key(file, hs_facts_uint(o, "line"), hs_facts_uint(o, "column"));
        /* "timed" wins over what another TU saw at the same site. */
        const char *use = hs_facts_str(p->strings, o, "use");
        const char *had = hs_strmap_get(s->timed_sites, key);
        if (use && (!had || strcmp(use, "timed") == 0))
            hs_strmap_put(s->timed_sites, key, (void *)use);
        const char *field = hs_facts_str(p->strings, o, "field");
        if (field)
            hs_strmap_put(s->site_fields, key, (void *)field);
        free(key);
    }
}

char *hs_clock_read_name(const hs_clock_read *r)
{
    /* A wrapper's call is named as called: its clock id is the wrapper's business. */
    return r->clock_id && !r->wrapper ? hs_printf("%s(%s)", r->api, r->clock_id) : hs_printf("%s()", r->api);
}

const hs_fact_family hs_family_timers = {
    .name = "timers",
    .create = create,
    .destroy = destroy,
    .merge = merge,
};

hs_strmap *hs_timers_blocking_functions(const hs_program *p, const hs_ruledata *rd)
{
    hs_strmap *blocking = hs_strmap_create();
    hs_vec queue = {0};
    for (size_t i = 0; i < p->function_list.len; i++) {
        hs_function *f = p->function_list.items[i];
        if (f->name && hs_ruledata_is_blocking(rd, f->name)) {
            hs_strmap_put(blocking, f->usr, (void *)1);
            hs_vec_push(&queue, f);
        }
    }
    for (size_t head = 0; head < queue.len; head++) {
        const hs_function *f = queue.items[head];
        for (size_t i = 0; i < f->callers.len; i++) {
            const hs_call_edge *e = f->callers.items[i];
            if (e->error_path || e->rare || hs_strmap_has(blocking, e->caller->usr))
                continue;
            hs_strmap_put(blocking, e->caller->usr, (void *)1);
            hs_vec_push(&queue, e->caller);
        }
    }
    hs_vec_free(&queue);
    return blocking;
}

bool hs_timers_loop_calls_blocking(const hs_function *f, unsigned loop_id, const hs_strmap *blocking)
{
    for (size_t i = 0; loop_id && i < f->callees.len; i++) {
        const hs_call_edge *e = f->callees.items[i];
        if (e->loop == loop_id && !e->error_path && !e->rare && hs_strmap_has(blocking, e->callee->usr))
            return true;
    }
    return false;
}

unsigned hs_clock_read_loop(const hs_clock_read *r)
{
    const char *slash = r->loop_path ? strrchr(r->loop_path, '/') : NULL;
    const char *last = slash ? slash + 1 : r->loop_path;
    return last && *last ? (unsigned)strtoul(last, NULL, 10) : 0;
}

/* ---- Clock wrappers and cached clocks: the whole program's view ------------------ */

const char *hs_clock_family(const char *clock, const char *clock_id)
{
    if (clock_id) {
        if (strncmp(clock_id, "CLOCK_REALTIME", 14) == 0 || strcmp(clock_id, "CLOCK_TAI") == 0)
            return "wall";
        if (strncmp(clock_id, "CLOCK_MONOTONIC", 15) == 0 || strncmp(clock_id, "CLOCK_BOOTTIME", 14) == 0)
            return "monotonic";
        if (strstr(clock_id, "CPUTIME"))
            return "cpu";
        if (strncmp(clock_id, "RUSAGE_", 7) == 0)
            return "cpu";
        return NULL;
    }
    if (!clock)
        return NULL;
    if (strstr(clock, "wall"))
        return "wall";
    if (strstr(clock, "monotonic") || strstr(clock, "since boot"))
        return "monotonic";
    if (strstr(clock, "CPU") || strstr(clock, "resource usage"))
        return "cpu";
    if (strstr(clock, "cycle"))
        return "cycles";
    return NULL;
}

double hs_clock_resolution_ns(const char *api, const char *clock)
{
    if (!api)
        return 0;
    if (strcmp(api, "time") == 0)
        return 1e9;
    if (strcmp(api, "gettimeofday") == 0)
        return 1e3;
    if (strcmp(api, "clock_gettime") == 0 || strcmp(api, "timespec_get") == 0)
        return 1;
    if (clock && strstr(clock, "milliseconds"))
        return 1e6;
    if (clock && strstr(clock, "microseconds"))
        return 1e3;
    if (clock && strstr(clock, "nanoseconds"))
        return 1;
    if (clock && strstr(clock, "seconds"))
        return 1e9;
    return 0;
}

const hs_vec *hs_timer_reads_of(const hs_timer_store *s, const char *usr)
{
    return s->by_function && usr ? hs_strmap_get(s->by_function, usr) : NULL;
}

const hs_clock_wrapper *hs_timer_wrapper(const hs_timer_store *s, const char *usr)
{
    return s->wrappers && usr ? hs_strmap_get(s->wrappers, usr) : NULL;
}

char *hs_clock_wrapper_chain(const hs_clock_wrapper *w)
{
    hs_buf b;
    hs_buf_init(&b);
    for (unsigned n = 0; w && n < 32; w = w->next, n++) {
        hs_buf_printf(&b, "%s -> ", w->name ? w->name : "?");
        if (!w->next)
            hs_buf_puts(&b, w->api ? w->api : "?");
    }
    return hs_buf_take(&b);
}

/* A read's reading goes to its function's caller: returned or written through a pointer
 * parameter, once (not in a loop). */
static bool passes_reading_on(const hs_clock_read *r)
{
    return (r->returned || r->out_to_caller) && r->function && !(r->loop_path && r->loop_path[0]);
}

/* The first wrapper a candidate calls: its callee, or for a call through a pointer, the
 * functions the program's call graph says the call at its place reaches. */
static const hs_clock_wrapper *called_wrapper(const hs_timer_store *s, const hs_program *p, const hs_clock_read *c)
{
    if (c->callee)
        return hs_strmap_get(s->wrappers, c->callee);
    const hs_function *f = c->function ? hs_strmap_get(p->functions, c->function) : NULL;
    for (size_t i = 0; f && i < f->callees.len; i++) {
        const hs_call_edge *e = f->callees.items[i];
        if (e->line == c->site.line && e->column == c->site.column && e->file == c->site.file) {
            const hs_clock_wrapper *w = hs_strmap_get(s->wrappers, e->callee->usr);
            if (w)
                return w;
        }
    }
    return NULL;
}

/* The positions of the arguments a candidate passes by value (hard selectors). */
static unsigned hard_selectors(const hs_clock_read *c)
{
    unsigned mask = 0;
    for (size_t k = 0; k < c->n_selectors; k++)
        if (c->selectors[k].hard)
            mask |= 1u << c->selectors[k].pos;
    return mask;
}

/* The parameters of c's function that c passes where wrapper w takes its clock. */
static unsigned passed_selector_params(const hs_clock_read *c, const hs_clock_wrapper *w)
{
    unsigned mask = 0;
    for (size_t k = 0; k < c->n_selectors; k++)
        if (c->selectors[k].param >= 0 && (w->selector_params & (1u << c->selectors[k].pos)))
            mask |= 1u << c->selectors[k].param;
    return mask;
}

/* What chooses the clock a call of w reads: what it passes where w takes its clock
 * (`&monotonic_clock`), else w's own choice. */
static const char *selected_by(const hs_clock_read *c, const hs_clock_wrapper *w)
{
    for (size_t k = 0; k < c->n_selectors; k++)
        if (w->selector_params & (1u << c->selectors[k].pos))
            return c->selectors[k].text;
    return w->selected;
}

static hs_clock_wrapper *new_wrapper(const hs_clock_read *r, const hs_function *f, const hs_clock_wrapper *next)
{
    hs_clock_wrapper *w = hs_xcalloc(1, sizeof *w);
    w->usr = f->usr;
    w->name = f->name;
    w->next = next;
    w->api = next ? next->api : r->api;
    w->clock = next ? next->clock : r->clock;
    w->clock_id = next ? next->clock_id : r->clock_id;
    w->cost = next ? next->cost : r->cost;
    w->base_text = next ? next->base_text : r->text;
    w->guards = r->guards;
    w->n_guards = r->n_guards;
    w->depth = next ? next->depth + 1 : 0;
    w->out = !r->returned;
    if (next) {
        w->selector_params = passed_selector_params(r, next);
        w->selected = selected_by(r, next);
    } else if (r->clock_id_param >= 0) {
        w->selector_params = 1u << r->clock_id_param;
    }
    return w;
}

/* The edge of the call at a read's place into `callee`, or NULL. */
static const hs_call_edge *edge_at(const hs_program *p, const hs_clock_read *r, const char *callee)
{
    const hs_function *f = r->function ? hs_strmap_get(p->functions, r->function) : NULL;
    for (size_t i = 0; f && i < f->callees.len; i++) {
        const hs_call_edge *e = f->callees.items[i];
        if (e->line == r->site.line && e->column == r->site.column && e->file == r->site.file &&
            strcmp(e->callee->usr, callee) == 0)
            return e;
    }
    return NULL;
}

static char *ordinal_key(const hs_clock_read *r, long long ordinal)
{
    return hs_printf("%s#%lld", r->function ? r->function : "", ordinal);
}

/* How many calls up from a refresher the loop or the callback that runs it may be: a
 * cache is refreshed by the event loop's own code (haproxy's clock_update_date() called by
 * run_poll_loop, redis' updateCachedTime() by serverCron), not by any function that some
 * loop reaches many calls away. */
#define HS_CACHE_REFRESH_DEPTH 3

/*
 * Does `f` run over and over? Up its callers (at most HS_CACHE_REFRESH_DEPTH levels),
 * through calls made on every pass of their function or loop: a call from a loop
 * (*loop_caller names the caller), or a function that nothing in the
 * program calls although it is not main (a timer callback such as redis' serverCron or a
 * clock thread, registered by passing its address; *callback names it). A function called
 * once from main's start-up (initServer) is not.
 */
static bool runs_periodically(const hs_function *f, const char **loop_caller, const char **callback)
{
    *loop_caller = *callback = NULL;
    hs_vec queue = {0};
    hs_vec depth = {0}; /* calls between f and queue[i], as a pointer-sized int */
    hs_strmap *seen = hs_strmap_create();
    hs_vec_push(&queue, (void *)f);
    hs_vec_push(&depth, (void *)0);
    hs_strmap_put(seen, f->usr, (void *)1);
    bool periodic = false;
    for (size_t head = 0; head < queue.len && head < 256 && !periodic; head++) {
        const hs_function *g = queue.items[head];
        uintptr_t d = (uintptr_t)depth.items[head];
        if (g->callers.len == 0 && g != f && !g->hot_root && g->name && strcmp(g->name, "main") != 0) {
            *callback = g->name;
            periodic = true;
            break;
        }
        for (size_t i = 0; i < g->callers.len && !periodic; i++) {
            const hs_call_edge *e = g->callers.items[i];
            /* Only calls made on every pass: rdbSave, called by serverCron when enough keys
             * changed, refreshes `server.lastsave` now and then, not every time. */
            if (e->error_path || e->rare || e->conditional)
                continue;
            if (e->in_loop) {
                *loop_caller = e->caller->name;
                periodic = true;
            } else if (d + 1 < HS_CACHE_REFRESH_DEPTH && !hs_strmap_has(seen, e->caller->usr)) {
                hs_strmap_put(seen, e->caller->usr, (void *)1);
                hs_vec_push(&queue, e->caller);
                hs_vec_push(&depth, (void *)(d + 1));
            }
        }
    }
    hs_vec_free(&queue);
    hs_vec_free(&depth);
    hs_strmap_delete(seen);
    return periodic;
}

/* Does `f` call a function that may block before (line, column), on a path that counts? */
/* The system calls an event loop waits in for its next events. The time read right after
 * one is the iteration's time: where event loops refresh their cached clock (mosquitto's
 * `db.now_s = mosquitto_time()` after epoll_wait), not a stamp of slow work done. */
bool hs_timer_is_event_wait(const char *name)
{
    static const char *const waits[] = {"poll", "ppoll", "epoll_wait", "epoll_pwait", "epoll_pwait2",
                                        "select", "pselect", "kevent", "port_getn", "io_uring_wait_cqe"};
    for (size_t i = 0; name && i < sizeof waits / sizeof *waits; i++)
        if (strcmp(name, waits[i]) == 0)
            return true;
    return false;
}

static bool blocks_before(const hs_timer_store *s, const hs_function *f, const char *file, unsigned line,
                          unsigned column)
{
    for (size_t i = 0; i < f->callees.len; i++) {
        const hs_call_edge *e = f->callees.items[i];
        if (e->file == file && (e->line < line || (e->line == line && e->column < column)) && !e->error_path &&
            !e->rare && hs_strmap_has(s->blocking, e->callee->usr) && !hs_timer_is_event_wait(e->callee->name))
            return true;
    }
    return false;
}

static void add_cache(hs_timer_store *s, size_t *cap, const hs_clock_read *r, const hs_function *f,
                      const char *family, const char *text, bool file_only, const char *loop, const char *callback)
{
    for (size_t k = 0; k < s->n_caches; k++)
        if (s->caches[k].text == text && s->caches[k].function == r->function)
            return;
    s->caches = hs_array_append(s->caches, &s->n_caches, cap, sizeof *s->caches);
    hs_clock_cache *c = &s->caches[s->n_caches - 1];
    c->text = text;
    c->function = r->function;
    c->function_name = f->name;
    c->family = family;
    c->api = r->api;
    c->file = r->site.file;
    c->file_only = file_only;
    c->periodic = true;
    c->loop_caller = r->in_loop ? NULL : loop;
    c->callback = r->in_loop ? NULL : callback;
}

bool hs_timer_hands_to(const hs_clock_read *r, const hs_param_cache *c)
{
    for (size_t k = 0; k < r->n_passed_to; k++)
        if (r->passed_to[k].callee == c->function && r->passed_to[k].arg == c->param)
            return true;
    return false;
}

static void find_caches(hs_timer_store *s, const hs_program *p)
{
    size_t cap = 0;
    for (size_t i = 0; i < s->len; i++) {
        const hs_clock_read *r = &s->reads[i];
        const char *family = hs_clock_family(r->clock, r->clock_id);
        const hs_function *f = r->function ? hs_strmap_get(p->functions, r->function) : NULL;
        /* Stored here, or passed to a function that stores that parameter. */
        bool handed = false;
        for (size_t c = 0; c < s->n_param_caches && !handed; c++)
            handed = hs_timer_hands_to(r, &s->param_caches[c]);
        if ((!r->cached_in && !handed) || !family || !f || r->error_path || strcmp(r->cost, "coarse") == 0)
            continue;
        /* Refreshed over and over, and every time its function runs (not a rate limit's
         * `if (now - last > 60) last = now;`): in a loop, or by a function that runs
         * periodically. A store made once at start-up (`server.stat_starttime =
         * time(NULL)` in initServer) is no cache. */
        if (r->n_branches > 0 || r->rare || r->n_guards > 0)
            continue;
        /* A refresh does nothing slow before it: a read after blocking work (rdbSave's
         * `server.lastsave = time(NULL)` after writing the file) stamps an event. */
        if (r->blocking_work_seq > 0 || r->function_waits || blocks_before(s, f, r->site.file, r->site.line, r->site.column))
            continue;
        const char *loop = NULL, *callback = NULL;
        bool periodic = r->in_loop || runs_periodically(f, &loop, &callback);
        if (!periodic)
            continue;
        if (r->cached_in)
            add_cache(s, &cap, r, f, family, r->cached_in, r->cached_file_only, loop, callback);
        for (size_t k = 0; k < r->n_passed_to; k++)
            for (size_t c = 0; c < s->n_param_caches; c++)
                if (s->param_caches[c].function == r->passed_to[k].callee &&
                    s->param_caches[c].param == r->passed_to[k].arg)
                    add_cache(s, &cap, r, f, family, s->param_caches[c].text, s->param_caches[c].file_only, loop,
                              callback);
    }
}

const hs_clock_cache *hs_timer_cache_for(const hs_timer_store *s, const hs_clock_read *r)
{
    const char *family = hs_clock_family(r->clock, r->clock_id);
    if (!family)
        return NULL;
    /* One refreshed from the read's own API or wrapper first (`server.mstime = mstime()` for
     * a fresh mstime()), then any of the same clock. */
    const hs_clock_cache *any = NULL;
    for (size_t k = 0; k < s->n_caches; k++) {
        const hs_clock_cache *c = &s->caches[k];
        if (strcmp(c->family, family) != 0 || (r->function && strcmp(c->function, r->function) == 0) ||
            (c->file_only && c->file != r->site.file))
            continue;
        if (c->api && strcmp(c->api, r->api) == 0)
            return c;
        if (!any)
            any = c;
    }
    return any;
}

/*
 * Is every call of `f` a candidate read, so that each is judged where it is made? A function
 * that returns a reading mixed with its arguments (`key + clock()`) is called with values a
 * candidate does not take: it stays a function that reads a clock, judged at its read. A
 * value passed for a parameter that only names the clock (`selector_params`) is no mix.
 */
static bool every_call_is_candidate(const hs_function *f, const hs_strmap *candidate_sites, unsigned selector_params)
{
    if (f->callers.len == 0)
        return false;
    for (size_t i = 0; i < f->callers.len; i++) {
        const hs_call_edge *e = f->callers.items[i];
        char *key = site_key(e->file, e->line, e->column);
        /* The site's hard selectors + 1: each must be a parameter that names the clock. */
        uintptr_t hard = (uintptr_t)hs_strmap_get(candidate_sites, key);
        free(key);
        if (!hard || ((hard - 1) & ~(uintptr_t)selector_params))
            return false;
    }
    return true;
}

/*
 * Does another variant of this place call something else? A header's function can be
 * compiled differently by different TUs (a macro each TU defines: `return CALL_IT();`), and
 * the program model keeps one function: a place whose variants call a wrapper in one TU and
 * a plain function in another makes no wrapper of the function, or calls made from the
 * other TUs would be taken for clock reads.
 */
static bool place_has_other_variant(const hs_timer_store *s, const hs_clock_read *r, const hs_strmap *variants)
{
    char *key = site_key(r->site.file, r->site.line, r->site.column);
    uintptr_t n = (uintptr_t)hs_strmap_get(variants, key);
    free(key);
    (void)s;
    return n > 1;
}

void hs_timer_resolve(hs_timer_store *s, const hs_program *p, const hs_ruledata *rd)
{
    if (s->resolved)
        return;
    s->resolved = true;
    s->blocking = hs_timers_blocking_functions(p, rd);
    s->n_api_reads = s->len;
    s->wrappers = hs_strmap_create();
    hs_strmap *candidate_sites = hs_strmap_create();
    hs_strmap *variants = hs_strmap_create(); /* place -> how many reads and candidates */
    for (size_t i = 0; i < s->n_candidates + s->len; i++) {
        const hs_clock_read *c = i < s->n_candidates ? &s->candidates[i] : &s->reads[i - s->n_candidates];
        char *key = site_key(c->site.file, c->site.line, c->site.column);
        if (i < s->n_candidates)
            hs_strmap_put(candidate_sites, key, (void *)((uintptr_t)hard_selectors(c) + 1));
        hs_strmap_put(variants, key, (void *)((uintptr_t)hs_strmap_get(variants, key) + 1));
        free(key);
    }
    /* Functions that pass a clock API's reading on. */
    for (size_t i = 0; i < s->len; i++) {
        const hs_clock_read *r = &s->reads[i];
        const hs_function *f = passes_reading_on(r) ? hs_strmap_get(p->functions, r->function) : NULL;
        unsigned selector_params = r->clock_id_param >= 0 ? 1u << r->clock_id_param : 0;
        if (f && !hs_strmap_has(s->wrappers, f->usr) && strcmp(r->cost, "coarse") != 0 &&
            every_call_is_candidate(f, candidate_sites, selector_params) && !place_has_other_variant(s, r, variants))
            hs_strmap_put(s->wrappers, f->usr, new_wrapper(r, f, NULL));
    }
    /* Functions that pass a wrapper's reading on, until none is new. */
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t i = 0; i < s->n_candidates; i++) {
            const hs_clock_read *c = &s->candidates[i];
            if (!passes_reading_on(c) || hs_strmap_has(s->wrappers, c->function))
                continue;
            const hs_clock_wrapper *w = called_wrapper(s, p, c);
            if (w && (hard_selectors(c) & ~w->selector_params))
                continue;
            const hs_function *f = w ? hs_strmap_get(p->functions, c->function) : NULL;
            if (f && every_call_is_candidate(f, candidate_sites, passed_selector_params(c, w)) &&
                !place_has_other_variant(s, c, variants)) {
                hs_strmap_put(s->wrappers, f->usr, new_wrapper(c, f, w));
                changed = true;
            }
        }
    }
    /* Each call of a wrapper whose value is used reads the wrapper's clock. A call whose
     * arm of the wrapper is ruled out by a constant argument (`maybe_now(0)` where the
     * wrapper reads only `if (refresh)`) reads nothing. */
    for (size_t i = 0; i < s->n_candidates; i++) {
        const hs_clock_read *c = &s->candidates[i];
        const hs_clock_wrapper *w = called_wrapper(s, p, c);
        /* The reading is what the call returns, or what it writes through an address it is
         * given: a wrapper of the other kind gives this call no reading. */
        if (!w || w->out != c->out_param || (hard_selectors(c) & ~w->selector_params))
            continue;
        const hs_call_edge *e = w->n_guards ? edge_at(p, c, w->usr) : NULL;
        if (e && hs_guards_contradicted(w->guards, w->n_guards, e->const_args, e->n_const_args))
            continue;
        s->reads = hs_array_append(s->reads, &s->len, &s->cap, sizeof *s->reads);
        hs_clock_read *r = &s->reads[s->len - 1];
        *r = *c;
        r->wrapper = w;
        r->selected = selected_by(c, w);
        r->clock = w->clock;
        r->clock_id = w->clock_id;
        r->cost = w->cost;
    }
    /* A reading is combined with another only if that one is a reading too; with a fresh
     * one if that reading is not one kept in static storage (a rate limit's last reading). */
    hs_strmap *real = hs_strmap_create();
    for (size_t i = 0; i < s->len; i++) {
        char *key = ordinal_key(&s->reads[i], s->reads[i].ordinal);
        hs_strmap_put(real, key, s->reads[i].sink_static ? (void *)2 : (void *)1);
        free(key);
    }
    for (size_t i = 0; i < s->len; i++) {
        hs_clock_read *r = &s->reads[i];
        r->n_elapsed_with = r->n_elapsed_fresh = 0;
        for (size_t k = 0; k < r->n_elapsed; k++) {
            char *key = ordinal_key(r, r->elapsed[k]);
            uintptr_t kind = (uintptr_t)hs_strmap_get(real, key);
            r->n_elapsed_with += kind != 0;
            r->n_elapsed_fresh += kind == 1;
            free(key);
        }
    }
    hs_strmap_delete(real);
    hs_strmap_delete(candidate_sites);
    hs_strmap_delete(variants);
    s->by_function = hs_strmap_create();
    for (size_t i = 0; i < s->len; i++) {
        const char *usr = s->reads[i].function;
        if (!usr)
            continue;
        hs_vec *v = hs_strmap_get(s->by_function, usr);
        if (!v) {
            v = hs_xcalloc(1, sizeof *v);
            hs_strmap_put(s->by_function, usr, v);
        }
        hs_vec_push(v, (void *)(uintptr_t)i);
    }
    find_caches(s, p);
}
