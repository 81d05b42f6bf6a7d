/*
 * test_merge.c - unit tests for the merge stage (analyzer/model/merge_tus.c): a TU's
 * document is merged and then owned by no one but the model; a document of another facts
 * version, or a failed TU, becomes that TU's error and nothing else.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "hotscan/facts.h"
#include "hotscan/merge.h"
#include "timers/timer_facts.h"

typedef struct {
    hs_tu_input tus[2];
    hs_discovery disc;
    hs_merge merge;
} fixture;

static int setup(void **state)
{
    fixture *fx = calloc(1, sizeof *fx);
    fx->tus[0].file = "/p/a.c";
    fx->tus[1].file = "/p/b.c";
    hs_vec_push(&fx->disc.tus, &fx->tus[0]);
    hs_vec_push(&fx->disc.tus, &fx->tus[1]);
    hs_merge_init(&fx->merge, &fx->disc, "/p", NULL, NULL);
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    fixture *fx = *state;
    hs_merge_free(&fx->merge);
    hs_vec_free(&fx->disc.tus);
    free(fx);
    return 0;
}

static json_t *doc(int version)
{
    return json_pack("{s:i, s:s, s:[{s:s, s:s, s:b, s:s, s:i, s:i}], s:[], s:[{s:s, s:i, s:i, s:i, s:s, s:i, "
                     "s:s, s:s}], s:i}",
                     "facts_version", version, "tu", "/p/a.c", "functions", "usr", "c:@F@f", "name", "f",
                     "defined", 1, "file", "/p/a.c", "line", 1, "column", 1, "calls", "clock_reads", "file",
                     "/p/a.c", "offset", 40, "line", 3, "column", 5, "function", "c:@F@f", "ordinal", 0, "api",
                     "clock", "cost", "syscall", "error_count", 0);
}

static void test_merged_document_is_released(void **state)
{
    fixture *fx = *state;
    hs_tu_result r = {.facts = doc(HS_FACTS_VERSION)};
    hs_merge_tu_result(0, &r, &fx->merge);
    assert_null(r.facts);
    assert_null(r.error);
    assert_int_equal(fx->merge.failed, 0);
    assert_int_equal(json_array_size(fx->merge.errors), 0);
    const hs_timer_store *reads = hs_timer_facts(fx->merge.program);
    assert_int_equal(reads->len, 1);
    assert_string_equal(reads->reads[0].api, "clock");
    assert_int_equal(reads->reads[0].tu_index, 0);
}

static void test_other_facts_version_is_that_tus_error(void **state)
{
    fixture *fx = *state;
    hs_tu_result r = {.facts = doc(HS_FACTS_VERSION + 1)};
    hs_merge_tu_result(1, &r, &fx->merge);
    assert_null(r.facts);
    assert_int_equal(fx->merge.failed, 1);
    assert_int_equal(json_array_size(fx->merge.errors), 1);
    json_t *e = json_array_get(fx->merge.errors, 0);
    assert_string_equal(json_string_value(json_object_get(e, "file")), "b.c");
    assert_non_null(strstr(json_string_value(json_object_get(e, "message")), "version"));
    assert_int_equal(hs_timer_facts(fx->merge.program)->len, 0);
    assert_int_equal(fx->merge.program->function_list.len, 0);
}

static void test_failed_tu_keeps_its_reason(void **state)
{
    fixture *fx = *state;
    hs_tu_result r = {.error = strdup("the parser crashed (signal 11)")};
    hs_merge_tu_result(0, &r, &fx->merge);
    assert_null(r.error);
    assert_int_equal(fx->merge.failed, 1);
    json_t *e = json_array_get(fx->merge.errors, 0);
    assert_string_equal(json_string_value(json_object_get(e, "message")), "the parser crashed (signal 11)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_merged_document_is_released, setup, teardown),
        cmocka_unit_test_setup_teardown(test_other_facts_version_is_that_tus_error, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failed_tu_keeps_its_reason, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
