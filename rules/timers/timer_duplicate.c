/*
 * timer_duplicate.c - timer-duplicate: the same clock read twice on one straight-line
 * path of a function, where the first reading would serve both (MDEV-12345: clock()
 * was done twice in trx_start_low).
 *
 * Not duplicates: readings on exclusive branches (different arms, or an arm that
 * leaves before the second read), readings in different loop nests, and readings that
 * are combined with each other or with another reading (a start/end pair measuring
 * elapsed time needs both).
 */
#include "hotscan/common.h"
#include "hotscan/findings.h"
#include "hotscan/fixits.h"
#include "hotscan/rules.h"
#include "timer_facts.h"

#include <stdlib.h>
#include <string.h>

/* The same API reading the same clock: b's value is a's. */
static bool same_api(const hs_clock_read *a, const hs_clock_read *b)
{
    if (strcmp(a->api, b->api) != 0)
        return false;
    /* A wrapper told which clock to read (`time_msec__(&monotonic_clock)`) must be told the same. */
    if ((a->selected || b->selected) && (!a->selected || !b->selected || strcmp(a->selected, b->selected) != 0))
        return false;
    /* APIs without a clock argument read one clock; others must name the same one. */
    if (!a->clock_id || !b->clock_id)
        return !a->clock_id && !b->clock_id;
    return strcmp(a->clock_id, b->clock_id) == 0;
}

/* Is the API `api` time()? (A wrapper's reading can give seconds whatever its unit.) */
static bool reads_seconds(const hs_clock_read *r)
{
    return !r->wrapper && hs_clock_resolution_ns(r->api, r->clock) >= 1e9;
}

/*
 * Can b's value be had from a's reading? The same API and clock; or the same clock read
 * through another API at the same or a coarser resolution (`time(NULL)` after
 * `gettimeofday(&tv, NULL)`: tv.tv_sec); a wrapper's reading, whose unit hotscan does not
 * know, gives only another call of that wrapper, or seconds.
 */
/* The system clock an API reads, when it is one of two that several APIs read:
 * CLOCK_REALTIME (time, gettimeofday, clock_gettime, system_clock) or CLOCK_MONOTONIC
 * (clock_gettime, steady_clock); NULL otherwise (a coarse, raw or boot-time clock is a
 * clock of its own). A wrapper reads its base API's clock. */
static const char *system_clock(const hs_clock_read *r)
{
    const char *api = r->wrapper ? r->wrapper->api : r->api;
    const char *id = r->clock_id;
    if (!api)
        return NULL;
    if (strcmp(api, "clock_gettime") == 0)
        return !id ? NULL : strcmp(id, "CLOCK_REALTIME") == 0 ? "CLOCK_REALTIME"
                          : strcmp(id, "CLOCK_MONOTONIC") == 0 ? "CLOCK_MONOTONIC" : NULL;
    if (strcmp(api, "time") == 0 || strcmp(api, "gettimeofday") == 0 || strcmp(api, "ftime") == 0 ||
        strcmp(api, "timespec_get") == 0 || strcmp(api, "std::chrono::system_clock::now") == 0)
        return "CLOCK_REALTIME";
    if (strcmp(api, "std::chrono::steady_clock::now") == 0)
        return "CLOCK_MONOTONIC";
    return NULL;
}

static bool same_clock(const hs_clock_read *a, const hs_clock_read *b)
{
    if (same_api(a, b))
        return true;
    const char *ca = system_clock(a), *cb = system_clock(b);
    if (!ca || !cb || strcmp(ca, cb) != 0 || strcmp(b->cost, "coarse") == 0)
        return false;
    if (b->wrapper)
        return false;
    if (a->wrapper)
        return reads_seconds(b);
    double ra = hs_clock_resolution_ns(a->api, a->clock), rb = hs_clock_resolution_ns(b->api, b->clock);
    return ra > 0 && rb > 0 && rb >= ra;
}

/* How b's value comes from a's reading, for the message ("tv.tv_sec"). Caller frees. */
static char *conversion(const hs_clock_read *a, const hs_clock_read *b)
{
    const char *held = a->sink_text;
    char *name = NULL;
    if (held) {
        /* `&tv` -> tv. (member), `tv` (a pointer) -> tv-> */
        name = held[0] == '&' ? hs_printf("%s.", held + 1) : a->out_param ? hs_printf("%s->", held)
                                                                           : hs_printf("%s", held);
    }
    bool timespec = strcmp(a->api, "clock_gettime") == 0 || strcmp(a->api, "timespec_get") == 0;
    bool timeval = strcmp(a->api, "gettimeofday") == 0;
    char *out;
    if (a->wrapper)
        out = hs_xstrdup("the seconds of that reading");
    else if (reads_seconds(b) && name && (timespec || timeval) && a->out_param)
        out = hs_printf("%stv_sec", name);
    else if (!strcmp(b->api, "gettimeofday") && name && timespec && a->out_param)
        out = hs_printf("%stv_sec and %stv_nsec / 1000", name, name);
    else if (reads_seconds(b) && strstr(a->api, "system_clock"))
        out = hs_xstrdup("std::chrono::system_clock::to_time_t of that reading");
    else
        out = hs_xstrdup("converted to the unit it needs");
    free(name);
    return out;
}

static const hs_read_branch *find_node(const hs_clock_read *r, long long node)
{
    for (size_t i = 0; i < r->n_branches; i++)
        if (r->branches[i].node == node)
            return &r->branches[i];
    return NULL;
}

/* Can `a` (earlier) and `b` (later) both run on one pass through the function? */
static bool on_one_path(const hs_clock_read *a, const hs_clock_read *b)
{
    long long b_offset = b->site.offset, a_offset = a->site.offset;
    /* b in a block segment after an always-leaving statement; a earlier in that block. */
    for (size_t k = 0; k < b->n_branches; k++) {
        const hs_read_branch *seg = &b->branches[k];
        if (seg->exit_until == -1 && a_offset >= seg->node && a_offset <= seg->node_end &&
            !find_node(a, seg->node))
            return false;
    }
    for (size_t i = 0; i < a->n_branches; i++) {
        const hs_read_branch *e = &a->branches[i];
        const hs_read_branch *other = find_node(b, e->node);
        if (other && other->arm != e->arm)
            return false; /* different arms of one if/switch/?:, or block segments */
        if (e->exit_until < 0 && !other && b_offset >= e->node && b_offset <= e->node_end)
            return false; /* a later segment of the block b is in, which a's cannot reach */
        if (!other && e->exit_until > 0 && b_offset > e->node_end && b_offset <= e->exit_until)
            return false; /* a's arm returns, breaks or continues before b */
    }
    return true;
}

/*
 * Does every pass that reaches `b` pass `a` first? Approximated on branch arms: each arm
 * (of an if, switch, ?:, && or ||) that `a` sits in, `b` sits in too. A read in an arm
 * that b is not in may not have run (`if (s == 1 && time(NULL) > t) ...; if (s == 2 &&
 * time(NULL) > t) ...`: at most one of them runs).
 */
static bool dominates(const hs_clock_read *a, const hs_clock_read *b)
{
    for (size_t i = 0; i < a->n_branches; i++) {
        const hs_read_branch *other = find_node(b, a->branches[i].node);
        if (!other || other->arm != a->branches[i].arm)
            return false;
    }
    return true;
}

/* Is `b` a second read of the clock `a` (earlier) read, with a's reading at hand? */
static bool duplicates(const hs_clock_read *a, const hs_clock_read *b)
{
    return same_clock(a, b) && strcmp(a->loop_path, b->loop_path) == 0 && a->lambda == b->lambda &&
           a->result_used && on_one_path(a, b) && dominates(a, b);
}

/* Is (line, column) strictly between sites a and b? */
static bool between(const hs_site *a, const hs_site *b, unsigned line, unsigned column)
{
    bool after_a = line > a->line || (line == a->line && column > a->column);
    bool before_b = line < b->line || (line == b->line && column < b->column);
    return after_a && before_b;
}

/*
 * Is there a call between the two reads to a function that may block (sleep, I/O, fork,
 * or a function that calls one, such as a logger or redis' redisFork)? Then the two
 * readings are different instants on purpose (`lastbgsave_try` before a fork,
 * `rdb_save_time_start` after it). Lexical order stands in for the path: a call in a
 * branch between them counts too, which can only drop a finding.
 */
static bool blocks_between(const hs_program *p, const hs_strmap *blocking, const hs_clock_read *a,
                           const hs_clock_read *b)
{
    const hs_function *f = b->function ? hs_strmap_get(p->functions, b->function) : NULL;
    for (size_t i = 0; f && i < f->callees.len; i++) {
        const hs_call_edge *e = f->callees.items[i];
        if (e->file == b->site.file && between(&a->site, &b->site, e->line, e->column) &&
            hs_strmap_has(blocking, e->callee->usr))
            return true;
    }
    return false;
}

static bool program_has_hot_roots(const hs_program *p)
{
    for (size_t i = 0; i < p->function_list.len; i++)
        if (((const hs_function *)p->function_list.items[i])->hot_root)
            return true;
    return false;
}

static const char *or_empty(const char *s)
{
    return s ? s : "";
}

static int by_offset(const void *pa, const void *pb)
{
    const hs_clock_read *a = *(const hs_clock_read *const *)pa, *b = *(const hs_clock_read *const *)pb;
    int c = strcmp(or_empty(a->function), or_empty(b->function));
    if (c)
        return c;
    c = strcmp(or_empty(a->site.file), or_empty(b->site.file));
    if (c)
        return c;
    return a->site.offset < b->site.offset ? -1 : a->site.offset > b->site.offset;
}

/*
 * Reuse the earlier reading. When it is kept in a name nothing changes before the
 * second read, the second read becomes that name (`t->b = clock();` -> `t->b = t->a;`;
 * for out-parameters, a copy). When both results are used directly, one local holds
 * the reading. NULL with the reason when neither applies.
 */
static json_t *reuse_edits(const hs_clock_read *a, const hs_clock_read *b, const char **why_not)
{
    const char *file = b->site.file;
    bool a_kept = a->sink_text && (a->sink_modified_at < 0 || a->sink_modified_at > (long long)b->site.offset);
    if (b->macro || a->macro) {
        *why_not = "a read is written through a macro";
        return NULL;
    }
    /* Dropping a call of a project function could drop more than a clock read. */
    if (b->wrapper) {
        *why_not = "the second read calls a clock wrapper, which may do more than read the clock";
        return NULL;
    }
    json_t *edits = json_array();
    if (a_kept && a->out_param == b->out_param) {
        char *replacement;
        if (!b->out_param) {
            replacement = hs_text_operand(a->sink_text);
        } else {
            /* `clock_gettime(id, &b)` as a statement -> `b = a` */
            if (b->result_used && !b->sink_text) {
                json_decref(edits);
                *why_not = "the second call's status is used";
                return NULL;
            }
            char *dst = hs_text_deref(or_empty(b->sink_text));
            char *src = hs_text_deref(a->sink_text);
            replacement = hs_printf("%s = %s", dst, src);
            free(dst);
            free(src);
        }
        json_array_append_new(edits, hs_edit_new(file, b->site.offset, b->site.length, replacement));
        free(replacement);
        return edits;
    }
    bool same_block = a->stmt_offset > 0 && (long long)b->site.offset < a->block_end;
    if (!a->out_param && !b->out_param && !a->sink && same_block) {
        const char *api = a->api;
        const char *base = strrchr(api, ':') ? strrchr(api, ':') + 1 : api;
        char *local = hs_printf("hs_%s_reading", base);
        const char *type = strncmp(api, "std::", 5) == 0 ? "const auto" : or_empty(a->type);
        char *decl = hs_printf("%s %s = %s;\n%s", type, local, a->text, or_empty(a->stmt_indent));
        json_array_append_new(edits, hs_edit_new(file, (size_t)a->stmt_offset, 0, decl));
        json_array_append_new(edits, hs_edit_new(file, a->site.offset, a->site.length, local));
        json_array_append_new(edits, hs_edit_new(file, b->site.offset, b->site.length, local));
        free(local);
        free(decl);
        return edits;
    }
    json_decref(edits);
    *why_not = a_kept ? "the two reads write their results differently"
                      : "the earlier reading is not kept anywhere the second read can use";
    return NULL;
}

static void judge(hs_judge_ctx *ctx)
{
    hs_timer_store *store = hs_program_store(ctx->program, &hs_family_timers);
    hs_timer_resolve(store, ctx->program, ctx->rd);
    const hs_strmap *blocking = store->blocking;
    bool hot_roots = program_has_hot_roots(ctx->program);
    size_t n = store->len;
    const hs_clock_read **sorted = hs_xcalloc(n ? n : 1, sizeof *sorted);
    for (size_t i = 0; i < n; i++)
        sorted[i] = &store->reads[i];
    qsort(sorted, n, sizeof *sorted, by_offset);
    /* earlier[j]: index in `sorted` of the nearest earlier reading that j duplicates, or -1. */
    long *earlier = hs_xcalloc(n ? n : 1, sizeof *earlier);
    for (size_t j = 0; j < n; j++) {
        earlier[j] = -1;
        const hs_clock_read *b = sorted[j];
        /* A reading combined with another is a start/end pair measuring elapsed time. */
        if (b->n_elapsed_with > 0 || !b->result_used)
            continue;
        for (size_t i = j; i-- > 0;) {
            const hs_clock_read *c = sorted[i];
            if (strcmp(or_empty(c->function), or_empty(b->function)) != 0 ||
                strcmp(or_empty(c->site.file), or_empty(b->site.file)) != 0)
                break;
            if (c->site.offset == b->site.offset)
                continue; /* one macro expansion */
            if (duplicates(c, b)) {
                earlier[j] = (long)i;
                break;
            }
        }
    }
    for (size_t j = 0; j < n; j++) {
        if (earlier[j] < 0)
            continue;
        const hs_clock_read *b = sorted[j];
        const hs_clock_read *a = sorted[earlier[j]];
        /*
         * In a chain a, b, c of reads of one clock, c's nearest earlier reading b is itself
         * being replaced. The fixes of b and c must then make the same edits, or applied
         * together they declare the same local twice: both reuse the chain's first reading.
         * When that one is not provably at hand at c, c gets no fix.
         */
        long root = earlier[j];
        while (earlier[root] >= 0)
            root = earlier[root];
        const hs_clock_read *fix_from = root == earlier[j] || duplicates(sorted[root], b) ? sorted[root] : NULL;
        long long calls_between = b->seq - a->seq - 1;
        /* A blocking or slow call in between (here or inside a callee) makes the two
         * readings different instants on purpose: never a duplicate, never a reuse fix. */
        if (b->blocking_seq > a->blocking_seq || blocks_between(ctx->program, blocking, a, b))
            continue;
        const char *confidence = calls_between > 0 ? "medium" : "high";
        /* When hot roots are known, a second read outside every hot path (start-up, config,
         * admin commands) costs nothing that matters: low, hidden by default. */
        const hs_function *f = b->function ? hs_strmap_get(ctx->program->functions, b->function) : NULL;
        bool cold = hot_roots && !b->in_loop && (!f || f->hot_depth < 0 || f->cold_only);
        if (cold)
            confidence = "low";
        char *what = hs_clock_read_name(b);
        bool cross = !same_api(a, b);
        char *message;
        if (cross) {
            char *from = hs_clock_read_name(a);
            char *conv = conversion(a, b);
            message = hs_printf("%s reads the same clock (%s) that %s read at line %u, and that reading is still "
                                "at hand on this path; take it from there (%s) instead of a second read%s",
                                what, system_clock(b), from, a->site.line, conv,
                                cold ? " (low confidence: no hot function reaches it)" : "");
            free(from);
            free(conv);
            if (!cold)
                confidence = "medium";
        } else {
            message = hs_printf("%s is read again here although the reading at line %u is "
                                "still at hand on this path; reuse it instead of a second read%s",
                                what, a->site.line, cold ? " (low confidence: no hot function reaches it)" : "");
        }
        json_t *finding = hs_finding_at("timer-duplicate", "warning", confidence, &b->site,
                                        or_empty(b->function_name), message);
        hs_finding_add_related(finding, a->site.file, a->site.line, a->site.column,
                               "the earlier read of the same clock");
        json_object_set_new(finding, "api", json_string(b->api));
        json_object_set_new(finding, "fingerprint_basis", json_string(b->text));
        json_object_set_new(finding, "calls_between", json_integer(calls_between));
        const char *why_not = NULL;
        json_t *edits = fix_from && !cross && same_api(fix_from, b) ? reuse_edits(fix_from, b, &why_not) : NULL;
        if (!fix_from)
            why_not = "the earlier reading is itself a second read, and the first one is not provably at hand here";
        else if (cross || !same_api(fix_from, b))
            why_not = "the earlier reading comes from another API: its value needs a conversion";
        if (edits)
            hs_finding_add_fix(finding, "reuse the earlier reading", edits);
        else
            json_object_set_new(finding, "fix_unavailable", json_string(why_not));
        json_object_set_new(finding, "tu_index", json_integer((json_int_t)b->tu_index));
        hs_judge_add_finding(ctx, finding);
        free(what);
        free(message);
    }
    free(earlier);
    free(sorted);
}

static const hs_fact_family *const reads[] = {&hs_family_timers, NULL};

static const char *const data_sections[] = {"timers", "clock_ids", "blocking_functions", "hot_functions", NULL};

const hs_rule hs_rule_timer_duplicate = {
    .id = "timer-duplicate",
    .summary = "The same clock read twice on one path where one reading would serve both.",
    .description = "A second read of the same clock on the same straight-line path pays the "
                   "clock's cost again for a value the first read already gave (MDEV-12345: "
                   "clock() was done twice in trx_start_low). Start/end pairs that measure "
                   "elapsed time, and reads on exclusive branches, are not flagged.",
    .doc = "docs/rules/timer-duplicate.md",
    .default_severity = "warning",
    .precision = "high", /* docs/rules/timer-duplicate.md, "Precision" */
    .data_sections = data_sections,
    .judge = judge,
    .reads = reads,
};
