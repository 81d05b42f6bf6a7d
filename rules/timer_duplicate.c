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
#include "hotscan/rules.h"

#include <stdlib.h>
#include <string.h>

static json_int_t num(json_t *o, const char *k)
{
    return json_integer_value(json_object_get(o, k));
}

static const char *s(json_t *o, const char *k)
{
    const char *v = json_string_value(json_object_get(o, k));
    return v ? v : "";
}

static bool same_clock(json_t *a, json_t *b)
{
    if (strcmp(s(a, "api"), s(b, "api")) != 0)
        return false;
    /* APIs without a clock argument read one clock; others must name the same one. */
    json_t *ia = json_object_get(a, "clock_id"), *ib = json_object_get(b, "clock_id");
    if (json_is_null(ia) || json_is_null(ib))
        return json_is_null(ia) && json_is_null(ib);
    return strcmp(json_string_value(ia), json_string_value(ib)) == 0;
}

/* Branch entries are [node_start, node_end, arm, exit_until, sampled]. */
static json_t *find_node(json_t *branches, json_int_t node)
{
    size_t i;
    json_t *e;
    json_array_foreach(branches, i, e) if (json_integer_value(json_array_get(e, 0)) == node) return e;
    return NULL;
}

/* Can `a` (earlier) and `b` (later) both run on one pass through the function? */
static bool on_one_path(json_t *a, json_t *b)
{
    json_t *ba = json_object_get(a, "branches"), *bb = json_object_get(b, "branches");
    json_int_t b_offset = num(b, "offset");
    size_t i;
    json_t *e;
    json_array_foreach(ba, i, e) {
        json_int_t node = json_integer_value(json_array_get(e, 0));
        json_int_t node_end = json_integer_value(json_array_get(e, 1));
        json_int_t arm = json_integer_value(json_array_get(e, 2));
        json_int_t exit_until = json_integer_value(json_array_get(e, 3));
        json_t *other = find_node(bb, node);
        if (other && json_integer_value(json_array_get(other, 2)) != arm)
            return false; /* different arms of one if/switch/?: */
        if (!other && exit_until > 0 && b_offset > node_end && b_offset <= exit_until)
            return false; /* a's arm returns, breaks or continues before b */
    }
    return true;
}

static bool combined(json_t *read)
{
    return json_array_size(json_object_get(read, "elapsed_with")) > 0;
}

static int by_offset(const void *pa, const void *pb)
{
    json_t *a = *(json_t *const *)pa, *b = *(json_t *const *)pb;
    int c = strcmp(s(a, "function"), s(b, "function"));
    if (c)
        return c;
    c = strcmp(s(a, "file"), s(b, "file"));
    if (c)
        return c;
    return num(a, "offset") < num(b, "offset") ? -1 : num(a, "offset") > num(b, "offset");
}

static void judge(hs_judge_ctx *ctx)
{
    json_t *reads = ctx->program->clock_reads;
    size_t n = json_array_size(reads);
    json_t **sorted = hs_xcalloc(n ? n : 1, sizeof(json_t *));
    for (size_t i = 0; i < n; i++)
        sorted[i] = json_array_get(reads, i);
    qsort(sorted, n, sizeof(json_t *), by_offset);
    for (size_t j = 0; j < n; j++) {
        json_t *b = sorted[j];
        if (combined(b) || !json_is_true(json_object_get(b, "result_used")))
            continue;
        /* The nearest earlier reading in the same function that b duplicates. */
        json_t *a = NULL;
        for (size_t i = j; i-- > 0;) {
            json_t *c = sorted[i];
            if (strcmp(s(c, "function"), s(b, "function")) != 0 || strcmp(s(c, "file"), s(b, "file")) != 0)
                break;
            if (num(c, "offset") == num(b, "offset"))
                continue; /* one macro expansion */
            if (same_clock(c, b) && strcmp(s(c, "loop_path"), s(b, "loop_path")) == 0 &&
                num(c, "lambda") == num(b, "lambda") &&
                json_is_true(json_object_get(c, "result_used")) && on_one_path(c, b)) {
                a = c;
                break;
            }
        }
        if (!a)
            continue;
        json_int_t calls_between = num(b, "seq") - num(a, "seq") - 1;
        /* A blocking or slow call in between makes distinct readings plausible. */
        bool blocked_between = num(b, "blocking_seq") > num(a, "blocking_seq");
        const char *confidence = blocked_between ? "low" : calls_between > 0 ? "medium" : "high";
        const char *api = s(b, "api");
        json_t *clock_id = json_object_get(b, "clock_id");
        char *what = json_is_string(clock_id) ? hs_printf("%s(%s)", api, json_string_value(clock_id))
                                              : hs_printf("%s()", api);
        char *message = hs_printf("%s is read again here although the reading at line %lld is "
                                  "still at hand on this path; reuse it instead of a second read",
                                  what, (long long)num(a, "line"));
        json_t *finding = hs_finding_new("timer-duplicate", "warning", confidence, b,
                                         s(b, "function_name"), message);
        hs_finding_add_related(finding, s(a, "file"), (unsigned)num(a, "line"),
                               (unsigned)num(a, "column"), "the earlier read of the same clock");
        json_object_set(finding, "api", json_object_get(b, "api"));
        json_object_set(finding, "fingerprint_basis", json_object_get(b, "text"));
        json_object_set_new(finding, "calls_between", json_integer(calls_between));
        json_array_append_new(ctx->findings, finding);
        free(what);
        free(message);
    }
    free(sorted);
}

const hs_rule hs_rule_timer_duplicate = {
    .id = "timer-duplicate",
    .summary = "The same clock read twice on one path where one reading would serve both.",
    .description = "A second read of the same clock on the same straight-line path pays the "
                   "clock's cost again for a value the first read already gave (MDEV-12345: "
                   "clock() was done twice in trx_start_low). Start/end pairs that measure "
                   "elapsed time, and reads on exclusive branches, are not flagged.",
    .doc = "docs/rules/timer-duplicate.md",
    .judge = judge,
};
