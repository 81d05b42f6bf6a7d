/*
 * test_adjust.c - unit tests for compile-command adjustment (analyzer/discover/adjust.c):
 * which precompiled-header options are dropped, that -include stays, and where extra
 * arguments go.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hotscan/discover.h"

static hs_tu_input *tu(const char *dir, const char *const *args)
{
    hs_tu_input *in = hs_xcalloc(1, sizeof *in);
    in->file = hs_xstrdup("/x/a.c");
    in->directory = hs_xstrdup(dir);
    while (args[in->argc])
        in->argc++;
    in->argv = hs_xcalloc((size_t)in->argc + 1, sizeof(char *));
    for (int i = 0; i < in->argc; i++)
        in->argv[i] = hs_xstrdup(args[i]);
    return in;
}

static char *joined(const hs_tu_input *in)
{
    hs_buf b;
    hs_buf_init(&b);
    for (int i = 0; i < in->argc; i++)
        hs_buf_printf(&b, "%s%s", i ? " " : "", in->argv[i]);
    return hs_buf_take(&b);
}

static void expect(const char *dir, const char *const *args, char *const *before, size_t nb, char *const *after,
                   size_t na, const char *want, size_t ndropped)
{
    hs_tu_input *in = tu(dir, args);
    hs_strmap *dropped = hs_strmap_create();
    hs_tu_input_adjust(in, before, nb, after, na, dropped);
    char *got = joined(in);
    assert_string_equal(got, want);
    assert_int_equal(hs_strmap_size(dropped), ndropped);
    free(got);
    hs_strmap_delete(dropped);
    hs_tu_input_free(in);
}

static void test_pch_dropped(void **state)
{
    (void)state;
    const char *cmake[] = {"clang", "-Xclang", "-include-pch", "-Xclang", "/b/cmake_pch.h.pch", "-Xclang",
                           "-include", "-Xclang", "/b/cmake_pch.h", "-c", "a.c", NULL};
    expect("/nonexistent", cmake, NULL, 0, NULL, 0, "clang -Xclang -include -Xclang /b/cmake_pch.h -c a.c", 1);
    const char *driver[] = {"clang", "-include-pch", "p.pch", "-include-pch=q.pch", "-include", "p.h", "a.c", NULL};
    expect("/nonexistent", driver, NULL, 0, NULL, 0, "clang -include p.h a.c", 1);
    const char *emit[] = {"clang", "-Xclang", "-emit-pch", "-x", "c-header", "p.h", NULL};
    expect("/nonexistent", emit, NULL, 0, NULL, 0, "clang -x c-header p.h", 1);
    const char *none[] = {"gcc", "-O2", "-include", "config.h", "-Winvalid-pch", "a.c", NULL};
    expect("/nonexistent", none, NULL, 0, NULL, 0, "gcc -O2 -include config.h -Winvalid-pch a.c", 0);
}

static void test_include_with_pch_beside(void **state)
{
    (void)state;
    char dir[] = "/tmp/hotscan-test-adjust-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *gch = hs_path_join(dir, "all.h.gch");
    FILE *f = fopen(gch, "w");
    assert_non_null(f);
    fclose(f);
    const char *args[] = {"g++", "-include", "all.h", "-include", "other.h", "a.cc", NULL};
    expect(dir, args, NULL, 0, NULL, 0, "g++ -Xclang -include -Xclang all.h -include other.h a.cc", 1);
    unlink(gch);
    rmdir(dir);
    free(gch);
}

static void test_extra_args(void **state)
{
    (void)state;
    const char *args[] = {"cc", "-DX", "a.c", NULL};
    char *before[] = {"-DFIRST"};
    char *after[] = {"-DLAST", "-Wno-foo"};
    expect("/nonexistent", args, before, 1, after, 2, "cc -DFIRST -DX a.c -DLAST -Wno-foo", 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pch_dropped),
        cmocka_unit_test(test_include_with_pch_beside),
        cmocka_unit_test(test_extra_args),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
