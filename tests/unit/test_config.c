/*
 * test_config.c - unit tests for the .hotscan.yml loader and the option merge
 * (analyzer/cli/config.c): keys are looked up in the option table it is given, lists and
 * scalars merge with the command line as documented, paths are relative to the file.
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

#include "config.h"

enum { O_HOT = 256, O_LEVEL, O_FLAG, O_DIR, O_NEW };
static const hs_cli_option table[] = {
    {"hot", 0, O_HOT, "FUNC", "a hot root", HS_OPT_LIST, NULL, HS_COMPLETE_NOTHING, NULL},
    {"level", 0, O_LEVEL, "L", "a level", 0, NULL, HS_COMPLETE_NOTHING, NULL},
    {"flag", 0, O_FLAG, NULL, "a flag", 0, NULL, HS_COMPLETE_NOTHING, NULL},
    {"dir", 0, O_DIR, "DIR", "a path", HS_OPT_PATH, NULL, HS_COMPLETE_NOTHING, NULL},
    {"brand-new", 0, O_NEW, "N", "any option", 0, NULL, HS_COMPLETE_NOTHING, NULL},
    {"jobs", 'j', 'j', "N", "with a letter", 0, NULL, HS_COMPLETE_NOTHING, NULL},
    {"secret", 's', 's', NULL, "the command line's only", HS_OPT_CLI_ONLY, NULL, HS_COMPLETE_NOTHING, NULL},
    HS_OPTIONS_END,
};

static char dir[64];

static char *write_config(const char *text)
{
    char *path = hs_path_join(dir, ".hotscan.yml");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static int setup(void **state)
{
    (void)state;
    strcpy(dir, "/tmp/hotscan-test-config-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char *path = hs_path_join(dir, ".hotscan.yml");
    unlink(path);
    free(path);
    rmdir(dir);
    return 0;
}

static const char *value_of(const hs_opt_set *s, size_t i)
{
    return ((hs_opt_entry *)s->entries.items[i])->value;
}

static void test_load_and_merge(void **state)
{
    (void)state;
    char *path = write_config("hot: [a, b]\nlevel: low\nflag: yes\ndir: sub\nbrand-new: 7\n");
    hs_opt_set s;
    hs_opt_set_init(&s);
    char *err = NULL;
    assert_true(hs_config_load(&s, table, path, &err));
    assert_int_equal(s.entries.len, 6);
    assert_string_equal(value_of(&s, 0), "a");
    assert_string_equal(((hs_opt_entry *)s.entries.items[0])->origin + strlen(path), ":1");
    assert_null(value_of(&s, 3)); /* the flag */
    char *sub = hs_path_join(dir, "sub");
    char *real = hs_realpath(dir);
    char *want = hs_path_join(real, "sub");
    assert_string_equal(value_of(&s, 4), want); /* relative to the file's folder */
    free(sub);
    free(real);
    free(want);
    assert_string_equal(value_of(&s, 5), "7"); /* any option in the table is a key */

    /* The command line: a scalar replaces, a list's first value replaces the file's list. */
    hs_opt_set_record(&s, hs_opt_find(table, "level", 0), "high", NULL, true);
    hs_opt_set_record(&s, hs_opt_find(table, "hot", 0), "c", NULL, true);
    hs_opt_set_record(&s, hs_opt_find(table, "hot", 0), "d", NULL, true);
    hs_opt_set_record(&s, hs_opt_find(table, NULL, 'j'), "3", NULL, true);
    size_t hot = 0, level = 0;
    for (size_t i = 0; i < s.entries.len; i++) {
        hs_opt_entry *e = s.entries.items[i];
        if (strcmp(e->opt->name, "hot") == 0) {
            assert_string_equal(e->value, hot == 0 ? "c" : "d");
            assert_null(e->origin);
            hot++;
        }
        if (strcmp(e->opt->name, "level") == 0) {
            assert_string_equal(e->value, "high");
            level++;
        }
    }
    assert_int_equal(hot, 2);
    assert_int_equal(level, 1);
    char *buf = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&buf, &size);
    hs_opt_set_dump(out, &s, table);
    fclose(out);
    assert_non_null(strstr(buf, "\nhot:\n  - c\n  - d\nlevel: high\nflag: true\n"));
    assert_non_null(strstr(buf, "\njobs: 3\n"));
    free(buf);
    hs_opt_set_free(&s);
    free(path);
}

static void expect_error(const char *text, const char *message)
{
    char *path = write_config(text);
    hs_opt_set s;
    hs_opt_set_init(&s);
    char *err = NULL;
    assert_false(hs_config_load(&s, table, path, &err));
    assert_non_null(err);
    if (!strstr(err, message))
        fail_msg("'%s' does not say '%s'", err, message);
    assert_int_equal(strncmp(err, path, strlen(path)), 0); /* names the file */
    free(err);
    hs_opt_set_free(&s);
    free(path);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("hot: [a]\nnope: 1\n", ":2: unknown key 'nope'; the keys are the long options: hot, level");
    expect_error("secret: true\n", ":1: unknown key 'secret'");
    expect_error("level: [a, b]\n", ":1: 'level' takes one value, not a list");
    expect_error("flag: maybe\n", ":1: 'flag' is true or false, not 'maybe'");
    expect_error("- a\n- b\n", ":1: the top level must be a mapping");
    expect_error("hot: [a\n", "not valid YAML");
    expect_error("hot: [[a]]\n", "'hot' needs a single value here, not a list");
    /* A key given twice is refused, naming the key and both lines (libyaml would keep both). */
    expect_error("hot: [a]\nlevel: low\nhot: [b]\n", ":3: duplicate key 'hot' (first at line 1)");
    expect_error("level: low\nflag: yes\nlevel: high\n", ":3: duplicate key 'level' (first at line 1)");
    expect_error("\"level\": low\nlevel: high\n", ":2: duplicate key 'level' (first at line 1)");
}

static void test_find_walks_up(void **state)
{
    (void)state;
    char *path = write_config("level: low\n");
    char *deep = hs_path_join(dir, "a");
    char *deeper = hs_path_join(deep, "b");
    mkdir(deep, 0700);
    mkdir(deeper, 0700);
    char *found = hs_config_find(deeper);
    char *real = hs_realpath(path);
    assert_non_null(found);
    assert_string_equal(found, real);
    free(found);
    rmdir(deeper);
    rmdir(deep);
    free(deeper);
    free(deep);
    free(real);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_and_merge),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_find_walks_up),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
