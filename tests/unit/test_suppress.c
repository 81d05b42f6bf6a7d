/*
 * test_suppress.c - unit tests for NOLINT suppressions (analyzer/judge/suppress.c): each
 * spelling, check names and globs, comments versus literals, regions and their pairing, and
 * which unused suppressions are reported.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>
#include <unistd.h>

#include "hotscan/suppress.h"

static hs_suppressions *with(const char *text)
{
    hs_suppressions *s = hs_suppressions_create("/p");
    hs_suppressions_add_text(s, "/p/a.c", text, strlen(text));
    return s;
}

static void test_names(void **state)
{
    (void)state;
    assert_true(hs_suppression_names_rule("timer-hot-path", "timer-hot-path"));
    assert_true(hs_suppression_names_rule("hotscan-timer-hot-path", "timer-hot-path"));
    assert_true(hs_suppression_names_rule("hotscan-*", "timer-hot-path"));
    assert_true(hs_suppression_names_rule("timer-*", "timer-hot-path"));
    assert_true(hs_suppression_names_rule("*", "os-event"));
    assert_false(hs_suppression_names_rule("timer-duplicate", "timer-hot-path"));
    assert_false(hs_suppression_names_rule("bugprone-*", "timer-hot-path"));
    assert_false(hs_suppression_names_rule("hotscan-timer", "timer-hot-path"));
    assert_true(hs_suppression_names_rule("*-hot-*", "timer-hot-path"));
    assert_true(hs_suppression_names_rule("t*h*t*h", "timer-hot-path"));
    assert_true(hs_suppression_names_rule("**os-event**", "os-event"));
    assert_false(hs_suppression_names_rule("*-hot", "timer-hot-path"));
    assert_false(hs_suppression_names_rule("timer-*-pathx", "timer-hot-path"));
}

/* Many stars that cannot match: once exponential (a scan hung on a 40-star NOLINT); a few
 * seconds is far more than the pass needs, and the alarm fails the test. */
static void test_many_stars(void **state)
{
    (void)state;
    char pattern[64];
    memset(pattern, '*', 60);
    strcpy(pattern + 60, "x");
    alarm(20);
    assert_false(hs_suppression_names_rule(pattern, "atomic-seqcst-counter"));
    assert_true(hs_suppression_names_rule(pattern + 1, "hotscan-x"));
    alarm(0);
}

static void test_same_line(void **state)
{
    (void)state;
    hs_suppressions *s = with("int a;\n"
                              "x = clock(); // NOLINT\n"
                              "y = clock(); // NOLINT(timer-hot-path, atomic-seqcst-counter)\n"
                              "z = clock(); // NOLINT(bugprone-branch-clone)\n"
                              "w = clock(); /* NOLINT(hotscan-timer-*) */ more();\n");
    assert_false(hs_suppressions_matches(s, "/p/a.c", 1, "timer-hot-path"));
    assert_true(hs_suppressions_matches(s, "/p/a.c", 2, "os-event"));
    assert_true(hs_suppressions_matches(s, "a.c", 3, "timer-hot-path")); /* relative to the root */
    assert_true(hs_suppressions_matches(s, "/p/a.c", 3, "atomic-seqcst-counter"));
    assert_false(hs_suppressions_matches(s, "/p/a.c", 3, "os-event"));
    assert_false(hs_suppressions_matches(s, "/p/a.c", 4, "timer-hot-path"));
    assert_true(hs_suppressions_matches(s, "/p/a.c", 5, "timer-duplicate"));
    assert_false(hs_suppressions_matches(s, "/p/a.c", 5, "os-event"));
    hs_suppressions_delete(s);
}

static void test_literals_and_lookalikes(void **state)
{
    (void)state;
    hs_suppressions *s = with("p(\"// NOLINT\"); clock();\n"
                              "c = '\"'; clock(); // NOLINT\n"
                              "n = 1'000; clock(); // NOLINT\n"
                              "clock(); // NOLINTFOO NOLINT_X\n"
                              "clock(); // see NOLINT(timer-hot-path) here\n");
    assert_false(hs_suppressions_matches(s, "/p/a.c", 1, "timer-hot-path"));
    assert_true(hs_suppressions_matches(s, "/p/a.c", 2, "timer-hot-path"));
    assert_true(hs_suppressions_matches(s, "/p/a.c", 3, "timer-hot-path"));
    assert_false(hs_suppressions_matches(s, "/p/a.c", 4, "timer-hot-path"));
    assert_true(hs_suppressions_matches(s, "/p/a.c", 5, "timer-hot-path"));
    hs_suppressions_delete(s);
}

static void test_next_line_and_regions(void **state)
{
    (void)state;
    hs_suppressions *s = with("// NOLINTNEXTLINE(timer-hot-path)\n"
                              "clock();\n"
                              "clock();\n"
                              "/* NOLINTBEGIN(os-event) */\n"
                              "os_event_wait(e);\n"
                              "// NOLINTBEGIN\n"
                              "clock();\n"
                              "// NOLINTEND\n"
                              "os_event_set(e);\n"
                              "// NOLINTEND(os-event)\n"
                              "os_event_set(e);\n");
    assert_false(hs_suppressions_matches(s, "/p/a.c", 1, "timer-hot-path"));
    assert_true(hs_suppressions_matches(s, "/p/a.c", 2, "timer-hot-path"));
    assert_false(hs_suppressions_matches(s, "/p/a.c", 3, "timer-hot-path"));
    assert_true(hs_suppressions_matches(s, "/p/a.c", 5, "os-event"));
    assert_true(hs_suppressions_matches(s, "/p/a.c", 7, "timer-hot-path"));
    assert_false(hs_suppressions_matches(s, "/p/a.c", 9, "timer-hot-path"));
    assert_true(hs_suppressions_matches(s, "/p/a.c", 9, "os-event"));
    assert_false(hs_suppressions_matches(s, "/p/a.c", 11, "os-event"));
    json_t *unused = hs_suppressions_unused(s);
    assert_int_equal(json_array_size(unused), 0);
    json_decref(unused);
    hs_suppressions_delete(s);
}

static void test_unused(void **state)
{
    (void)state;
    hs_suppressions *s = with("clock(); // NOLINT(timer-hot-path)\n"
                              "clock(); // NOLINT\n"
                              "clock(); // NOLINT(bugprone-foo, *)\n"
                              "clock(); // NOLINT(hotscan-os-event)\n"
                              "// NOLINTEND(atomic-seqcst-counter)\n"
                              "// NOLINTBEGIN(os-event)\n"
                              "// NOLINTEND(bugprone-foo)\n");
    assert_true(hs_suppressions_matches(s, "/p/a.c", 1, "timer-hot-path"));
    json_t *unused = hs_suppressions_unused(s);
    /* line 4 names a hotscan rule and suppressed nothing; 5 and 6 do not pair up; bare
     * NOLINT and other tools' names are not hotscan's to report */
    assert_int_equal(json_array_size(unused), 3);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(unused, 0), "line")), 4);
    assert_string_equal(json_string_value(json_object_get(json_array_get(unused, 0), "file")), "a.c");
    assert_string_equal(json_string_value(json_object_get(json_array_get(unused, 0), "text")),
                        "NOLINT(hotscan-os-event)");
    assert_int_equal(json_integer_value(json_object_get(json_array_get(unused, 1), "line")), 5);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(unused, 2), "line")), 6);
    json_decref(unused);
    /* The unpaired BEGIN lasts to the end of the file. */
    assert_true(hs_suppressions_matches(s, "/p/a.c", 7, "os-event"));
    hs_suppressions_delete(s);
}

/* A comment that is not UTF-8 (Latin-1, or bytes a fuzzer made) is still reported, its bytes
 * past ASCII as U+FFFD: json_pack once gave NULL for it, which the sort handed to strcmp. */
static void test_unused_not_utf8(void **state)
{
    (void)state;
    hs_suppressions *s = with("clock(); // NOLINT(timer-hot-path)\n"
                              "clock(); // NOLINT(timer-*, hotscan-\x8c\x95)\n"
                              "clock(); // NOLINT(os-event)\n");
    json_t *unused = hs_suppressions_unused(s);
    assert_int_equal(json_array_size(unused), 3);
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(json_integer_value(json_object_get(json_array_get(unused, i), "line")), (json_int_t)i + 1);
        assert_string_equal(json_string_value(json_object_get(json_array_get(unused, i), "file")), "a.c");
    }
    assert_string_equal(json_string_value(json_object_get(json_array_get(unused, 1), "text")),
                        "NOLINT(timer-*, hotscan-\xEF\xBF\xBD\xEF\xBF\xBD)");
    json_decref(unused);
    hs_suppressions_delete(s);
}

static void test_mark(void **state)
{
    (void)state;
    hs_suppressions *s = with("a();\nclock(); // NOLINT(timer-hot-path)\n");
    json_t *findings = json_pack("[{s:s, s:s, s:i}, {s:s, s:s, s:i}, {s:s, s:s, s:i}]", "rule",
                                 "timer-hot-path", "file", "/p/a.c", "line", 2, "rule", "timer-hot-path",
                                 "file", "/p/a.c", "line", 1, "rule", "timer-hot-path", "file",
                                 "/p/missing.c", "line", 2);
    assert_int_equal(hs_suppressions_mark(s, findings), 1);
    assert_true(json_is_true(json_object_get(json_array_get(findings, 0), "suppressed")));
    assert_null(json_object_get(json_array_get(findings, 1), "suppressed"));
    json_decref(findings);
    hs_suppressions_delete(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_many_stars),
        cmocka_unit_test(test_same_line),
        cmocka_unit_test(test_literals_and_lookalikes),
        cmocka_unit_test(test_next_line_and_regions),
        cmocka_unit_test(test_unused),
        cmocka_unit_test(test_unused_not_utf8),
        cmocka_unit_test(test_mark),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
