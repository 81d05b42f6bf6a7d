/*
 * test_atomic_verdict.c - unit tests for atomic-seqcst-counter (rules/atomics/atomic_seqcst_counter.c)
 * and the memory-order decoding of the atomics extractor (rules/atomics/collect_atomics.c), both
 * through the public API only.
 *
 * The verdict tests build facts documents by hand, in the shape the extractor records them,
 * merge them into an hs_program and run the rule: a counter's seq_cst operations are each
 * flagged and its relaxed ones are not; each disqualifier alone makes the variable not a
 * counter; uses split over two TUs are judged together.
 *
 * The decoding tests parse small real C and C++ files with hs_extract_tu and check the
 * "order" (and "op") of the fact recorded on each line.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <clang-c/Index.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hotscan/extract.h"
#include "hotscan/program.h"
#include "hotscan/ruledata.h"
#include "hotscan/rules.h"
#include "atomics/atomic_facts.h"

#ifndef HOTSCAN_TEST_RULES_DIR
#error "tests/CMakeLists.txt must define HOTSCAN_TEST_RULES_DIR"
#endif

/* ---- facts by hand ---------------------------------------------------------------- */

#define VAR "c:@stat_requests"
#define OTHER "c:@obj_refs"

/* One atomic-operation fact on line `line` of `file`, as record() writes it. */
static json_t *fact_in(const char *file, const char *var, const char *op, const char *order,
                       const char *use, int line)
{
    const char *name = strcmp(var, VAR) == 0 ? "stat_requests" : "obj_refs";
    json_t *f = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:i, "
                          "s:i, s:s, s:i}",
                          "var", var, "var_name", name, "op", op, "order", order, "form", "member", "api",
                          op, "use", use, "function", "c:@F@handle_request", "function_name",
                          "handle_request", "file", file, "line", line, "column", 5, "offset", line * 100 + 4,
                          "end_line", line, "end_column", 25, "length", 20, "text", "stat_requests.op()",
                          "ordinal", 0);
    assert_non_null(f);
    json_object_set_new(f, "var_decl", json_pack("{s:s, s:i, s:i}", "file", file, "line", 2, "column", 30));
    return f;
}

static json_t *fact(const char *op, const char *order, const char *use, int line)
{
    return fact_in("/src/server.cc", VAR, op, order, use, line);
}

/* A store of a constant (a reset) or of a computed value. */
static json_t *store(const char *order, bool constant, json_int_t value, int line)
{
    json_t *f = fact("store", order, "discarded", line);
    json_object_set_new(f, "value_constant", json_boolean(constant));
    if (constant)
        json_object_set_new(f, "value", json_integer(value));
    return f;
}

/* A TU's summary of plain (non-atomic) uses of an integer, as hs_extract_tu appends it. */
static json_t *plain(const char *kind)
{
    json_t *f = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:i, s:{s:i, s:{s:s, s:i, s:i}}}", "var", VAR,
                          "var_name", "stat_requests", "op", "plain", "order", "n/a", "function", "", "file",
                          "/src/status.c", "offset", 0, "ordinal", 0, "plain", kind, 1, "at", "file",
                          "/src/status.c", "line", 40, "column", 9);
    assert_non_null(f);
    /* The position of the first use of a kind is kept as "<kind>_at". */
    json_t *counts = json_object_get(f, "plain");
    char *at = hs_printf("%s_at", kind);
    json_object_set(counts, at, json_object_get(counts, "at"));
    json_object_del(counts, "at");
    free(at);
    return f;
}

/* Merges facts (a NULL-terminated list, stolen) as one TU. */
static void merge_tu(hs_program *p, ...)
{
    json_t *atomics = json_array();
    va_list ap;
    va_start(ap, p);
    for (json_t *f; (f = va_arg(ap, json_t *)) != NULL;)
        json_array_append_new(atomics, f);
    va_end(ap);
    json_t *doc = json_pack("{s:o, s:[], s:[]}", "atomics", atomics, "functions", "calls");
    assert_non_null(doc);
    hs_program_merge(p, doc);
    json_decref(doc);
}

/* Runs the rule; the caller owns the findings. */
static json_t *judge(const hs_program *p)
{
    const hs_rule *rule = hs_rule_find("atomic-seqcst-counter");
    assert_non_null(rule);
    hs_ruledata *rd = hs_ruledata_create();
    hs_judge_ctx ctx = {.program = p, .rd = rd, .fix_level = HS_FIX_SAFE, .findings = json_array(),
                        .extra = json_object()};
    rule->judge(&ctx);
    json_decref(ctx.extra);
    hs_ruledata_delete(rd);
    return ctx.findings;
}

static json_t *finding_on_line(json_t *findings, int line)
{
    size_t i;
    json_t *f;
    json_array_foreach(findings, i, f) {
        if (json_integer_value(json_object_get(f, "line")) == line)
            return f;
    }
    return NULL;
}

static void assert_flagged_lines(json_t *findings, const int *lines, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!finding_on_line(findings, lines[i]))
            fail_msg("no finding on line %d", lines[i]);
    }
    assert_int_equal(json_array_size(findings), n);
    size_t i;
    json_t *f;
    json_array_foreach(findings, i, f) {
        assert_string_equal(json_string_value(json_object_get(f, "rule")), "atomic-seqcst-counter");
    }
}

/* ---- the verdict -------------------------------------------------------------------- */

static void test_counter_each_seqcst_op_flagged(void **state)
{
    (void)state;
    hs_program *p = hs_program_create();
    merge_tu(p, fact("fetch_add", "seq_cst", "discarded", 10), fact("add_fetch", "seq_cst", "discarded", 11),
             fact("fetch_add", "relaxed", "discarded", 12), fact("fetch_sub", "seq_cst", "discarded", 13),
             fact("load", "seq_cst", "value", 14), fact("load", "relaxed", "value", 15),
             store("seq_cst", true, 0, 16), store("relaxed", true, 0, 17), fact("load", "acquire", "value", 18),
             NULL);
    json_t *findings = judge(p);
    const int want[] = {10, 11, 13, 14, 16};
    assert_flagged_lines(findings, want, sizeof want / sizeof want[0]);

    json_t *add = finding_on_line(findings, 10);
    assert_string_equal(json_string_value(json_object_get(add, "variable")), "stat_requests");
    assert_string_equal(json_string_value(json_object_get(add, "operation")), "fetch_add");
    assert_string_equal(json_string_value(json_object_get(add, "function")), "handle_request");
    const char *message = json_string_value(json_object_get(add, "message"));
    assert_non_null(strstr(message, "stat_requests"));
    assert_non_null(strstr(message, "memory_order_relaxed"));
    /* The declaration goes in related. */
    json_t *related = json_object_get(add, "related");
    assert_int_equal(json_array_size(related), 1);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(related, 0), "line")), 2);
    /* Adds run on the hot path; loads and resets matter less. */
    assert_string_equal(json_string_value(json_object_get(add, "confidence")), "high");
    assert_string_equal(json_string_value(json_object_get(finding_on_line(findings, 14), "confidence")), "medium");
    assert_string_equal(json_string_value(json_object_get(finding_on_line(findings, 16), "confidence")), "low");
    json_decref(findings);
    hs_program_delete(p);
}

static void test_relaxed_counter_not_flagged(void **state)
{
    (void)state;
    hs_program *p = hs_program_create();
    merge_tu(p, fact("fetch_add", "relaxed", "discarded", 10), fact("load", "relaxed", "value", 11),
             store("relaxed", true, 0, 12), NULL);
    json_t *findings = judge(p);
    assert_int_equal(json_array_size(findings), 0);
    json_decref(findings);
    hs_program_delete(p);
}

static void test_unknown_order_not_flagged(void **state)
{
    (void)state;
    hs_program *p = hs_program_create();
    merge_tu(p, fact("fetch_add", "unknown", "discarded", 10), fact("fetch_add", "seq_cst", "discarded", 11), NULL);
    json_t *findings = judge(p);
    const int want[] = {11};
    assert_flagged_lines(findings, want, 1);
    json_decref(findings);
    hs_program_delete(p);
}

static void test_no_add_is_not_a_counter(void **state)
{
    (void)state;
    hs_program *p = hs_program_create();
    merge_tu(p, fact("load", "seq_cst", "value", 10), store("seq_cst", true, 0, 11), NULL);
    json_t *findings = judge(p);
    assert_int_equal(json_array_size(findings), 0);
    json_decref(findings);
    hs_program_delete(p);
}

/* A disqualifying use next to an otherwise perfect counter: nothing may be flagged. */
static void assert_disqualified(json_t *disqualifier)
{
    hs_program *p = hs_program_create();
    merge_tu(p, fact("fetch_add", "seq_cst", "discarded", 10), fact("add_fetch", "seq_cst", "value", 11),
             fact("load", "seq_cst", "value", 12), store("seq_cst", true, 0, 13), disqualifier, NULL);
    json_t *findings = judge(p);
    if (json_array_size(findings) != 0)
        fail_msg("%zu finding(s), the first on line %lld", json_array_size(findings),
                 (long long)json_integer_value(json_object_get(json_array_get(findings, 0), "line")));
    json_decref(findings);
    hs_program_delete(p);
}

static void test_cas_disqualifies(void **state)
{
    (void)state;
    assert_disqualified(fact("cas", "seq_cst", "condition", 20));
    assert_disqualified(fact("cas", "relaxed", "discarded", 20)); /* whatever its order */
}

static void test_exchange_disqualifies(void **state)
{
    (void)state;
    assert_disqualified(fact("exchange", "seq_cst", "value", 20));
}

static void test_bitwise_disqualifies(void **state)
{
    (void)state;
    assert_disqualified(fact("bitwise", "seq_cst", "discarded", 20));
}

static void test_escape_disqualifies(void **state)
{
    (void)state;
    json_t *f = fact("escape", "n/a", "value", 20);
    json_object_set_new(f, "form", json_string("escape"));
    assert_disqualified(f);
}

static void test_wait_and_other_disqualify(void **state)
{
    (void)state;
    assert_disqualified(fact("wait", "seq_cst", "discarded", 20));
    assert_disqualified(fact("other", "seq_cst", "discarded", 20));
}

static void test_add_result_in_condition_disqualifies(void **state)
{
    (void)state;
    assert_disqualified(fact("add_fetch", "seq_cst", "condition", 20));
    assert_disqualified(fact("fetch_add", "seq_cst", "loop_condition", 20));
    assert_disqualified(fact("sub_fetch", "seq_cst", "condition", 20)); /* if (--refs == 0) */
}

static void test_decrement_result_used_disqualifies(void **state)
{
    (void)state;
    assert_disqualified(fact("fetch_sub", "seq_cst", "value", 20));    /* bool last = refs.fetch_sub(1) - 1 */
    assert_disqualified(fact("sub_fetch", "seq_cst", "returned", 20)); /* return --refs; */
}

static void test_computed_store_disqualifies(void **state)
{
    (void)state;
    assert_disqualified(store("seq_cst", false, 0, 20));
    assert_disqualified(store("relaxed", false, 0, 20));
}

static void test_load_in_loop_condition_disqualifies(void **state)
{
    (void)state;
    assert_disqualified(fact("load", "seq_cst", "loop_condition", 20));
    assert_disqualified(fact("load", "acquire", "loop_condition", 20));
}

static void test_plain_uses_disqualify(void **state)
{
    (void)state;
    assert_disqualified(plain("address_taken"));
    assert_disqualified(plain("writes_computed"));
    assert_disqualified(plain("loads_loop_condition"));
}

/* A store of a parameter as given (value_parameter): a setter's new total. */
static json_t *setter(int line)
{
    json_t *f = store("seq_cst", false, 0, line);
    json_object_set_new(f, "value_parameter", json_true());
    return f;
}

static void test_setter_is_a_reset(void **state)
{
    (void)state;
    hs_program *p = hs_program_create();
    merge_tu(p, fact("fetch_add", "seq_cst", "discarded", 10), fact("load", "seq_cst", "value", 11), setter(12),
             store("seq_cst", true, 0, 13), NULL);
    json_t *findings = judge(p);
    const int want[] = {10, 11, 12, 13};
    assert_flagged_lines(findings, want, 4);
    assert_string_equal(json_string_value(json_object_get(finding_on_line(findings, 12), "confidence")), "low");
    json_decref(findings);
    hs_program_delete(p);
}

static void test_setter_of_a_tested_value_disqualifies(void **state)
{
    (void)state;
    /* Set from a parameter and compared with a waiter's target: a published value. */
    hs_program *p = hs_program_create();
    json_t *limit = fact("load", "seq_cst", "condition", 11);
    json_object_set_new(limit, "limit_test", json_true());
    merge_tu(p, fact("fetch_add", "seq_cst", "discarded", 10), limit, setter(12), NULL);
    json_t *findings = judge(p);
    assert_int_equal(json_array_size(findings), 0);
    json_decref(findings);
    hs_program_delete(p);
}

/* A TU's summary with one plain update of stat_requests at `line` (beside: the other arm of
 * a branch that updates it atomically). */
static json_t *plain_update(int line, bool beside, bool decrement)
{
    json_t *f = plain("updates");
    json_t *counts = json_object_get(f, "plain");
    json_t *site = json_pack("{s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:s, s:s}", "file", "/src/status.c", "line", line,
                             "column", 5, "end_line", line, "end_column", 20, "offset", line * 100 + 4, "length", 15,
                             "function_name", "count_internal", "text", "stat_requests++");
    if (beside)
        json_object_set_new(site, "beside", json_true());
    json_object_set_new(counts, "updates_sites", json_pack("[o]", site));
    if (decrement)
        json_object_set_new(counts, "decrements", json_integer(1));
    return f;
}

/* Runs a rule by id; the caller owns the findings. */
static json_t *judge_rule(const hs_program *p, const char *id)
{
    const hs_rule *rule = hs_rule_find(id);
    assert_non_null(rule);
    hs_ruledata *rd = hs_ruledata_create();
    hs_judge_ctx ctx = {.program = p, .rd = rd, .fix_level = HS_FIX_SAFE, .findings = json_array(),
                        .extra = json_object()};
    rule->judge(&ctx);
    json_decref(ctx.extra);
    hs_ruledata_delete(rd);
    return ctx.findings;
}

static void test_plain_update_keeps_counter_without_fix(void **state)
{
    (void)state;
    hs_program *p = hs_program_create();
    merge_tu(p, fact("fetch_add", "seq_cst", "discarded", 10), fact("load", "seq_cst", "value", 11), NULL);
    merge_tu(p, plain_update(40, false, false), NULL);
    json_t *findings = judge(p);
    const int want[] = {10, 11};
    assert_flagged_lines(findings, want, 2);
    const char *why = json_string_value(json_object_get(finding_on_line(findings, 10), "fix_unavailable"));
    assert_non_null(why);
    assert_non_null(strstr(why, "status.c:40"));
    json_decref(findings);

    json_t *races = judge_rule(p, "atomic-mixed-access");
    assert_int_equal(json_array_size(races), 1);
    json_t *race = json_array_get(races, 0);
    assert_int_equal(json_integer_value(json_object_get(race, "line")), 40);
    assert_string_equal(json_string_value(json_object_get(race, "confidence")), "medium");
    assert_string_equal(json_string_value(json_object_get(race, "function")), "count_internal");
    assert_int_equal(json_array_size(json_object_get(race, "fixes")), 0);
    assert_non_null(json_object_get(race, "fix_unavailable"));
    json_decref(races);
    hs_program_delete(p);
}

static void test_plain_update_fallback_arm(void **state)
{
    (void)state;
    /* `if (threaded) atomic_add(&x); else x++;`: the atomic add keeps its fix, the race is low. */
    hs_program *p = hs_program_create();
    json_t *add = fact("fetch_add", "seq_cst", "discarded", 10);
    json_object_set_new(add, "form", json_string("gnu"));
    json_object_set_new(add, "span", json_pack("{s:i, s:i, s:s}", "offset", 1004, "length", 45, "text",
                                               "__atomic_fetch_add(&stat_requests, 1, __ATOMIC_SEQ_CST)"));
    merge_tu(p, add, plain_update(12, true, false), NULL);
    json_t *findings = judge(p);
    const int want[] = {10};
    assert_flagged_lines(findings, want, 1);
    assert_int_equal(json_array_size(json_object_get(json_array_get(findings, 0), "fixes")), 1);
    json_decref(findings);
    json_t *races = judge_rule(p, "atomic-mixed-access");
    assert_int_equal(json_array_size(races), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(races, 0), "confidence")), "low");
    json_decref(races);
    hs_program_delete(p);
}

static void test_plain_decrement_is_a_decrement(void **state)
{
    (void)state;
    /* `refs--;` written plainly, then `if (!refs)`: a reference count's test. */
    hs_program *p = hs_program_create();
    merge_tu(p, fact("add_fetch", "seq_cst", "discarded", 10), fact("load", "seq_cst", "condition", 12), NULL);
    merge_tu(p, plain_update(40, false, true), NULL);
    json_t *findings = judge(p);
    assert_int_equal(json_array_size(findings), 0);
    json_decref(findings);
    hs_program_delete(p);
}

static void test_plain_update_without_atomic_update(void **state)
{
    (void)state;
    /* Only loaded atomically: no atomic update to race with, and nothing adds atomically. */
    hs_program *p = hs_program_create();
    merge_tu(p, fact("load", "seq_cst", "value", 11), plain_update(40, false, false), NULL);
    json_t *races = judge_rule(p, "atomic-mixed-access");
    assert_int_equal(json_array_size(races), 0);
    json_decref(races);
    json_t *findings = judge(p);
    assert_int_equal(json_array_size(findings), 0);
    json_decref(findings);
    hs_program_delete(p);
}

static void test_two_constants_is_a_flag(void **state)
{
    (void)state;
    /* Set to 1 and to 0: a flag, not a counter's reset. */
    assert_disqualified(store("seq_cst", true, 1, 20));
}

static void test_decremented_and_tested_is_not_a_counter(void **state)
{
    (void)state;
    hs_program *p = hs_program_create();
    merge_tu(p, fact("add_fetch", "seq_cst", "discarded", 10), fact("sub_fetch", "seq_cst", "discarded", 11),
             fact("load", "seq_cst", "condition", 12), NULL);
    json_t *findings = judge(p);
    assert_int_equal(json_array_size(findings), 0);
    json_decref(findings);
    hs_program_delete(p);
}

static void test_load_in_if_condition_still_counter(void **state)
{
    (void)state;
    hs_program *p = hs_program_create();
    merge_tu(p, fact("fetch_add", "seq_cst", "discarded", 10), fact("load", "seq_cst", "condition", 11), NULL);
    json_t *findings = judge(p);
    const int want[] = {10, 11};
    assert_flagged_lines(findings, want, 2);
    json_decref(findings);
    hs_program_delete(p);
}

static void test_index_and_ticket_uses_still_counter(void **state)
{
    (void)state;
    hs_program *p = hs_program_create();
    /* index = counter++ % size; return ++next_id; plain reads for a report */
    merge_tu(p, fact("fetch_add", "seq_cst", "value", 10), fact("add_fetch", "seq_cst", "returned", 11),
             plain("reads"), NULL);
    json_t *findings = judge(p);
    const int want[] = {10, 11};
    assert_flagged_lines(findings, want, 2);
    json_decref(findings);
    hs_program_delete(p);
}

static void test_gauge_with_discarded_decrements_is_counter(void **state)
{
    (void)state;
    hs_program *p = hs_program_create();
    merge_tu(p, fact("add_fetch", "seq_cst", "discarded", 10), fact("sub_fetch", "seq_cst", "discarded", 11),
             fact("load", "seq_cst", "value", 12), NULL);
    json_t *findings = judge(p);
    const int want[] = {10, 11, 12};
    assert_flagged_lines(findings, want, 3);
    json_decref(findings);
    hs_program_delete(p);
}

static void test_variables_judged_apart(void **state)
{
    (void)state;
    hs_program *p = hs_program_create();
    merge_tu(p, fact("fetch_add", "seq_cst", "discarded", 10),
             fact_in("/src/server.cc", OTHER, "fetch_add", "seq_cst", "discarded", 11),
             fact_in("/src/server.cc", OTHER, "fetch_sub", "seq_cst", "condition", 12), NULL);
    json_t *findings = judge(p);
    const int want[] = {10};
    assert_flagged_lines(findings, want, 1);
    json_decref(findings);
    hs_program_delete(p);
}

static void test_uses_split_over_two_tus(void **state)
{
    (void)state;
    /* Incremented in one TU, read and reset in another: a counter in both. */
    hs_program *p = hs_program_create();
    merge_tu(p, fact_in("/src/net.cc", VAR, "fetch_add", "seq_cst", "discarded", 10), NULL);
    merge_tu(p, fact_in("/src/status.cc", VAR, "load", "seq_cst", "value", 20),
             fact_in("/src/status.cc", VAR, "fetch_add", "relaxed", "discarded", 21), NULL);
    json_t *findings = judge(p);
    const int want[] = {10, 20};
    assert_flagged_lines(findings, want, 2);
    json_decref(findings);
    hs_program_delete(p);

    /* Incremented in one TU, compared-and-swapped in another: nothing, in either. */
    p = hs_program_create();
    merge_tu(p, fact_in("/src/trx.c", VAR, "fetch_add", "seq_cst", "value", 10), NULL);
    merge_tu(p, fact_in("/src/recv.c", VAR, "cas", "seq_cst", "loop_condition", 30), NULL);
    findings = judge(p);
    assert_int_equal(json_array_size(findings), 0);
    json_decref(findings);
    hs_program_delete(p);
}

static void test_header_fact_counted_once(void **state)
{
    (void)state;
    /* An inline function in a header: both TUs record the same operation. */
    hs_program *p = hs_program_create();
    merge_tu(p, fact_in("/src/status.h", VAR, "fetch_add", "seq_cst", "discarded", 7), NULL);
    merge_tu(p, fact_in("/src/status.h", VAR, "fetch_add", "seq_cst", "discarded", 7), NULL);
    json_t *findings = judge(p);
    const int want[] = {7};
    assert_flagged_lines(findings, want, 1);
    assert_non_null(strstr(json_string_value(json_object_get(json_array_get(findings, 0), "message")), "1 add"));
    json_decref(findings);
    hs_program_delete(p);
}

static void test_plain_uses_of_later_tus_count(void **state)
{
    (void)state;
    /* TU 1 reads it plainly, TU 2 adds to it, TU 3 writes it plainly with a computed value:
     * the summaries fold into one, and the third TU's write still disqualifies. */
    hs_program *p = hs_program_create();
    merge_tu(p, plain("reads"), NULL);
    merge_tu(p, fact("fetch_add", "seq_cst", "discarded", 10), NULL);
    json_t *findings = judge(p);
    const int want[] = {10};
    assert_flagged_lines(findings, want, 1);
    json_decref(findings);
    json_t *write = plain("writes_computed");
    json_object_set_new(write, "file", json_string("/src/other.c"));
    merge_tu(p, write, NULL);
    findings = judge(p);
    assert_int_equal(json_array_size(findings), 0);
    json_decref(findings);
    assert_int_equal(hs_atomic_facts(p)->len, 2);
    hs_program_delete(p);
}

/* ---- the typed facts ---------------------------------------------------------------- */

/* Merges `facts` (stolen) as TU number `tu_index`. */
static void merge_indexed(hs_program *p, json_int_t tu_index, json_t *facts)
{
    json_t *doc = json_pack("{s:[o], s:[], s:[], s:I}", "atomics", facts, "functions", "calls", "tu_index",
                            tu_index);
    assert_non_null(doc);
    hs_program_merge(p, doc);
    json_decref(doc);
}

static void test_typed_facts(void **state)
{
    (void)state;
    hs_program *p = hs_program_create();
    /* A header's operation seen by TUs 3 and 5 is kept once, as TU 3 saw it. */
    json_t *op = store("seq_cst", true, 0, 7);
    json_object_set_new(op, "file", json_string("/src/status.h"));
    json_object_set_new(op, "span", json_pack("{s:i, s:i, s:s}", "offset", 704, "length", 20, "text",
                                              "stat_requests.op()"));
    json_object_set_new(op, "order_offset", json_integer(717));
    json_object_set_new(op, "order_length", json_integer(4));
    merge_indexed(p, 3, json_deep_copy(op));
    merge_indexed(p, 5, op);
    /* Each TU's plain summary of a variable is added to its one summary: counts summed,
     * each kind's first place the first TU's that has one. */
    merge_indexed(p, 3, plain("writes_computed"));
    json_t *other = plain("reads");
    json_object_set_new(other, "file", json_string("/src/net.c"));
    merge_indexed(p, 5, other);
    json_t *third = plain("writes_computed");
    json_object_set_new(third, "file", json_string("/src/io.c"));
    json_object_set_new(json_object_get(json_object_get(third, "plain"), "writes_computed_at"), "line",
                        json_integer(90));
    merge_indexed(p, 6, third);

    const hs_atomic_store *s = hs_atomic_facts(p);
    assert_int_equal(s->len, 2);
    const hs_atomic_op *a = &s->ops[0];
    assert_int_equal(a->tu_index, 3);
    assert_string_equal(a->site.file, "/src/status.h");
    assert_int_equal(a->site.line, 7);
    assert_int_equal(a->site.end_column, 25);
    assert_int_equal(a->op, HS_AOP_STORE);
    assert_string_equal(a->op_name, "store");
    assert_int_equal(a->order, HS_AORDER_SEQ_CST);
    assert_int_equal(a->use, HS_AUSE_DISCARDED);
    assert_int_equal(a->form, HS_AFORM_MEMBER);
    assert_true(a->value_constant);
    assert_true(a->has_value);
    assert_int_equal(a->value, 0);
    assert_null(a->value_text);
    assert_true(a->has_span);
    assert_int_equal(a->span.offset, 704);
    assert_string_equal(a->span.text, "stat_requests.op()");
    assert_false(a->has_spelled);
    assert_null(a->macro_name);
    assert_true(a->has_order_arg);
    assert_int_equal(a->order_offset, 717);
    assert_string_equal(a->var, VAR);
    assert_string_equal(a->var_decl.file, "/src/server.cc");
    assert_int_equal(a->var_decl.column, 30);

    const hs_atomic_op *pl = &s->ops[1];
    assert_int_equal(pl->op, HS_AOP_PLAIN);
    assert_int_equal(pl->order, HS_AORDER_NA);
    assert_int_equal(pl->use, HS_AUSE_NONE);
    assert_int_equal(pl->form, HS_AFORM_NONE);
    assert_non_null(pl->plain);
    assert_null(a->plain);
    assert_int_equal(pl->tu_index, 3);
    assert_string_equal(pl->site.file, "/src/status.c");
    assert_int_equal(pl->plain->writes_computed.count, 2);
    assert_string_equal(pl->plain->writes_computed.first.file, "/src/status.c");
    assert_int_equal(pl->plain->writes_computed.first.line, 40);
    assert_int_equal(pl->plain->reads.count, 1);
    assert_string_equal(pl->plain->reads.first.file, "/src/status.c");
    assert_int_equal(pl->plain->loads_condition.count, 0);
    assert_null(pl->plain->loads_condition.first.file);
    hs_program_delete(p);
}

/* An operator on std::atomic (`text` as written, `operand` its value or NULL) as record()
 * writes it, with the facts note_rewrite_shape gives it: `shape` holds 'w' whole_statement,
 * 'i' operand_integer, 't' sum_keeps_type, 'r' operand_repeatable, 'n' value_narrow. */
static json_t *operator_fact(const char *op, const char *use, int line, const char *text, const char *operand,
                             const char *shape)
{
    json_t *f = fact(op, "seq_cst", use, line);
    json_object_set_new(f, "form", json_string("operator"));
    json_object_set_new(f, "text", json_string(text));
    json_object_set_new(f, "object_text", json_string("stat_requests"));
    json_object_set_new(f, "span", json_pack("{s:i, s:i, s:s}", "offset", line * 100 + 4, "length",
                                             (json_int_t)strlen(text), "text", text));
    if (operand) {
        json_object_set_new(f, "value_operand", json_true());
        json_object_set_new(f, "value_text", json_string(operand));
    }
    static const struct {
        char letter;
        const char *key;
    } keys[] = {{'w', "whole_statement"}, {'i', "operand_integer"}, {'t', "sum_keeps_type"},
                {'r', "operand_repeatable"}, {'n', "value_narrow"}};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        if (strchr(shape, keys[k].letter))
            json_object_set_new(f, keys[k].key, json_true());
    return f;
}

/* The one replacement the finding on `line` offers, or NULL when it has no fix. */
static const char *replacement_on_line(json_t *findings, int line)
{
    json_t *f = finding_on_line(findings, line);
    if (!f)
        fail_msg("no finding on line %d", line);
    json_t *fixes = json_object_get(f, "fixes");
    if (json_array_size(fixes) == 0)
        return NULL;
    json_t *edits = json_object_get(json_array_get(fixes, 0), "edits");
    assert_int_equal(json_array_size(edits), 1);
    return json_string_value(json_object_get(json_array_get(edits, 0), "replacement"));
}

static void assert_no_fix_because(json_t *findings, int line, const char *why)
{
    assert_null(replacement_on_line(findings, line));
    const char *got = json_string_value(json_object_get(finding_on_line(findings, line), "fix_unavailable"));
    if (!got || !strstr(got, why))
        fail_msg("line %d: fix_unavailable \"%s\", expected it to say \"%s\"", line, got ? got : "", why);
}

/* An operator's rewrite keeps its value wherever a configuration could use it: the bare
 * call only for a statement of its own with nothing conditional around it; else `old + n`
 * when that has the operator's type and n may be evaluated twice; else no fix. */
static void test_operator_fix_keeps_value(void **state)
{
    (void)state;
    hs_program *p = hs_program_create();
    json_t *reset = operator_fact("store", "discarded", 18, "stat_requests = 0", "0", "");
    json_object_set_new(reset, "value_constant", json_true());
    json_object_set_new(reset, "value", json_integer(0));
    json_t *reset_alone = json_deep_copy(reset);
    json_object_set_new(reset_alone, "line", json_integer(19));
    json_object_set_new(reset_alone, "offset", json_integer(19 * 100 + 4));
    json_object_set_new(reset_alone, "whole_statement", json_true());
    merge_tu(p, operator_fact("add_fetch", "discarded", 10, "++stat_requests", NULL, "wt"),
             operator_fact("add_fetch", "discarded", 11, "++stat_requests", NULL, "t"),
             operator_fact("sub_fetch", "discarded", 12, "--stat_requests", NULL, "t"),
             operator_fact("add_fetch", "value", 13, "stat_requests += n", "n", "tir"),
             operator_fact("add_fetch", "value", 14, "stat_requests += n", "n", "ti"),
             operator_fact("add_fetch", "value", 15, "stat_requests += w", "w", "ir"),
             operator_fact("add_fetch", "discarded", 16, "++stat_requests", NULL, "n"),
             operator_fact("fetch_add", "value", 17, "stat_requests++", NULL, ""), reset, reset_alone,
             operator_fact("add_fetch", "discarded", 20, "stat_requests += 1.5", "1.5", "wt"), NULL);
    json_t *findings = judge(p);
    assert_int_equal(json_array_size(findings), 11);
    assert_string_equal(replacement_on_line(findings, 10), "stat_requests.fetch_add(1, std::memory_order_relaxed)");
    assert_string_equal(replacement_on_line(findings, 11), "(stat_requests.fetch_add(1, std::memory_order_relaxed) + 1)");
    assert_string_equal(replacement_on_line(findings, 12), "(stat_requests.fetch_sub(1, std::memory_order_relaxed) - 1)");
    assert_string_equal(replacement_on_line(findings, 13), "(stat_requests.fetch_add(n, std::memory_order_relaxed) + n)");
    assert_no_fix_because(findings, 14, "evaluate the operand twice");
    assert_no_fix_because(findings, 15, "value type");
    assert_no_fix_because(findings, 16, "may use it in another; the operator's value is the new value of a type "
                                        "narrower than int");
    assert_string_equal(replacement_on_line(findings, 17), "stat_requests.fetch_add(1, std::memory_order_relaxed)");
    assert_no_fix_because(findings, 18, "may use it in another");
    assert_string_equal(replacement_on_line(findings, 19), "stat_requests.store(0, std::memory_order_relaxed)");
    assert_no_fix_because(findings, 20, "not an integer");
    json_decref(findings);
    hs_program_delete(p);
}

/* ---- memory-order decoding through the extractor ----------------------------------- */

typedef struct {
    char dir[64];
    hs_ruledata *rd;
    CXIndex index;
    json_t *facts; /* the last extraction's, freed by teardown even when a test fails */
} fixture;

static int setup_extract(void **state)
{
    fixture *fx = calloc(1, sizeof *fx);
    if (!fx)
        return -1;
    strcpy(fx->dir, "/tmp/hotscan-atomics-XXXXXX");
    if (!mkdtemp(fx->dir)) {
        free(fx);
        return -1;
    }
    fx->rd = hs_ruledata_create();
    char *err = NULL;
    if (!hs_ruledata_load_dir(fx->rd, HOTSCAN_TEST_RULES_DIR, &err)) {
        fprintf(stderr, "rule data: %s\n", err ? err : "?");
        free(err);
        return -1;
    }
    fx->index = clang_createIndex(0, 0);
    *state = fx;
    return 0;
}

static int teardown_extract(void **state)
{
    fixture *fx = *state;
    json_decref(fx->facts);
    clang_disposeIndex(fx->index);
    hs_ruledata_delete(fx->rd);
    for (const char *const *n = (const char *const[]){"t.c", "t.cpp", NULL}; *n; n++) {
        char *p = hs_path_join(fx->dir, *n);
        unlink(p);
        free(p);
    }
    rmdir(fx->dir);
    free(fx);
    return 0;
}

/* Writes `source` as dir/name, extracts it, returns its facts (owned by the fixture). */
static json_t *extract(fixture *fx, const char *name, const char *source)
{
    char *path = hs_path_join(fx->dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(source, f);
    fclose(f);
    hs_tu_input *in = calloc(1, sizeof *in);
    assert_non_null(in);
    in->file = path;
    hs_tu_input_set_default_flags(in);
    char *err = NULL;
    json_t *facts = hs_extract_tu(fx->index, in, fx->rd, fx->dir, NULL, &err);
    hs_tu_input_free(in);
    if (!facts)
        fail_msg("extract %s: %s", name, err ? err : "?");
    json_decref(fx->facts);
    fx->facts = facts;
    json_t *errors = json_object_get(facts, "parse_errors");
    if (json_array_size(errors))
        fail_msg("%s does not parse: %s", name, json_string_value(json_array_get(errors, 0)));
    return facts;
}

/* The one atomic-operation fact recorded on `line` (plain-use summaries have no line; an
 * accessor's "returns" fact is no operation). */
static json_t *fact_on_line(json_t *facts, int line)
{
    json_t *found = NULL;
    size_t i;
    json_t *a;
    json_array_foreach(json_object_get(facts, "atomics"), i, a) {
        if (json_integer_value(json_object_get(a, "line")) != line)
            continue;
        const char *op = json_string_value(json_object_get(a, "op"));
        if (op && strcmp(op, "returns") == 0)
            continue;
        if (found)
            fail_msg("two atomic facts on line %d", line);
        found = a;
    }
    if (!found)
        fail_msg("no atomic fact on line %d", line);
    return found;
}

typedef struct {
    int line;
    const char *op;
    const char *order;
} expected_op;

static void check_ops(json_t *facts, const char *name, const expected_op *want, size_t n)
{
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        json_t *f = fact_on_line(facts, want[i].line);
        const char *op = json_string_value(json_object_get(f, "op"));
        const char *order = json_string_value(json_object_get(f, "order"));
        if (strcmp(op ? op : "", want[i].op) != 0 || strcmp(order ? order : "", want[i].order) != 0) {
            print_error("%s:%d: '%s' is op %s order %s, expected op %s order %s\n", name, want[i].line,
                        json_string_value(json_object_get(f, "text")), op, order, want[i].op, want[i].order);
            bad++;
        }
    }
    assert_int_equal(bad, 0);
}

static void test_orders_c11_and_gnu(void **state)
{
    fixture *fx = *state;
    static const char source[] =
        "#include <stdatomic.h>\n"                                                          /* 1 */
        "static atomic_ulong c;\n"                                                          /* 2 */
        "static atomic_ulong n_relaxed_reads;\n"                                            /* 3 */
        "static unsigned long g;\n"                                                         /* 4 */
        "void f(unsigned long *out, int mo)\n"                                              /* 5 */
        "{\n"                                                                               /* 6 */
        "    atomic_fetch_add_explicit(&c, 1, memory_order_relaxed);\n"                     /* 7 */
        "    atomic_fetch_add(&c, 1);\n"                                                    /* 8 */
        "    atomic_fetch_add_explicit(&c, 1, memory_order_acquire);\n"                     /* 9 */
        "    *out = atomic_load_explicit(&c, memory_order_seq_cst);\n"                      /* 10 */
        "    atomic_store_explicit(&c, 0, memory_order_release);\n"                         /* 11 */
        "    atomic_fetch_sub_explicit(&c, 1, memory_order_acq_rel);\n"                     /* 12 */
        "    *out = atomic_load(&c);\n"                                                     /* 13 */
        "    atomic_fetch_add(&n_relaxed_reads, 1);\n"                                      /* 14 */
        "    __atomic_fetch_add(&g, 1, __ATOMIC_RELAXED);\n"                                /* 15 */
        "    __atomic_fetch_add(&g, 1, __ATOMIC_SEQ_CST);\n"                                /* 16 */
        "    *out = __atomic_load_n(&g, __ATOMIC_ACQUIRE);\n"                               /* 17 */
        "    __atomic_store_n(&g, 0, __ATOMIC_RELEASE);\n"                                  /* 18 */
        "    __atomic_add_fetch(&g, 1, 0);\n"                                               /* 19 */
        "    __atomic_add_fetch(&g, 1, 5);\n"                                               /* 20 */
        "    __atomic_fetch_add(&g, 1, mo);\n"                                              /* 21 */
        "    __sync_fetch_and_add(&g, 1);\n"                                                /* 22 */
        "    __sync_add_and_fetch(&g, 1);\n"                                                /* 23 */
        "    __sync_sub_and_fetch(&g, 1);\n"                                                /* 24 */
        "    c++;\n"                                                                        /* 25 */
        "    c += 2;\n"                                                                     /* 26 */
        "    --c;\n"                                                                        /* 27 */
        "    *out = c;\n"                                                                   /* 28 */
        "    c = 0;\n"                                                                      /* 29 */
        "}\n";
    json_t *facts = extract(fx, "t.c", source);
    static const expected_op want[] = {
        {7, "fetch_add", "relaxed"},  {8, "fetch_add", "seq_cst"},  {9, "fetch_add", "acquire"},
        {10, "load", "seq_cst"},      {11, "store", "release"},     {12, "fetch_sub", "acq_rel"},
        {13, "load", "seq_cst"},      {14, "fetch_add", "seq_cst"}, {15, "fetch_add", "relaxed"},
        {16, "fetch_add", "seq_cst"}, {17, "load", "acquire"},      {18, "store", "release"},
        {19, "add_fetch", "relaxed"}, {20, "add_fetch", "seq_cst"}, {21, "fetch_add", "unknown"},
        {22, "fetch_add", "seq_cst"}, {23, "add_fetch", "seq_cst"}, {24, "sub_fetch", "seq_cst"},
        {25, "fetch_add", "seq_cst"}, {26, "add_fetch", "seq_cst"}, {27, "sub_fetch", "seq_cst"},
        {28, "load", "seq_cst"},      {29, "store", "seq_cst"},
    };
    check_ops(facts, "t.c", want, sizeof want / sizeof want[0]);
}

static void test_orders_cxx(void **state)
{
    fixture *fx = *state;
    static const char source[] =
        "#include <atomic>\n"                                                               /* 1 */
        "static std::atomic<unsigned long> a;\n"                                            /* 2 */
        "static std::atomic<unsigned long> release_count;\n"                                /* 3 */
        "unsigned long f(std::memory_order mo)\n"                                           /* 4 */
        "{\n"                                                                               /* 5 */
        "    a.fetch_add(1, std::memory_order_relaxed);\n"                                  /* 6 */
        "    a.fetch_add(1, std::memory_order::relaxed);\n"                                 /* 7 */
        "    a.fetch_add(1);\n"                                                             /* 8 */
        "    unsigned long v = a.load();\n"                                                 /* 9 */
        "    v += a.load(std::memory_order_acquire);\n"                                     /* 10 */
        "    a.store(0, std::memory_order_release);\n"                                      /* 11 */
        "    a.fetch_sub(1, std::memory_order_acq_rel);\n"                                  /* 12 */
        "    a.fetch_add(1, std::memory_order_seq_cst);\n"                                  /* 13 */
        "    a.fetch_add(1, mo);\n"                                                         /* 14 */
        "    release_count.fetch_add(1);\n"                                                 /* 15 */
        "    std::atomic_fetch_add(&a, 1);\n"                                               /* 16 */
        "    std::atomic_fetch_add_explicit(&a, 1, std::memory_order_relaxed);\n"           /* 17 */
        "    a.exchange(0, std::memory_order_acquire);\n"                                   /* 18 */
        "    ++a;\n"                                                                        /* 19 */
        "    a++;\n"                                                                        /* 20 */
        "    a += 2;\n"                                                                     /* 21 */
        "    a--;\n"                                                                        /* 22 */
        "    a = 0;\n"                                                                      /* 23 */
        "    return v + a;\n"                                                               /* 24 */
        "}\n";
    json_t *facts = extract(fx, "t.cpp", source);
    static const expected_op want[] = {
        {6, "fetch_add", "relaxed"},  {7, "fetch_add", "relaxed"},  {8, "fetch_add", "seq_cst"},
        {9, "load", "seq_cst"},       {10, "load", "acquire"},      {11, "store", "release"},
        {12, "fetch_sub", "acq_rel"}, {13, "fetch_add", "seq_cst"}, {14, "fetch_add", "unknown"},
        {15, "fetch_add", "seq_cst"}, {16, "fetch_add", "seq_cst"}, {17, "fetch_add", "relaxed"},
        {18, "exchange", "acquire"},  {19, "add_fetch", "seq_cst"}, {20, "fetch_add", "seq_cst"},
        {21, "add_fetch", "seq_cst"}, {22, "fetch_sub", "seq_cst"}, {23, "store", "seq_cst"},
        {24, "load", "seq_cst"},
    };
    check_ops(facts, "t.cpp", want, sizeof want / sizeof want[0]);
}

static void test_orders_wrappers_from_rule_data(void **state)
{
    fixture *fx = *state;
    static const char source[] =
        "#include <stdint.h>\n"                                                             /* 1 */
        "enum my_memory_order { MY_MEMORY_ORDER_RELAXED, MY_MEMORY_ORDER_SEQ_CST = 5 };\n"  /* 2 */
        "extern int64_t my_atomic_add64(volatile int64_t *a, int64_t v);\n"                 /* 3 */
        "extern int64_t my_atomic_add64_explicit(volatile int64_t *a, int64_t v,\n"         /* 4 */
        "                                        enum my_memory_order o);\n"                /* 5 */
        "extern int64_t my_atomic_load64(volatile int64_t *a);\n"                           /* 6 */
        "static volatile int64_t bytes;\n"                                                  /* 7 */
        "int64_t f(void)\n"                                                                 /* 8 */
        "{\n"                                                                               /* 9 */
        "    my_atomic_add64(&bytes, 1);\n"                                                 /* 10 */
        "    my_atomic_add64_explicit(&bytes, 1, MY_MEMORY_ORDER_RELAXED);\n"               /* 11 */
        "    return my_atomic_load64(&bytes);\n"                                            /* 12 */
        "}\n";
    json_t *facts = extract(fx, "t.c", source);
    static const expected_op want[] = {
        {10, "fetch_add", "seq_cst"},
        {11, "fetch_add", "relaxed"},
        {12, "load", "seq_cst"},
    };
    check_ops(facts, "t.c", want, sizeof want / sizeof want[0]);
}

/* How each result is used, which the verdict reads as much as the order. */
static void test_result_use_decoding(void **state)
{
    fixture *fx = *state;
    static const char source[] =
        "#include <stdatomic.h>\n"                                                          /* 1 */
        "static atomic_ulong hits, misses, refs, ready;\n"                                  /* 2 */
        "extern void release_obj(void);\n"                                                  /* 3 */
        "unsigned long f(int ok, unsigned long *slots)\n"                                   /* 4 */
        "{\n"                                                                               /* 5 */
        "    atomic_fetch_add(&hits, 1);\n"                                                 /* 6 */
        "    slots[atomic_fetch_add(&hits, 1) % 64] = 1;\n"                                 /* 7 */
        "    if (atomic_fetch_sub(&refs, 1) == 1)\n"                                        /* 8 */
        "        release_obj();\n"                                                          /* 9 */
        "    while (!atomic_load(&ready))\n"                                                /* 10 */
        "        ;\n"                                                                       /* 11 */
        "    if (ok)\n"                                                                     /* 12 */
        "        atomic_fetch_add(&hits, 1);\n"                                             /* 13 */
        "    else\n"                                                                        /* 14 */
        "        atomic_fetch_add(&misses, 1);\n"                                           /* 15 */
        "    return atomic_fetch_add(&misses, 1);\n"                                        /* 16 */
        "}\n";
    json_t *facts = extract(fx, "t.c", source);
    static const struct {
        int line;
        const char *use;
    } want[] = {{6, "discarded"}, {7, "value"}, {8, "condition"}, {10, "loop_condition"},
                {13, "discarded"}, {15, "discarded"}, {16, "returned"}};
    int bad = 0;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const char *use = json_string_value(json_object_get(fact_on_line(facts, want[i].line), "use"));
        if (strcmp(use ? use : "", want[i].use) != 0) {
            print_error("t.c:%d: use %s, expected %s\n", want[i].line, use, want[i].use);
            bad++;
        }
    }
    assert_int_equal(bad, 0);
}

/* atomic_init(&x, 0) initializes with a constant: a reset, not an unknown operation. */
static void test_atomic_init_is_a_constant_store(void **state)
{
    fixture *fx = *state;
    static const char source[] =
        "#include <stdatomic.h>\n"                                                          /* 1 */
        "static atomic_ulong accepted;\n"                                                   /* 2 */
        "void init(void)\n"                                                                 /* 3 */
        "{\n"                                                                               /* 4 */
        "    atomic_init(&accepted, 0);\n"                                                  /* 5 */
        "}\n";
    json_t *facts = extract(fx, "t.c", source);
    json_t *f = fact_on_line(facts, 5);
    assert_string_equal(json_string_value(json_object_get(f, "op")), "store");
    assert_true(json_is_true(json_object_get(f, "value_constant")));
}

/* The atomic fact at line:column (a chain has two on one line). */
static json_t *fact_at(json_t *facts, int line, int column)
{
    size_t i;
    json_t *a;
    json_array_foreach(json_object_get(facts, "atomics"), i, a) {
        if (json_integer_value(json_object_get(a, "line")) == line &&
            json_integer_value(json_object_get(a, "column")) == column)
            return a;
    }
    fail_msg("no atomic fact at %d:%d", line, column);
    return NULL;
}

/* A chain of assignments stores its innermost constant, converted at each link; anything
 * else in the chain is a computed value. */
static void test_chained_stores(void **state)
{
    fixture *fx = *state;
    static const char source[] =
        "#include <stdatomic.h>\n"                                                          /* 1 */
        "static _Atomic long long a, b;\n"                                                  /* 2 */
        "static _Atomic unsigned char small;\n"                                             /* 3 */
        "static _Atomic int si;\n"                                                          /* 4 */
        "extern long long f(void);\n"                                                       /* 5 */
        "void g(void)\n"                                                                    /* 6 */
        "{\n"                                                                               /* 7 */
        "    a = b = 0;\n"                                                                  /* 8 */
        "    a = (b = 7);\n"                                                                /* 9 */
        "    a = small = 300;\n"                                                            /* 10 */
        "    a = si = -1;\n"                                                                /* 11 */
        "    a = b = f();\n"                                                                /* 12 */
        "    a = (char)(b = 5);\n"                                                          /* 13 */
        "}\n";
    json_t *facts = extract(fx, "t.c", source);
    static const struct {
        int line, column;
        bool constant;
        bool has_value;
        long long value;
    } want[] = {{8, 5, true, true, 0},   {8, 9, true, true, 0},   {9, 5, true, true, 7},
                {10, 5, true, true, 44}, {11, 5, true, true, -1}, {12, 5, false, false, 0},
                {12, 9, false, false, 0}, {13, 5, false, false, 0}};
    int bad = 0;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        json_t *f = fact_at(facts, want[i].line, want[i].column);
        bool constant = json_is_true(json_object_get(f, "value_constant"));
        json_t *value = json_object_get(f, "value");
        if (constant != want[i].constant || json_is_integer(value) != want[i].has_value ||
            (value && json_integer_value(value) != want[i].value)) {
            print_error("t.c:%d:%d: '%s' constant %d value %lld\n", want[i].line, want[i].column,
                        json_string_value(json_object_get(f, "text")), constant,
                        value ? (long long)json_integer_value(value) : -999);
            bad++;
        }
    }
    assert_int_equal(bad, 0);
}

/* A store of the enclosing function's integer parameter, as given, is a setter's; a value
 * computed from it, a wrapper's own parameter, or a lambda's is not. */
static void test_setter_stores(void **state)
{
    fixture *fx = *state;
    static const char source[] =
        "#include <atomic>\n"                                                               /* 1 */
        "#include <cstdint>\n"                                                              /* 2 */
        "static std::atomic<uint64_t> t;\n"                                                 /* 3 */
        "static void set(std::atomic<uint64_t> *p, uint64_t v) { p->store(v); }\n"          /* 4 */
        "void f(uint64_t count, int n)\n"                                                   /* 5 */
        "{\n"                                                                               /* 6 */
        "    t.store(count);\n"                                                             /* 7 */
        "    t = static_cast<uint64_t>(n);\n"                                               /* 8 */
        "    t.store(count * 2);\n"                                                         /* 9 */
        "    auto l = [](uint64_t c) { t.store(c); };\n"                                    /* 10 */
        "    l(count);\n"                                                                   /* 11 */
        "    set(&t, count);\n"                                                             /* 12 */
        "}\n";
    json_t *facts = extract(fx, "t.cpp", source);
    assert_true(json_is_true(json_object_get(fact_on_line(facts, 7), "value_parameter")));
    assert_true(json_is_true(json_object_get(fact_on_line(facts, 8), "value_parameter")));
    assert_null(json_object_get(fact_on_line(facts, 9), "value_parameter"));
    assert_null(json_object_get(fact_on_line(facts, 10), "value_parameter"));
    assert_null(json_object_get(fact_on_line(facts, 4), "value_parameter"));
}

/* An add in an arm of an if/else written whole in a statement macro decides nothing; one in
 * the macro's condition does. */
static void test_macro_if_else_arms(void **state)
{
    fixture *fx = *state;
    static const char source[] =
        "extern int shared;\n"                                                              /* 1 */
        "extern void note(void);\n"                                                         /* 2 */
        "static unsigned long n, m, k;\n"                                                   /* 3 */
        "#define INC(x) do { if (shared) __atomic_add_fetch(&(x), 1, __ATOMIC_SEQ_CST); \\\n" /* 4 */
        "                    else note(); } while (0)\n"                                     /* 5 */
        "#define ONCE(x) do { if (__atomic_add_fetch(&(x), 1, __ATOMIC_SEQ_CST) == 1) \\\n"  /* 6 */
        "                     note(); else note(); } while (0)\n"                            /* 7 */
        "void f(void)\n"                                                                    /* 8 */
        "{\n"                                                                               /* 9 */
        "    INC(n);\n"                                                                     /* 10 */
        "    ONCE(m);\n"                                                                    /* 11 */
        "    if (shared) __atomic_add_fetch(&k, 1, __ATOMIC_SEQ_CST); else note();\n"      /* 12 */
        "}\n";
    json_t *facts = extract(fx, "t.c", source);
    assert_string_equal(json_string_value(json_object_get(fact_on_line(facts, 10), "use")), "discarded");
    assert_string_equal(json_string_value(json_object_get(fact_on_line(facts, 11), "use")), "condition");
    assert_string_equal(json_string_value(json_object_get(fact_on_line(facts, 12), "use")), "discarded");
}

/* The plain summary of `name` in the facts, or NULL. */
static json_t *plain_summary(json_t *facts, const char *name)
{
    size_t i;
    json_t *a;
    json_array_foreach(json_object_get(facts, "atomics"), i, a) {
        const char *op = json_string_value(json_object_get(a, "op"));
        const char *var_name = json_string_value(json_object_get(a, "var_name"));
        if (op && strcmp(op, "plain") == 0 && var_name && strcmp(var_name, name) == 0)
            return json_object_get(a, "plain");
    }
    return NULL;
}

static long long plain_count(json_t *facts, const char *name, const char *kind)
{
    json_t *counts = plain_summary(facts, name);
    return counts ? (long long)json_integer_value(json_object_get(counts, kind)) : -1;
}

/* `x++;`, `x -= n;` on a shared plain integer are updates, each listed with its place; the
 * fallback arm of a branch that updates atomically is marked; a used value, a local copy's
 * field and an _Atomic object's `++` are not plain updates. */
static void test_plain_updates(void **state)
{
    fixture *fx = *state;
    static const char source[] =
        "#include <stdatomic.h>\n"                                                          /* 1 */
        "struct st { unsigned long hits, bytes; };\n"                                       /* 2 */
        "static unsigned long cnt, ids;\n"                                                  /* 3 */
        "static struct st g;\n"                                                             /* 4 */
        "static _Atomic long c11;\n"                                                        /* 5 */
        "extern int threaded;\n"                                                            /* 6 */
        "unsigned long f(struct st *p, unsigned long n)\n"                                  /* 7 */
        "{\n"                                                                               /* 8 */
        "    struct st total = {0};\n"                                                      /* 9 */
        "    cnt++;\n"                                                                      /* 10 */
        "    p->bytes -= n;\n"                                                              /* 11 */
        "    total.hits += n;\n"                                                            /* 12 */
        "    unsigned long id = ids++;\n"                                                   /* 13 */
        "    c11++;\n"                                                                      /* 14 */
        "    if (threaded) __atomic_add_fetch(&g.hits, 1, __ATOMIC_SEQ_CST); else g.hits++;\n" /* 15 */
        "    return id + total.hits;\n"                                                     /* 16 */
        "}\n";
    json_t *facts = extract(fx, "t.c", source);
    assert_int_equal(plain_count(facts, "cnt", "updates"), 1);
    assert_int_equal(plain_count(facts, "cnt", "decrements"), 0);
    assert_int_equal(plain_count(facts, "st::bytes", "updates"), 1);
    assert_int_equal(plain_count(facts, "st::bytes", "decrements"), 1);
    assert_int_equal(plain_count(facts, "st::hits", "updates"), 0);
    assert_int_equal(plain_count(facts, "st::hits", "writes_computed"), 1);
    assert_int_equal(plain_count(facts, "ids", "updates"), 0);
    assert_int_equal(plain_count(facts, "ids", "writes_computed"), 1);
    assert_null(plain_summary(facts, "c11"));
    json_t *sites = json_object_get(plain_summary(facts, "cnt"), "updates_sites");
    assert_int_equal(json_array_size(sites), 1);
    json_t *site = json_array_get(sites, 0);
    assert_int_equal(json_integer_value(json_object_get(site, "line")), 10);
    assert_string_equal(json_string_value(json_object_get(site, "text")), "cnt++");
    assert_string_equal(json_string_value(json_object_get(site, "function_name")), "f");
    assert_null(json_object_get(site, "beside"));
    json_t *fallback = json_array_get(json_object_get(plain_summary(facts, "g.hits"), "updates_sites"), 0);
    assert_int_equal(json_integer_value(json_object_get(fallback, "line")), 15);
    assert_true(json_is_true(json_object_get(fallback, "beside")));
}

/* What the collector says a rewrite of each operator keeps (note_rewrite_shape). */
static void test_rewrite_shape_facts(void **state)
{
    fixture *fx = *state;
    static const char source[] =
        "#include <atomic>\n"                                                               /* 1 */
        "static std::atomic<int> a;\n"                                                      /* 2 */
        "static std::atomic<unsigned char> c;\n"                                            /* 3 */
        "static std::atomic<long> step;\n"                                                  /* 4 */
        "#define BUMP(e) ((void)(e))\n"                                                     /* 5 */
        "struct s { int n; volatile int v; } g;\n"                                          /* 6 */
        "long f(long w, int k, unsigned u)\n"                                               /* 7 */
        "{\n"                                                                               /* 8 */
        "    ++a;\n"                                                                        /* 9 */
        "#ifdef CHECK\n"                                                                    /* 10 */
        "    int id =\n"                                                                    /* 11 */
        "#endif\n"                                                                          /* 12 */
        "        ++a;\n"                                                                    /* 13 */
        "    BUMP(++a);\n"                                                                  /* 14 */
        "    for (int i = 0; i < k; a++) {\n"                                               /* 15 */
        "    }\n"                                                                           /* 16 */
        "    ++c;\n"                                                                        /* 17 */
        "    long r = a += k;\n"                                                            /* 18 */
        "    r += a += w;\n"                                                                /* 19 */
        "    r += a += g.n;\n"                                                              /* 20 */
        "    r += a += g.v;\n"                                                              /* 21 */
        "    r += a += step;\n"                                                             /* 22 */
        "    r += a -= u;\n"                                                                /* 23 */
        "    r += a += 2.5;\n"                                                              /* 24 */
        "    a = 0;\n"                                                                      /* 25 */
        "    return r;\n"                                                                   /* 26 */
        "}\n";
    json_t *facts = extract(fx, "t.cpp", source);
    static const struct {
        int line;
        const char *shape; /* letters as operator_fact's */
    } want[] = {{9, "wt"}, {13, "t"}, {14, "t"}, {15, "wt"}, {17, "w"}, {18, "tir"}, {19, "ir"},
                {20, "tir"}, {21, "ti"}, {22, "i"}, {23, "ir"}, {24, ""}, {25, "w"}};
    static const struct {
        char letter;
        const char *key;
    } keys[] = {{'w', "whole_statement"}, {'i', "operand_integer"}, {'t', "sum_keeps_type"},
                {'r', "operand_repeatable"}};
    int bad = 0;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        /* The operator's fact, not the load of `step` on its line. */
        json_t *f = NULL, *a;
        size_t j;
        json_array_foreach(json_object_get(facts, "atomics"), j, a) {
            const char *name = json_string_value(json_object_get(a, "var_name"));
            if (json_integer_value(json_object_get(a, "line")) == want[i].line && name && strcmp(name, "step") != 0)
                f = a;
        }
        if (!f)
            fail_msg("no operator fact on line %d", want[i].line);
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
            bool expected = strchr(want[i].shape, keys[k].letter) != NULL;
            if (json_is_true(json_object_get(f, keys[k].key)) != expected) {
                print_error("t.cpp:%d: %s is %s\n", want[i].line, keys[k].key, expected ? "missing" : "set");
                bad++;
            }
        }
    }
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counter_each_seqcst_op_flagged),
        cmocka_unit_test(test_relaxed_counter_not_flagged),
        cmocka_unit_test(test_unknown_order_not_flagged),
        cmocka_unit_test(test_no_add_is_not_a_counter),
        cmocka_unit_test(test_cas_disqualifies),
        cmocka_unit_test(test_exchange_disqualifies),
        cmocka_unit_test(test_bitwise_disqualifies),
        cmocka_unit_test(test_escape_disqualifies),
        cmocka_unit_test(test_wait_and_other_disqualify),
        cmocka_unit_test(test_add_result_in_condition_disqualifies),
        cmocka_unit_test(test_decrement_result_used_disqualifies),
        cmocka_unit_test(test_computed_store_disqualifies),
        cmocka_unit_test(test_load_in_loop_condition_disqualifies),
        cmocka_unit_test(test_plain_uses_disqualify),
        cmocka_unit_test(test_setter_is_a_reset),
        cmocka_unit_test(test_setter_of_a_tested_value_disqualifies),
        cmocka_unit_test(test_plain_update_keeps_counter_without_fix),
        cmocka_unit_test(test_plain_update_fallback_arm),
        cmocka_unit_test(test_plain_decrement_is_a_decrement),
        cmocka_unit_test(test_plain_update_without_atomic_update),
        cmocka_unit_test(test_two_constants_is_a_flag),
        cmocka_unit_test(test_decremented_and_tested_is_not_a_counter),
        cmocka_unit_test(test_load_in_if_condition_still_counter),
        cmocka_unit_test(test_index_and_ticket_uses_still_counter),
        cmocka_unit_test(test_gauge_with_discarded_decrements_is_counter),
        cmocka_unit_test(test_variables_judged_apart),
        cmocka_unit_test(test_uses_split_over_two_tus),
        cmocka_unit_test(test_header_fact_counted_once),
        cmocka_unit_test(test_plain_uses_of_later_tus_count),
        cmocka_unit_test(test_typed_facts),
        cmocka_unit_test(test_operator_fix_keeps_value),
        cmocka_unit_test_setup_teardown(test_orders_c11_and_gnu, setup_extract, teardown_extract),
        cmocka_unit_test_setup_teardown(test_orders_cxx, setup_extract, teardown_extract),
        cmocka_unit_test_setup_teardown(test_orders_wrappers_from_rule_data, setup_extract, teardown_extract),
        cmocka_unit_test_setup_teardown(test_result_use_decoding, setup_extract, teardown_extract),
        cmocka_unit_test_setup_teardown(test_atomic_init_is_a_constant_store, setup_extract, teardown_extract),
        cmocka_unit_test_setup_teardown(test_rewrite_shape_facts, setup_extract, teardown_extract),
        cmocka_unit_test_setup_teardown(test_chained_stores, setup_extract, teardown_extract),
        cmocka_unit_test_setup_teardown(test_setter_stores, setup_extract, teardown_extract),
        cmocka_unit_test_setup_teardown(test_macro_if_else_arms, setup_extract, teardown_extract),
        cmocka_unit_test_setup_teardown(test_plain_updates, setup_extract, teardown_extract),
    };
    return cmocka_run_group_tests(tests, 0, 0);
}
