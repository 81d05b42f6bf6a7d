/*
 * timer_facts.c - reads the timers family's facts ("clock_reads") from a TU's facts
 * document into typed hs_clock_read records (timer_facts.h), each read once per place.
 */
#include "timer_facts.h"

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

static void destroy(void *store)
{
    hs_timer_store *s = store;
    if (!s)
        return;
    for (size_t i = 0; i < s->len; i++) {
        free(s->reads[i].branches);
        free(s->reads[i].guards);
    }
    free(s->reads);
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
    r->in_variadic = hs_facts_bool(o, "in_variadic");
    r->printed = hs_facts_bool(o, "printed");
    r->returned = hs_facts_bool(o, "returned");
    r->vs_static = hs_facts_bool(o, "vs_static");
    r->result_used = hs_facts_bool(o, "result_used");
    r->sink = hs_facts_str(in, o, "sink");
    r->sink_text = hs_facts_str(in, o, "sink_text");
    r->out_param = hs_facts_bool(o, "out_param");
    r->sink_modified_at = hs_facts_int(o, "sink_modified_at", -1);
    r->n_elapsed_with = json_array_size(json_object_get(o, "elapsed_with"));
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
        if (!hs_program_first_fact(p, "read", o))
            continue;
        s->reads = hs_array_append(s->reads, &s->len, &s->cap, sizeof *s->reads);
        hs_clock_read *r = &s->reads[s->len - 1];
        read_one(p->strings, o, tu_index, r);
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
    return r->clock_id ? hs_printf("%s(%s)", r->api, r->clock_id) : hs_printf("%s()", r->api);
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
