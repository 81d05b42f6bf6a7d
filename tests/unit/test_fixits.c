/*
 * test_fixits.c - the text helpers fix-its are built from: splitting and joining call
 * text, when an operand may be repeated or needs parentheses, and whether code is a
 * statement of its own in every configuration (no preprocessor directive around it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hotscan/fixits.h"

static void expect_split(const char *text, const char *name, size_t nargs, const char *const *args)
{
    char *got_name = NULL;
    json_t *got = NULL;
    assert_true(hs_split_call_text(text, &got_name, &got));
    assert_string_equal(got_name, name);
    assert_int_equal(json_array_size(got), nargs);
    for (size_t i = 0; i < nargs; i++)
        assert_string_equal(json_string_value(json_array_get(got, i)), args[i]);
    free(got_name);
    json_decref(got);
}

static void test_split_simple(void **state)
{
    (void)state;
    const char *const args[] = {"&x", "1"};
    expect_split("atomic_fetch_add(&x, 1)", "atomic_fetch_add", 2, args);
}

static void test_split_nested_and_strings(void **state)
{
    (void)state;
    const char *const args[] = {"f(a, b)", "\"x, y)\"", "arr[i, j]", "'('"};
    expect_split("g( f(a, b) , \"x, y)\", arr[i, j], '(' )", "g", 4, args);
}

static void test_split_no_arguments(void **state)
{
    (void)state;
    expect_split("now()", "now", 0, NULL);
    const char *const args[] = {"a", ""};
    expect_split("f(a, )", "f", 2, args);
}

static void test_split_qualified_name(void **state)
{
    (void)state;
    const char *const args[] = {"&c", "2"};
    expect_split("std::atomic_fetch_add(&c, 2)", "std::atomic_fetch_add", 2, args);
}

static void test_split_rejects_non_calls(void **state)
{
    (void)state;
    char *name = NULL;
    json_t *args = NULL;
    assert_false(hs_split_call_text("x + 1", &name, &args));
    assert_false(hs_split_call_text("f(a) + 1", &name, &args));
    assert_false(hs_split_call_text("(a)", &name, &args));
}

static void test_join(void **state)
{
    (void)state;
    json_t *args = json_pack("[sss]", "&x", "n", "__ATOMIC_RELAXED");
    char *text = hs_join_call_text("__atomic_fetch_add", args);
    assert_string_equal(text, "__atomic_fetch_add(&x, n, __ATOMIC_RELAXED)");
    free(text);
    json_decref(args);
    json_t *none = json_array();
    text = hs_join_call_text("f", none);
    assert_string_equal(text, "f()");
    free(text);
    json_decref(none);
}

static void test_simple_operands(void **state)
{
    (void)state;
    assert_true(hs_text_is_simple("n"));
    assert_true(hs_text_is_simple("42"));
    assert_true(hs_text_is_simple("s->stats[3].hits"));
    assert_true(hs_text_is_simple("ns::counter"));
    assert_false(hs_text_is_simple("a + b"));
    assert_false(hs_text_is_simple("f()"));
    assert_false(hs_text_is_simple("*p"));
    assert_false(hs_text_is_simple(""));
    assert_false(hs_text_is_simple(NULL));
}

static void test_operand_and_deref(void **state)
{
    (void)state;
    char *t = hs_text_operand("s->n");
    assert_string_equal(t, "s->n");
    free(t);
    t = hs_text_operand("*p");
    assert_string_equal(t, "(*p)");
    free(t);
    t = hs_text_deref("&trx->started");
    assert_string_equal(t, "trx->started");
    free(t);
    t = hs_text_deref("ts");
    assert_string_equal(t, "*ts");
    free(t);
    t = hs_text_deref("p + 1");
    assert_string_equal(t, "*(p + 1)");
    free(t);
}

static void test_edit_new(void **state)
{
    (void)state;
    json_t *e = hs_edit_new("/r/a.c", 10, 3, "x");
    assert_string_equal(json_string_value(json_object_get(e, "file")), "/r/a.c");
    assert_int_equal(json_integer_value(json_object_get(e, "offset")), 10);
    assert_int_equal(json_integer_value(json_object_get(e, "length")), 3);
    assert_string_equal(json_string_value(json_object_get(e, "replacement")), "x");
    json_decref(e);
}

/* hs_text_statement_alone on `text`, whose code is the first "++x" after the block's "{". */
static bool alone(const char *text)
{
    const char *block = strchr(text, '{');
    const char *code = strstr(text, "++x");
    assert_non_null(block);
    assert_non_null(code);
    size_t start = (size_t)(code - text);
    return hs_text_statement_alone(text, strlen(text), (size_t)(block - text), start, start + 3);
}

static void test_statement_alone(void **state)
{
    (void)state;
    assert_true(alone("void f(void) {\n    foo();\n    ++x;\n}\n"));
    assert_true(alone("{ ++x; }"));
    assert_true(alone("{ if (c) ++x; }"));
    assert_true(alone("{ if (c) foo(); else ++x; }"));
    assert_true(alone("{ do ++x; while (c); }"));
    assert_true(alone("{ switch (c) { case 1: ++x; } }"));
    assert_true(alone("{ for (i = 0; i < n; ++x) }"));
    assert_true(alone("{ foo(); // a comment = \n    ++x; }"));
    assert_true(alone("{ foo(); /* =\n#endif\n */ ++x; }"));
    assert_true(alone("{ s = \"#if\"; t = '#'; ++x; }"));
    assert_true(alone("{ s = R\"d(\n#endif\n)d\";\n ++x; }"));
    /* The value may be used: here, or by an #if arm in another configuration. */
    assert_false(alone("{ y = ++x; }"));
    assert_false(alone("{ return ++x; }"));
    assert_false(alone("{ int y = // ;\n ++x; }"));
    assert_false(alone("{\n#ifndef NDEBUG\n    int id =\n#endif\n        ++x;\n}\n"));
    assert_false(alone("{\n    foo();\n#ifdef STATS\n    bar();\n#endif\n    ++x;\n}\n"));
    assert_false(alone("{\n    ++x\n#ifndef NDEBUG\n    > 0 ? ok() : fail()\n#endif\n    ;\n}\n"));
    assert_false(alone("{ foo();\n  #  define N 1\n ++x; }"));
    /* The text only tells what is around the code; that `(void)` is a cast is the parse's
     * to say (a cast's operand is no statement, and is never asked about). */
    assert_true(alone("{ (void)++x; }"));
    assert_false(alone("{ ++x, foo(); }"));
    /* Not read from a block's "{", or the code inside a literal: it cannot tell. */
    assert_false(hs_text_statement_alone("foo(); ++x;", 11, 0, 7, 10));
    assert_false(alone("{ s = \"a; ++x\"; }"));
    assert_false(hs_text_statement_alone(NULL, 0, 0, 1, 2));
}

static void test_has_directive(void **state)
{
    (void)state;
    const char *arms = "x +=\n#ifdef BIG\n        4 +\n#endif\n        2";
    assert_true(hs_text_has_directive(arms, strlen(arms)));
    assert_true(hs_text_has_directive("f(a,\n   #  if A\n b)", 17));
    assert_false(hs_text_has_directive("x += 2", 6));
    assert_false(hs_text_has_directive("#x", 2)); /* the first line starts inside code */
    assert_false(hs_text_has_directive("a # b\n c", 8));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_simple),          cmocka_unit_test(test_split_nested_and_strings),
        cmocka_unit_test(test_split_no_arguments),    cmocka_unit_test(test_split_qualified_name),
        cmocka_unit_test(test_split_rejects_non_calls), cmocka_unit_test(test_join),
        cmocka_unit_test(test_simple_operands),       cmocka_unit_test(test_operand_and_deref),
        cmocka_unit_test(test_edit_new),              cmocka_unit_test(test_statement_alone),
        cmocka_unit_test(test_has_directive),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
