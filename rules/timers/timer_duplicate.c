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
    json_int_t a_offset = num(a, "offset");
    /* b in a block segment after an always-leaving statement; a earlier in that block. */
    size_t k;
    json_t *seg;
    json_array_foreach(bb, k, seg) {
        json_int_t node = json_integer_value(json_array_get(seg, 0));
        json_int_t node_end = json_integer_value(json_array_get(seg, 1));
        if (json_integer_value(json_array_get(seg, 3)) == -1 && a_offset >= node && a_offset <= node_end &&
            !find_node(json_object_get(a, "branches"), node))
            return false;
    }
    size_t i;
    json_t *e;
    json_array_foreach(ba, i, e) {
        json_int_t node = json_integer_value(json_array_get(e, 0));
        json_int_t node_end = json_integer_value(json_array_get(e, 1));
        json_int_t arm = json_integer_value(json_array_get(e, 2));
        json_int_t exit_until = json_integer_value(json_array_get(e, 3));
        json_t *other = find_node(bb, node);
        if (other && json_integer_value(json_array_get(other, 2)) != arm)
            return false; /* different arms of one if/switch/?:, or block segments */
        if (exit_until < 0 && !other && b_offset >= node && b_offset <= node_end)
            return false; /* a later segment of the block b is in, which a's cannot reach */
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

/*
 * Reuse the earlier reading. When it is kept in a name nothing changes before the
 * second read, the second read becomes that name (`t->b = clock();` -> `t->b = t->a;`;
 * for out-parameters, a copy). When both results are used directly, one local holds
 * the reading. NULL with the reason when neither applies.
 */
static json_t *reuse_edits(json_t *a, json_t *b, const char **why_not)
{
    const char *file = s(b, "file");
    json_int_t modified = json_is_integer(json_object_get(a, "sink_modified_at"))
                              ? num(a, "sink_modified_at") : -1;
    bool a_kept = json_object_get(a, "sink_text") && (modified < 0 || modified > num(b, "offset"));
    bool a_out = json_is_true(json_object_get(a, "out_param"));
    bool b_out = json_is_true(json_object_get(b, "out_param"));
    if (json_is_true(json_object_get(b, "macro")) || json_is_true(json_object_get(a, "macro"))) {
        *why_not = "a read is written through a macro";
        return NULL;
    }
    json_t *edits = json_array();
    if (a_kept && a_out == b_out) {
        char *replacement;
        if (!b_out) {
            replacement = hs_text_operand(s(a, "sink_text"));
        } else {
            /* `clock_gettime(id, &b)` as a statement -> `b = a` */
            if (json_is_true(json_object_get(b, "result_used")) && !json_object_get(b, "sink_text")) {
                json_decref(edits);
                *why_not = "the second call's status is used";
                return NULL;
            }
            char *dst = hs_text_deref(s(b, "sink_text"));
            char *src = hs_text_deref(s(a, "sink_text"));
            replacement = hs_printf("%s = %s", dst, src);
            free(dst);
            free(src);
        }
        json_array_append_new(edits, hs_edit_new(file, (size_t)num(b, "offset"), (size_t)num(b, "length"), replacement));
        free(replacement);
        return edits;
    }
    bool same_block = num(a, "stmt_offset") > 0 && num(b, "offset") < num(a, "block_end");
    if (!a_out && !b_out && !json_is_string(json_object_get(a, "sink")) && same_block) {
        const char *api = s(a, "api");
        const char *base = strrchr(api, ':') ? strrchr(api, ':') + 1 : api;
        char *local = hs_printf("hs_%s_reading", base);
        const char *type = strncmp(api, "std::", 5) == 0 ? "const auto" : s(a, "type");
        char *decl = hs_printf("%s %s = %s;\n%s", type, local, s(a, "text"), s(a, "stmt_indent"));
        json_array_append_new(edits, hs_edit_new(file, (size_t)num(a, "stmt_offset"), 0, decl));
        json_array_append_new(edits, hs_edit_new(file, (size_t)num(a, "offset"), (size_t)num(a, "length"), local));
        json_array_append_new(edits, hs_edit_new(file, (size_t)num(b, "offset"), (size_t)num(b, "length"), local));
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
        const char *why_not = NULL;
        json_t *edits = reuse_edits(a, b, &why_not);
        if (edits)
            hs_finding_add_fix(finding, "reuse the earlier reading", edits);
        else
            json_object_set_new(finding, "fix_unavailable", json_string(why_not));
        json_object_set(finding, "tu_index", json_object_get(b, "tu_index"));
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
