/*
 * test_json_arena.c - unit tests for the per-TU jansson arena (analyzer/util/json_arena.c):
 * what is allocated where, that frees of arena memory are no-ops and malloc'd values still
 * get freed (this suite runs under LeakSanitizer in CI), overflow and growth, and that memory
 * jansson hands to callers outside an arena stays plain malloc's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hotscan/json_arena.h"

static json_t *small_doc(void)
{
    json_t *doc = json_object();
    json_object_set_new(doc, "tu", json_string("a.c"));
    json_t *arr = json_array();
    for (int i = 0; i < 100; i++)
        json_array_append_new(arr, json_pack("{s:i, s:s}", "line", i, "name", "clock_gettime"));
    json_object_set_new(doc, "calls", arr);
    return doc;
}

static void test_values_made_inside_come_from_the_arena(void **state)
{
    (void)state;
    hs_json_arena *a = hs_json_arena_create();
    assert_non_null(a);
    size_t used, overflow;
    hs_json_arena_usage(a, &used, &overflow);
    assert_int_equal(used, 0);

    json_t *outside = json_string("made before entering"); /* malloc's */
    hs_json_arena_enter(a);
    json_t *doc = small_doc();
    hs_json_arena_leave(a);
    hs_json_arena_usage(a, &used, &overflow);
    assert_true(used > 0);
    assert_int_equal(overflow, 0);
    assert_true(hs_json_arena_holds_all(a));

    /* Made after leaving: malloc's again, not counted. */
    json_t *after = json_integer(7);
    size_t used2;
    hs_json_arena_usage(a, &used2, &overflow);
    assert_int_equal(used2, used);

    /* A malloc'd value in an arena document is freed with it (LeakSanitizer checks). */
    json_object_set_new(doc, "extra", json_string("malloc'd child"));
    assert_string_equal(json_string_value(json_object_get(doc, "tu")), "a.c");
    assert_int_equal(json_array_size(json_object_get(doc, "calls")), 100);
    json_decref(doc); /* arena blocks: nothing freed; the malloc'd child: freed */
    hs_json_arena_usage(a, &used2, &overflow);
    assert_int_equal(used2, used);
    hs_json_arena_reset(a);
    hs_json_arena_usage(a, &used, &overflow);
    assert_int_equal(used, 0);

    /* Values from outside survive the reset. */
    assert_string_equal(json_string_value(outside), "made before entering");
    assert_int_equal(json_integer_value(after), 7);
    json_decref(outside);
    json_decref(after);
    hs_json_arena_delete(a);
}

static void test_a_document_too_big_overflows_then_fits(void **state)
{
    (void)state;
    hs_json_arena *a = hs_json_arena_create();
    assert_non_null(a);
    /* About 20 MB of values: more than the first arena's 8 MB. */
    for (int round = 0; round < 2; round++) {
        hs_json_arena_enter(a);
        json_t *arr = json_array();
        char text[200];
        memset(text, 'x', sizeof text - 1);
        text[sizeof text - 1] = '\0';
        for (int i = 0; i < 60000; i++)
            json_array_append_new(arr, json_pack("{s:s, s:i}", "text", text, "i", i));
        hs_json_arena_leave(a);
        size_t used, overflow;
        hs_json_arena_usage(a, &used, &overflow);
        if (round == 0) {
            assert_true(overflow > 0);
            assert_false(hs_json_arena_holds_all(a));
        } else {
            assert_int_equal(overflow, 0); /* the reset grew the arena */
            assert_true(hs_json_arena_holds_all(a));
        }
        assert_int_equal(json_integer_value(json_object_get(json_array_get(arr, 59999), "i")), 59999);
        json_decref(arr); /* frees the overflowed blocks */
        hs_json_arena_reset(a);
    }
    hs_json_arena_delete(a);
}

static void test_text_jansson_hands_out_is_mallocs(void **state)
{
    (void)state;
    hs_json_arena *a = hs_json_arena_create(); /* installs the allocator */
    assert_non_null(a);
    json_t *v = json_pack("{s:[i,i]}", "k", 1, 2);
    char *text = json_dumps(v, JSON_COMPACT);
    assert_string_equal(text, "{\"k\":[1,2]}");
    free(text); /* as callers do: must be malloc's */
    json_decref(v);
    hs_json_arena_delete(a);
}

static void test_no_arena_is_allowed(void **state)
{
    (void)state;
    hs_json_arena_enter(NULL);
    hs_json_arena_leave(NULL);
    hs_json_arena_reset(NULL);
    hs_json_arena_delete(NULL);
    assert_false(hs_json_arena_holds_all(NULL));
    setenv("HOTSCAN_NO_JSON_ARENA", "1", 1);
    assert_null(hs_json_arena_create());
    setenv("HOTSCAN_NO_JSON_ARENA", "0", 1); /* "0" is off, as for every HOTSCAN_* switch */
    hs_json_arena *on = hs_json_arena_create();
    assert_non_null(on);
    hs_json_arena_delete(on);
    unsetenv("HOTSCAN_NO_JSON_ARENA");
    /* Two arenas at once, each with its own range. */
    hs_json_arena *a = hs_json_arena_create(), *b = hs_json_arena_create();
    assert_non_null(a);
    assert_non_null(b);
    hs_json_arena_enter(b);
    json_t *doc = small_doc();
    hs_json_arena_leave(b);
    size_t used_a, used_b, overflow;
    hs_json_arena_usage(a, &used_a, &overflow);
    hs_json_arena_usage(b, &used_b, &overflow);
    assert_int_equal(used_a, 0);
    assert_true(used_b > 0);
    json_decref(doc);
    hs_json_arena_reset(b);
    hs_json_arena_delete(b);
    hs_json_arena_delete(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values_made_inside_come_from_the_arena),
        cmocka_unit_test(test_a_document_too_big_overflows_then_fits),
        cmocka_unit_test(test_text_jansson_hands_out_is_mallocs),
        cmocka_unit_test(test_no_arena_is_allowed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
