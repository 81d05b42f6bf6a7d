/*
 * test_diffbase.c - unit tests for --diff-base's diff reader and marker
 * (analyzer/judge/diffbase.c): hunk ranges, removals, quoted and deleted paths, and which
 * findings touch a change (their range, a related place, a call on the hot path, the first
 * line of a function on it; not a body edit elsewhere in such a function).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "hotscan/diffbase.h"
#include "hotscan/program.h"

static const char diff[] =
    "diff --git a/src/a.c b/src/a.c\n"
    "index 1..2 100644\n"
    "--- a/src/a.c\n"
    "+++ b/src/a.c\n"
    "@@ -3 +3 @@ int x;\n"
    "-old\n"
    "+new\n"
    "@@ -10,0 +11,3 @@\n"
    "+a\n+b\n+c\n"
    "@@ -20,2 +23,0 @@\n"
    "-gone\n-gone\n"
    "diff --git a/gone.c b/gone.c\n"
    "--- a/gone.c\n"
    "+++ /dev/null\n"
    "@@ -1 +0,0 @@\n"
    "-x\n"
    "--- a/\"sp ace\\tq.c\"\n"
    "+++ \"b/sp ace\\tq.c\"\n"
    "@@ -0,0 +1 @@\n"
    "+y\n";

static void test_ranges(void **state)
{
    (void)state;
    hs_changed_lines *c = hs_changed_lines_from_diff("/top", diff);
    assert_false(hs_changed_lines_any(c, "/top/src/a.c", 2, 2));
    assert_true(hs_changed_lines_any(c, "/top/src/a.c", 3, 3));
    assert_false(hs_changed_lines_any(c, "/top/src/a.c", 10, 10));
    assert_true(hs_changed_lines_any(c, "/top/src/a.c", 11, 11));
    assert_true(hs_changed_lines_any(c, "/top/src/a.c", 13, 13));
    assert_false(hs_changed_lines_any(c, "/top/src/a.c", 14, 30)); /* removals touch no new line */
    assert_true(hs_changed_lines_any(c, "/top/src/a.c", 5, 12));   /* a range overlapping a hunk */
    assert_true(hs_changed_lines_any(c, "/top/sp ace\tq.c", 1, 1));
    assert_false(hs_changed_lines_any(c, "/top/gone.c", 1, 1));
    assert_false(hs_changed_lines_any(c, "/top/other.c", 1, 1));
    hs_changed_lines_add_file(c, "/top/new.c");
    assert_true(hs_changed_lines_any(c, "/top/new.c", 999, 999));
    hs_changed_lines_delete(c);
}

static void test_mark(void **state)
{
    (void)state;
    hs_changed_lines *c = hs_changed_lines_from_diff("/top", diff);
    hs_program *p = hs_program_create();
    hs_function *root = hs_program_function(p, "c:@F@root", "root");
    root->file = "/top/src/a.c";
    root->line = 3; /* its first line changed (a new attribute, say) */
    root->defined = true;
    hs_function *mid = hs_program_function(p, "c:@F@mid", "mid");
    mid->file = "/top/src/a.c";
    mid->line = 10; /* its body changed (11-13), not its first line */
    mid->defined = true;
    json_t *findings = json_pack(
        "[{s:s, s:i, s:i, s:[], s:[]},"     /* on a changed line */
        " {s:s, s:i, s:i, s:[], s:[]},"     /* on none */
        " {s:s, s:i, s:i, s:[{s:s, s:i}], s:[]}," /* its related place changed */
        " {s:s, s:i, s:i, s:[], s:[{s:s, s:s, s:i}, {s:s, s:s, s:i}]}," /* its path's root changed */
        " {s:s, s:i, s:i, s:[], s:[{s:s, s:s, s:i}, {s:s, s:s, s:i}]}]", /* only a body on its path did */
        "file", "/top/src/a.c", "line", 12, "end_line", 12, "related", "hot_path",
        "file", "/top/src/b.c", "line", 3, "end_line", 3, "related", "hot_path",
        "file", "/top/src/b.c", "line", 4, "end_line", 4, "related", "file", "/top/src/a.c", "line", 3, "hot_path",
        "file", "/top/src/b.c", "line", 9, "end_line", 9, "related", "hot_path", "function", "root", "file",
        "/top/src/a.c", "line", 2, "function", "leaf", "file", "/top/src/b.c", "line", 9,
        "file", "/top/src/b.c", "line", 9, "end_line", 9, "related", "hot_path", "function", "mid", "file",
        "/top/src/a.c", "line", 10, "function", "leaf", "file", "/top/src/b.c", "line", 9);
    assert_non_null(findings);
    assert_int_equal(hs_changed_lines_mark(c, findings, p), 2);
    assert_true(json_is_true(json_object_get(json_array_get(findings, 1), "outside_diff")));
    assert_null(json_object_get(json_array_get(findings, 3), "outside_diff"));
    assert_true(json_is_true(json_object_get(json_array_get(findings, 4), "outside_diff")));
    /* Without the model only the path's own lines count: line 2 did not change. */
    json_t *again = json_deep_copy(findings);
    for (size_t i = 0; i < json_array_size(again); i++)
        json_object_del(json_array_get(again, i), "outside_diff");
    assert_int_equal(hs_changed_lines_mark(c, again, NULL), 3);
    assert_true(json_is_true(json_object_get(json_array_get(again, 3), "outside_diff")));
    json_decref(again);
    json_decref(findings);
    hs_program_delete(p);
    hs_changed_lines_delete(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ranges),
        cmocka_unit_test(test_mark),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
