/*
 * test_header_prefix.c - the key of the state a TU entered each header in
 * (analyzer/extract/header_prefix.c): the main file's text read as the preprocessor reads
 * it, and the keys libclang's inclusions give.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "header_prefix.h"

/* ---- the main file's text ------------------------------------------------------------ */

static void digest_of(const char *text, unsigned char out[16])
{
    size_t cut = strlen(text);
    unsigned char d[1][16];
    hs_normalized_prefix_digests(text, cut, &cut, 1, d);
    memcpy(out, d[0], 16);
}

static bool same(const char *a, const char *b)
{
    unsigned char da[16], db[16];
    digest_of(a, da);
    digest_of(b, db);
    return memcmp(da, db, 16) == 0;
}

static void test_comments_and_white_space_do_not_count(void **state)
{
    (void)state;
    assert_true(same("/* Copyright 2009 A */\n\n#include \"a.h\"\n", "/*\n * Copyright (c) 2024, B\n */\n#include \"a.h\"\n"));
    assert_true(same("// one\n#include  <x.h>\t// two\n", "#include <x.h>\n"));
    assert_true(same("int  a ;\n\n\nint b;", "int a ;\nint b;"));
    /* A comment is one space: it separates tokens, inside a directive too. */
    assert_true(same("#define A/**/(x) x\n", "#define A (x) x\n"));
    assert_true(same("#define A 1 /* a\n comment */ + 2\n", "#define A 1 + 2\n"));
    /* Backslash-newline joins lines before anything else. */
    assert_true(same("#define A 1 \\\n + 2\n", "#define A 1 + 2\n"));
    assert_true(same("#define A 1 \\\r\n + 2\n", "#define A 1 + 2\n"));
}

static void test_what_the_preprocessor_sees_counts(void **state)
{
    (void)state;
    assert_false(same("#define A(x) x\n", "#define A (x) x\n"));  /* function-like or not */
    assert_false(same("#define A 1\nB\n", "#define A 1 B\n"));    /* where the directive ends */
    assert_false(same("#define A 1\n", "#define A 2\n"));
    assert_false(same("#include \"a.h\"\n", "#include \"b.h\"\n"));
    assert_false(same("ab", "a b"));
    /* Comment markers inside literals and #include <...> names are text. */
    assert_false(same("const char *s = \"/* x */\";\n", "const char *s = \"/* y */\";\n"));
    assert_false(same("const char *s = \"a\\\"/* x */\";\n", "const char *s = \"a\\\"/* y */\";\n"));
    /* A quote in a character literal opens no string: the comment after it is one. */
    assert_true(same("char q = '\"'; /* x */ int e;\n", "char q = '\"'; int e;\n"));
    assert_false(same("#include <sys//a.h>\n", "#include <sys//b.h>\n"));
    assert_false(same("#  include <x/*a*/.h>\n", "#  include <x/*b*/.h>\n"));
    /* A line comment ends at its newline: what follows is code. */
    assert_false(same("// x\n#define A 1\n", "// x #define A 1\n"));
    /* Not a header name where no #include is: `<` is an operator and `//` starts a comment. */
    assert_true(same("int x = a <b; // c\n", "int x = a <b; // d\n"));
}

/* A cut's digest is the digest of the text cut there, whatever cuts come before. */
static void test_each_cut_is_its_prefix(void **state)
{
    (void)state;
    const char *text = "/* lic */\n#include \"a.h\"\n#define S \"x/*y\" // c\nchar c = '\\'';\n"
                       "#define L 1 \\\n  + 2\n#include <b//c.h>\n/* open";
    size_t size = strlen(text);
    size_t cuts[64];
    size_t n = 0;
    for (size_t c = 0; c <= size && n < 64; c += 3)
        cuts[n++] = c;
    unsigned char (*d)[16] = calloc(n, 16);
    hs_normalized_prefix_digests(text, size, cuts, n, d);
    for (size_t k = 0; k < n; k++) {
        /* Cut points inside a backslash-newline are never asked for (a cut is a token's start). */
        if (cuts[k] > 0 && text[cuts[k] - 1] == '\\')
            continue;
        char *alone = strndup(text, cuts[k]);
        unsigned char one[16];
        digest_of(alone, one);
        assert_memory_equal(one, d[k], 16);
        free(alone);
    }
    free(d);
}

/* ---- keys from libclang's inclusions ------------------------------------------------- */

typedef struct {
    char dir[64];
    CXIndex index;
} fixture;

static void write_file(const fixture *fx, const char *name, const char *text)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", fx->dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int setup(void **state)
{
    fixture *fx = calloc(1, sizeof *fx);
    strcpy(fx->dir, "/tmp/hs-prefix-XXXXXX");
    assert_non_null(mkdtemp(fx->dir));
    fx->index = clang_createIndex(0, 0);
    write_file(fx, "a.h", "#ifndef A_H\n#define A_H\n#include \"b.h\"\nstatic inline int a(void) { return B; }\n#endif\n");
    write_file(fx, "b.h", "#ifndef B_H\n#define B_H\n#ifndef B\n#define B 1\n#endif\n#endif\n");
    write_file(fx, "x.def", "X(1)\n");
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    fixture *fx = *state;
    clang_disposeIndex(fx->index);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", fx->dir);
    assert_int_equal(system(cmd), 0);
    free(fx);
    return 0;
}

typedef struct {
    const char *want;          /* the file whose key is asked for (basename) */
    unsigned char key[16];
    int found;                 /* 0 not seen, 1 a key, 2 NULL (entered twice) */
} key_probe;

static void on_key(CXFile file, const unsigned char *key, void *user)
{
    key_probe *p = user;
    CXString name = clang_getFileName(file);
    const char *n = clang_getCString(name);
    const char *base = strrchr(n, '/') ? strrchr(n, '/') + 1 : n;
    if (strcmp(base, p->want) == 0) {
        p->found = key ? 1 : 2;
        if (key)
            memcpy(p->key, key, 16);
    }
    clang_disposeString(name);
}

/* The key `main_name` (written with `text`) entered `header` in. */
static key_probe key_of(const fixture *fx, const char *main_name, const char *text, const char *header)
{
    write_file(fx, main_name, text);
    char path[128];
    snprintf(path, sizeof path, "%s/%s", fx->dir, main_name);
    const char *args[] = {"-std=c11"};
    CXTranslationUnit tu = clang_parseTranslationUnit(fx->index, path, args, 1, NULL, 0, 0);
    assert_non_null(tu);
    key_probe p = {.want = header};
    const unsigned char context[16] = {1};
    char main_dir[128];
    snprintf(main_dir, sizeof main_dir, "%s", path);
    *strrchr(main_dir, '/') = '\0';
    hs_header_prefix_keys(tu, context, sizeof context, main_dir, on_key, &p);
    clang_disposeTranslationUnit(tu);
    return p;
}

static void test_same_state_same_key(void **state)
{
    fixture *fx = *state;
    key_probe one = key_of(fx, "one.c", "/* one.c, by A */\n#include \"a.h\"\nint f(void) { return a(); }\n", "a.h");
    key_probe two = key_of(fx, "two.c", "// two.c\n\n#include \"a.h\"\nint g(void) { return 2; }\n", "a.h");
    assert_int_equal(one.found, 1);
    assert_int_equal(two.found, 1);
    assert_memory_equal(one.key, two.key, 16);
    key_probe nested_one = key_of(fx, "one.c", "#include \"a.h\"\n", "b.h");
    key_probe nested_two = key_of(fx, "two.c", "/* */ #include \"a.h\"\n", "b.h");
    assert_memory_equal(nested_one.key, nested_two.key, 16);
}

static void test_other_state_other_key(void **state)
{
    fixture *fx = *state;
    key_probe plain = key_of(fx, "one.c", "#include \"a.h\"\n", "a.h");
    /* A macro defined before changes what a.h means (B is 2 there). */
    key_probe defined = key_of(fx, "two.c", "#define B 2\n#include \"a.h\"\n", "a.h");
    /* Another file entered before (b.h, with its guard) changes it too. */
    key_probe after_b = key_of(fx, "three.c", "#include \"b.h\"\n#include \"a.h\"\n", "a.h");
    assert_int_equal(defined.found, 1);
    assert_int_equal(after_b.found, 1);
    assert_memory_not_equal(plain.key, defined.key, 16);
    assert_memory_not_equal(plain.key, after_b.key, 16);
    assert_memory_not_equal(defined.key, after_b.key, 16);
}

static void test_file_entered_twice_has_no_key(void **state)
{
    fixture *fx = *state;
    key_probe twice = key_of(fx, "one.c", "#define X(n) int x##n;\n#include \"x.def\"\n#undef X\n"
                                          "#define X(n) int y##n;\n#include \"x.def\"\n", "x.def");
    assert_int_equal(twice.found, 2);
}

static void test_probing_a_file_hashes_the_folder(void **state)
{
    fixture *fx = *state;
    char sub[96], text[256], plain_text[160];
    snprintf(sub, sizeof sub, "%s/sub", fx->dir);
    assert_int_equal(mkdir(sub, 0755), 0);
    /* The same header by its absolute path, from two folders: the same files entered. */
    snprintf(text, sizeof text, "#if __has_include(\"local.h\")\n#define B 3\n#endif\n#include \"%s/a.h\"\n", fx->dir);
    snprintf(plain_text, sizeof plain_text, "#include \"%s/a.h\"\n", fx->dir);
    key_probe probing_here = key_of(fx, "one.c", text, "a.h");
    key_probe probing_there = key_of(fx, "sub/one.c", text, "a.h");
    key_probe plain_here = key_of(fx, "two.c", plain_text, "a.h");
    key_probe plain_there = key_of(fx, "sub/two.c", plain_text, "a.h");
    assert_int_equal(probing_here.found, 1);
    assert_int_equal(probing_there.found, 1);
    assert_memory_not_equal(probing_here.key, probing_there.key, 16);
    assert_memory_equal(plain_here.key, plain_there.key, 16);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_comments_and_white_space_do_not_count),
        cmocka_unit_test(test_what_the_preprocessor_sees_counts),
        cmocka_unit_test(test_each_cut_is_its_prefix),
        cmocka_unit_test_setup_teardown(test_same_state_same_key, setup, teardown),
        cmocka_unit_test_setup_teardown(test_other_state_other_key, setup, teardown),
        cmocka_unit_test_setup_teardown(test_file_entered_twice_has_no_key, setup, teardown),
        cmocka_unit_test_setup_teardown(test_probing_a_file_hashes_the_folder, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
