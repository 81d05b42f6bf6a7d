/*
 * test_prefilter.c - unit tests for the prefilter (analyzer/syntax/prefilter.c,
 * include/hotscan/prefilter.h): which TUs of a small tree written to a temporary folder it
 * leaves out, and the cases it must keep because it cannot reason about them.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hotscan/common.h"
#include "hotscan/prefilter.h"
#include "hotscan/ruledata.h"

static char root[256];
static hs_ruledata *rd;

static void write_at(const char *rel, const char *text)
{
    char *path = hs_printf("%s/%s", root, rel);
    char *dir = hs_dirname(path);
    char *cmd = hs_printf("mkdir -p '%s'", dir);
    assert_int_equal(system(cmd), 0);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    free(cmd);
    free(dir);
    free(path);
}

static hs_tu_input *tu(const char *rel, const char *flag)
{
    hs_tu_input *in = hs_xcalloc(1, sizeof *in);
    in->file = hs_printf("%s/%s", root, rel);
    in->directory = hs_xstrdup(root);
    in->argv = hs_xcalloc(4, sizeof *in->argv);
    in->argv[in->argc++] = hs_xstrdup(strstr(rel, ".cc") ? "c++" : "cc");
    if (flag)
        in->argv[in->argc++] = hs_xstrdup(flag);
    in->argv[in->argc++] = hs_xstrdup("-c");
    in->argv[in->argc++] = hs_xstrdup(in->file);
    return in;
}

/* The decision for tus[0..n): a string of 'k' (kept) and 's' (left out). */
static char *decide(hs_tu_input **tus, size_t n, const char *under)
{
    char *r = hs_printf("%s%s", root, under ? under : "");
    hs_prefilter_options o = {.root = r, .rd = rd};
    hs_prefilter_stats st = {0};
    char *err = NULL;
    bool *skip = hs_prefilter_decide(tus, n, &o, &st, &err);
    assert_non_null(skip);
    assert_int_equal(st.tus, n);
    char *s = hs_xcalloc(n + 1, 1);
    for (size_t i = 0; i < n; i++)
        s[i] = skip[i] ? 's' : 'k';
    free(skip);
    free(r);
    for (size_t i = 0; i < n; i++)
        hs_tu_input_free(tus[i]);
    return s;
}

static int setup(void **state)
{
    (void)state;
    snprintf(root, sizeof root, "/tmp/hotscan-prefilter-XXXXXX");
    assert_non_null(mkdtemp(root));
    char *err = NULL;
    rd = hs_ruledata_create();
    assert_true(hs_ruledata_load_dir(rd, HOTSCAN_TEST_RULES_DIR "/timers", &err));
    assert_true(hs_ruledata_load_dir(rd, HOTSCAN_TEST_RULES_DIR "/atomics", &err));
    assert_true(hs_ruledata_load_dir(rd, HOTSCAN_TEST_RULES_DIR "/events", &err));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char *cmd = hs_printf("rm -rf '%s'", root);
    assert_int_equal(system(cmd), 0);
    free(cmd);
    hs_ruledata_delete(rd);
    return 0;
}

/* A clock reached only through a macro of a header found with -I: kept; a TU with nothing
 * relevant: left out. Without the -I the header is not found, so nothing names the clock. */
static void test_macro_header_through_include_path(void **state)
{
    (void)state;
    write_at("m/include/now.h", "#include <time.h>\n#define NOW() clock()\n");
    write_at("m/src/a.c", "#include <now.h>\nlong stamp(void) { return (long)NOW(); }\n");
    write_at("m/src/b.c", "int add(int x, int y) { return x + y; }\n");
    hs_tu_input *tus[] = {tu("m/src/a.c", "-Im/include"), tu("m/src/b.c", "-Im/include")};
    char *got = decide(tus, 2, NULL);
    assert_string_equal(got, "ks");
    free(got);
    hs_tu_input *bare[] = {tu("m/src/a.c", NULL), tu("m/src/b.c", NULL)};
    got = decide(bare, 2, NULL);
    assert_string_equal(got, "ss");
    free(got);
}

/* A header outside the root is not a project file: not read. */
static void test_headers_outside_the_root_are_not_read(void **state)
{
    (void)state;
    write_at("o/outside/now.h", "#define NOW() clock()\n");
    write_at("o/in/a.c", "#include \"../outside/now.h\"\nlong stamp(void) { return (long)NOW(); }\n");
    hs_tu_input *tus[] = {tu("o/in/a.c", NULL)};
    char *got = decide(tus, 1, "/o/in");
    assert_string_equal(got, "s");
    free(got);
}

/* What the text cannot show keeps the TU: a computed include, a C++ file with a syntax
 * error, a definition made by a token-pasting macro; and an atomic only the TU can use. */
static void test_unsure_and_own_atomics_are_kept(void **state)
{
    (void)state;
    write_at("u/computed.c", "#define H \"x.h\"\n#include H\nint f(void) { return 1; }\n");
    write_at("u/broken.cc", "class A { int f() { return 1 } };\nint g() { return 2; }\n");
    write_at("u/paste.c", "#define DEF(n) int n##_impl(void)\nDEF(get) { return 3; }\n");
    write_at("u/own.c", "static _Atomic int hits;\nint peek(void) { return 4; }\n");
    write_at("u/plain.c", "int h(void) { return 5; }\n");
    hs_tu_input *tus[] = {tu("u/computed.c", NULL), tu("u/broken.cc", NULL), tu("u/paste.c", NULL),
                          tu("u/own.c", NULL), tu("u/plain.c", NULL)};
    char *got = decide(tus, 5, NULL);
    assert_string_equal(got, "kkkks");
    free(got);
}

/* The call graph: a caller of a clock reader (transitively, also through a pointer call to a
 * function whose address is taken) is kept; a callee of it that never blocks is not. */
static void test_callers_of_clock_readers_are_kept(void **state)
{
    (void)state;
    write_at("g/clock.c", "#include <time.h>\nint helper(int);\nlong now(void) { return (long)time(0) + helper(1); }\n");
    write_at("g/caller.c", "long now(void);\nlong twice(void) { return now() * 2; }\n");
    write_at("g/helper.c", "int helper(int x) { return x + 1; }\n");
    write_at("g/table.c", "long twice(void);\nlong (*slot)(void);\nvoid setup(void) { slot = twice; }\n");
    write_at("g/via.c", "struct ops { long (*fn)(void); };\nlong run(struct ops *o) { return o->fn(); }\n");
    hs_tu_input *tus[] = {tu("g/clock.c", NULL), tu("g/caller.c", NULL), tu("g/helper.c", NULL),
                          tu("g/table.c", NULL), tu("g/via.c", NULL)};
    char *got = decide(tus, 5, NULL);
    assert_string_equal(got, "kkskk");
    free(got);
}

/* Atomic names: a use of a header's atomic field keeps the TU; the header's declaration alone
 * does not; a plain use of an integer a builtin updates elsewhere keeps it. */
static void test_atomic_names(void **state)
{
    (void)state;
    write_at("a/stats.h", "struct stats { _Atomic long served; long other; };\nextern struct stats st;\nextern long raw;\n");
    write_at("a/use.c", "#include \"stats.h\"\nlong get(void) { return st.served; }\n");
    write_at("a/other.c", "#include \"stats.h\"\nlong get_other(void) { return st.other; }\n");
    write_at("a/bump.c", "#include \"stats.h\"\nvoid bump(void) { __atomic_fetch_add(&raw, 1, __ATOMIC_SEQ_CST); }\n");
    write_at("a/read.c", "#include \"stats.h\"\nlong peek(void) { return raw; }\n");
    hs_tu_input *tus[] = {tu("a/use.c", NULL), tu("a/other.c", NULL), tu("a/bump.c", NULL), tu("a/read.c", NULL)};
    char *got = decide(tus, 4, NULL);
    assert_string_equal(got, "kskk");
    free(got);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_macro_header_through_include_path),
        cmocka_unit_test(test_headers_outside_the_root_are_not_read),
        cmocka_unit_test(test_unsure_and_own_atomics_are_kept),
        cmocka_unit_test(test_callers_of_clock_readers_are_kept),
        cmocka_unit_test(test_atomic_names),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
