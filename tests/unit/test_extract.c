/*
 * test_extract.c - unit tests for the extract stage's frame (analyzer/extract/extract.c and
 * the collector table, rules/registry.c), through the public API:
 *
 *   - a compile command whose file and -I paths are relative to its directory is parsed
 *     from another directory, and the process's own directory is left as it was (the
 *     library never calls chdir);
 *   - a directory that does not exist is an error for that TU;
 *   - the collector table lists the families in the facts document's key order;
 *   - options libclang does not know are told apart from those it knows (arg_filter.c),
 *     and leaving them out changes no fact: the unknown argument is still listed.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <clang-c/Index.h>
#include "hotscan/parse_options.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hotscan/arg_filter.h"
#include "hotscan/extract.h"
#include "hotscan/ruledata.h"
#include "hotscan/walk.h"

#ifndef HOTSCAN_TEST_RULES_DIR
#error "tests/CMakeLists.txt must define HOTSCAN_TEST_RULES_DIR"
#endif

typedef struct {
    char dir[64];      /* proj/ with build/, include/, src/ */
    hs_ruledata *rd;
    CXIndex index;
    json_t *facts;
} fixture;

static char *in_dir(const fixture *fx, const char *name)
{
    return hs_path_join(fx->dir, name);
}

static void write_file(const fixture *fx, const char *name, const char *text)
{
    char *path = in_dir(fx, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    free(path);
}

static int setup(void **state)
{
    fixture *fx = calloc(1, sizeof *fx);
    if (!fx)
        return -1;
    strcpy(fx->dir, "/tmp/hotscan-extract-XXXXXX");
    if (!mkdtemp(fx->dir)) {
        free(fx);
        return -1;
    }
    for (const char *const *d = (const char *const[]){"build", "include", "src", NULL}; *d; d++) {
        char *p = in_dir(fx, *d);
        mkdir(p, 0755);
        free(p);
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

static int teardown(void **state)
{
    fixture *fx = *state;
    json_decref(fx->facts);
    clang_disposeIndex(fx->index);
    hs_ruledata_delete(fx->rd);
    for (const char *const *n = (const char *const[]){"include/ticks.h", "src/app.c", NULL}; *n; n++) {
        char *p = in_dir(fx, *n);
        unlink(p);
        free(p);
    }
    for (const char *const *d = (const char *const[]){"build", "include", "src", NULL}; *d; d++) {
        char *p = in_dir(fx, *d);
        rmdir(p);
        free(p);
    }
    rmdir(fx->dir);
    free(fx);
    return 0;
}

/* `cc -I../include -c ../src/app.c` run in proj/build, as a compile database has it. */
static hs_tu_input *relative_command(const fixture *fx, const char *directory)
{
    hs_tu_input *in = calloc(1, sizeof *in);
    assert_non_null(in);
    in->file = in_dir(fx, "src/app.c");
    in->directory = hs_xstrdup(directory);
    const char *args[] = {"cc", "-std=gnu17", "-I../include", "-c", "../src/app.c", "-o", "app.o"};
    in->argc = (int)(sizeof args / sizeof args[0]);
    in->argv = hs_xcalloc((size_t)in->argc + 1, sizeof(char *));
    for (int i = 0; i < in->argc; i++)
        in->argv[i] = hs_xstrdup(args[i]);
    return in;
}

/* The clock API reads among the facts' clock_reads (not the candidate calls). */
static size_t api_reads(json_t *reads)
{
    size_t n = 0, i;
    json_t *r;
    json_array_foreach(reads, i, r) n += !json_is_true(json_object_get(r, "candidate"));
    return n;
}

static void write_sources(const fixture *fx)
{
    write_file(fx, "include/ticks.h",
               "#include <time.h>\n"
               "static inline long ticks_sum(int n) { long t = 0; for (int i = 0; i < n; i++) t += clock(); return t; }\n");
    write_file(fx, "src/app.c",
               "#include \"ticks.h\"\n"
               "long app_spin(int n) { long t = 0; for (int i = 0; i < n; i++) t += time(NULL); return t + ticks_sum(n); }\n");
}

static void test_relative_command_without_chdir(void **state)
{
    fixture *fx = *state;
    write_sources(fx);
    char before[4096], after[4096];
    assert_non_null(getcwd(before, sizeof before));
    char *build = in_dir(fx, "build");
    hs_tu_input *in = relative_command(fx, build);
    char *err = NULL;
    fx->facts = hs_extract_tu(fx->index, in, fx->rd, fx->dir, NULL, &err);
    if (!fx->facts)
        fail_msg("extract: %s", err ? err : "?");
    assert_non_null(getcwd(after, sizeof after));
    assert_string_equal(before, after);

    json_t *errors = json_object_get(fx->facts, "parse_errors");
    if (json_array_size(errors))
        fail_msg("the relative -I did not resolve: %s", json_string_value(json_array_get(errors, 0)));
    /* One read in the header found through -I../include, one in the relative main file. */
    char *real_dir = hs_realpath(fx->dir);
    char *header = hs_path_join(real_dir, "include/ticks.h");
    char *source = hs_path_join(real_dir, "src/app.c");
    json_t *reads = json_object_get(fx->facts, "clock_reads");
    assert_int_equal(api_reads(reads), 2);
    int in_header = 0, in_source = 0;
    size_t i;
    json_t *r;
    json_array_foreach(reads, i, r) {
        if (json_is_true(json_object_get(r, "candidate")))
            continue; /* ticks_sum(n): a call that would read a clock if it returned one */
        const char *file = json_string_value(json_object_get(r, "file"));
        in_header += strcmp(file, header) == 0;
        in_source += strcmp(file, source) == 0;
    }
    assert_int_equal(in_header, 1);
    assert_int_equal(in_source, 1);
    free(header);
    free(source);
    free(real_dir);
    free(build);
    hs_tu_input_free(in);
}

static void test_missing_directory_is_an_error(void **state)
{
    fixture *fx = *state;
    write_sources(fx);
    char *gone = in_dir(fx, "no-such-build");
    hs_tu_input *in = relative_command(fx, gone);
    char *err = NULL;
    json_t *facts = hs_extract_tu(fx->index, in, fx->rd, fx->dir, NULL, &err);
    assert_null(facts);
    assert_non_null(err);
    assert_non_null(strstr(err, "cannot enter the build directory"));
    assert_non_null(strstr(err, "no-such-build"));
    free(err);
    free(gone);
    hs_tu_input_free(in);
}

/* The facts document is a wire format: its keys come in one order, the families' lists in
 * the table's. */
static void test_table_order_is_the_facts_order(void **state)
{
    fixture *fx = *state;
    size_t n = 0;
    const hs_collector *const *all = hs_collectors_all(&n);
    assert_int_equal(n, 3);
    assert_string_equal(all[0]->family, "timers");
    assert_string_equal(all[1]->family, "atomics");
    assert_string_equal(all[2]->family, "events");

    write_sources(fx);
    char *build = in_dir(fx, "build");
    hs_tu_input *in = relative_command(fx, build);
    char *err = NULL;
    fx->facts = hs_extract_tu(fx->index, in, fx->rd, fx->dir, NULL, &err);
    if (!fx->facts)
        fail_msg("extract: %s", err ? err : "?");
    static const char *const keys[] = {"facts_version", "tu", "default_flags", "functions", "calls", "fn_stores", "overrides", "clock_reads", "param_caches",
                                       "timed_calls", "interval_fields", "atomics", "events", "event_objects", "parse_errors",
                                       "error_count", "ignored_arguments", "gcc_lenient", "inputs"};
    size_t k = 0;
    const char *key;
    json_t *value;
    json_object_foreach(fx->facts, key, value) {
        assert_true(k < sizeof keys / sizeof keys[0]);
        assert_string_equal(key, keys[k]);
        k++;
    }
    assert_int_equal(k, sizeof keys / sizeof keys[0]);
    free(build);
    hs_tu_input_free(in);
}

/* Calls through slots (fields, globals, array elements) and the stores into them; calls
 * through parameters and plain locals are not recorded. */
static void test_indirect_calls_and_stores(void **state)
{
    fixture *fx = *state;
    write_file(fx, "include/ticks.h", "struct cmd { const char *name; void (*proc)(int); };\n");
    write_file(fx, "src/app.c",
               "#include \"ticks.h\"\n"
               "void get(int a) { (void)a; }\n"
               "void set(int a) { (void)a; }\n"
               "struct cmd table[] = {{\"get\", get}, {.proc = set}};\n"
               "void (*handlers[])(int) = {get, &set};\n"
               "void (*hook)(int);\n"
               "void init(void) { hook = &get; }\n"
               "void run(struct cmd *c, int i, void (*param)(int)) {\n"
               "    void (*local)(int) = set;\n"
               "    c->proc(i); (*handlers[i])(i); hook(i); param(i); local(i);\n"
               "}\n");
    char *build = in_dir(fx, "build");
    hs_tu_input *in = relative_command(fx, build);
    char *err = NULL;
    fx->facts = hs_extract_tu(fx->index, in, fx->rd, fx->dir, NULL, &err);
    if (!fx->facts)
        fail_msg("extract: %s", err ? err : "?");
    json_t *calls = json_object_get(fx->facts, "calls");
    const char *want_via[] = {"c->proc", "(*handlers[i])", "hook"};
    const char *want_slot[] = {"c:@S@cmd@FI@proc", "c:@handlers", "c:@hook"};
    assert_int_equal(json_array_size(calls), 3);
    for (size_t i = 0; i < 3; i++) {
        json_t *c = json_array_get(calls, i);
        assert_null(json_object_get(c, "callee"));
        assert_string_equal(json_string_value(json_object_get(c, "slot")), want_slot[i]);
        assert_string_equal(json_string_value(json_object_get(c, "via")), want_via[i]);
    }
    json_t *stores = json_object_get(fx->facts, "fn_stores");
    const char *want[][2] = {{"c:@S@cmd@FI@proc", "c:@F@get"}, {"c:@S@cmd@FI@proc", "c:@F@set"},
                             {"c:@handlers", "c:@F@get"}, {"c:@handlers", "c:@F@set"},
                             {"c:@hook", "c:@F@get"}};
    assert_int_equal(json_array_size(stores), 5);
    for (size_t i = 0; i < 5; i++) {
        json_t *st = json_array_get(stores, i);
        assert_string_equal(json_string_value(json_object_get(st, "slot")), want[i][0]);
        assert_string_equal(json_string_value(json_object_get(st, "function")), want[i][1]);
    }
    assert_int_equal(json_array_size(json_object_get(fx->facts, "overrides")), 0);
    free(build);
    hs_tu_input_free(in);
}

/* Only options libclang itself names as unknown are left out; values of options that take
 * the next argument (-Xclang's cc1 option, -mllvm's) are never asked about. */
static void test_unknown_options_classified(void **state)
{
    fixture *fx = *state;
    char *args[] = {"cc", "-O2", "-fvect-cost-model=very-cheap", "-Wall", "-Wno-clobbered", "-Wshift-overflow=2",
                    "-Wduplicated-cond", "-fwrapv", "-Wl,--as-needed", "-Xclang", "-fno-validate-pch",
                    "-fno-such-option-anywhere", "-march=x86-64", "-Werror=format", "-c", "a.c"};
    int argc = (int)(sizeof args / sizeof args[0]);
    hs_arg_verdict want[] = {HS_ARG_KEEP, HS_ARG_KEEP, HS_ARG_UNKNOWN_OPTION, HS_ARG_KEEP,
                             HS_ARG_UNKNOWN_WARNING, HS_ARG_UNKNOWN_WARNING, HS_ARG_UNKNOWN_WARNING,
                             HS_ARG_KEEP, HS_ARG_KEEP, HS_ARG_KEEP, HS_ARG_KEEP, HS_ARG_UNKNOWN_OPTION,
                             HS_ARG_KEEP, HS_ARG_KEEP, HS_ARG_KEEP, HS_ARG_KEEP};
    hs_arg_filter *f = hs_arg_filter_create();
    hs_arg_verdict got[sizeof args / sizeof args[0]];
    /* Twice: the second answer comes from the memo, and must be the same. */
    for (int round = 0; round < 2; round++) {
        hs_arg_filter_classify(f, fx->index, args, argc, got);
        for (int i = 0; i < argc; i++)
            if (got[i] != want[i])
                fail_msg("round %d: %s: verdict %d, want %d", round, args[i], (int)got[i], (int)want[i]);
    }
    hs_arg_filter_delete(f);
}

/* The same TU with gcc-only options, parsed as written (no filter) and with them left out
 * (a worker's filter): the same facts, the same ignored list. */
static void test_unknown_options_left_out_same_facts(void **state)
{
    fixture *fx = *state;
    write_sources(fx);
    char *build = in_dir(fx, "build");
    hs_tu_input *in = calloc(1, sizeof *in);
    assert_non_null(in);
    in->file = in_dir(fx, "src/app.c");
    in->directory = hs_xstrdup(build);
    /* -fno-omit-frame-pointr: clang suggests a near option ("did you mean"). */
    const char *args[] = {"cc", "-std=gnu17", "-fvect-cost-model=very-cheap", "-Wno-clobbered", "-Wall",
                          "-fno-omit-frame-pointr", "-I../include", "-c", "../src/app.c", "-o", "app.o"};
    in->argc = (int)(sizeof args / sizeof args[0]);
    in->argv = hs_xcalloc((size_t)in->argc + 1, sizeof(char *));
    for (int i = 0; i < in->argc; i++)
        in->argv[i] = hs_xstrdup(args[i]);
    char *err = NULL;
    fx->facts = hs_extract_tu(fx->index, in, fx->rd, fx->dir, NULL, &err);
    if (!fx->facts)
        fail_msg("extract: %s", err ? err : "?");
    hs_arg_filter *filter = hs_arg_filter_create();
    json_t *filtered = hs_extract_tu_cached(fx->index, in, fx->rd, fx->dir, NULL, filter, NULL, &err);
    if (!filtered)
        fail_msg("extract with the filter: %s", err ? err : "?");
    const char *keys[] = {"functions", "calls", "clock_reads", "atomics", "events", "parse_errors",
                          "error_count", "ignored_arguments"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        if (!json_equal(json_object_get(fx->facts, keys[k]), json_object_get(filtered, keys[k])))
            fail_msg("%s differs with the unknown options left out", keys[k]);
    json_t *ignored = json_object_get(filtered, "ignored_arguments");
    assert_int_equal(json_array_size(ignored), 2);
    assert_string_equal(json_string_value(json_array_get(ignored, 0)), "-fvect-cost-model=very-cheap");
    assert_string_equal(json_string_value(json_array_get(ignored, 1)), "-fno-omit-frame-pointr");
    assert_int_equal(api_reads(json_object_get(filtered, "clock_reads")), 2);
    json_decref(filtered);
    hs_arg_filter_delete(filter);
    free(build);
    hs_tu_input_free(in);
}

/* Which compilers get gcc's leniency: gcc by any of its names, not clang nor another cc. */
static void test_compiler_is_gcc(void **state)
{
    (void)state;
    const char *gcc[] = {"gcc", "g++", "cc", "c++", "/usr/bin/gcc-12", "x86_64-linux-gnu-g++-12",
                         "/usr/lib/ccache/gcc", "arm-none-eabi-gcc", "g++-12.2"};
    const char *other[] = {"clang", "clang++-19", "/usr/bin/clang-19", "x86_64-linux-gnu-clang++", "icc", "tcc",
                           "nvcc", "cl", "", NULL};
    for (size_t i = 0; i < sizeof gcc / sizeof gcc[0]; i++)
        if (!hs_compiler_is_gcc(gcc[i]))
            fail_msg("%s should be gcc", gcc[i]);
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++)
        if (hs_compiler_is_gcc(other[i]))
            fail_msg("%s should not be gcc", other[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compiler_is_gcc),
        cmocka_unit_test_setup_teardown(test_relative_command_without_chdir, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_directory_is_an_error, setup, teardown),
        cmocka_unit_test_setup_teardown(test_table_order_is_the_facts_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_indirect_calls_and_stores, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_options_classified, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_options_left_out_same_facts, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
