/*
 * test_ruledata.c - unit tests for the rule-data loader (analyzer/ruledata/ruledata.c): valid files,
 * the bundled rules/ folder, override order, name patterns, and errors that name the file.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hotscan/ruledata.h"

#ifndef HOTSCAN_TEST_RULES_DIR
#error "tests/CMakeLists.txt must define HOTSCAN_TEST_RULES_DIR"
#endif

/* Each test gets a fresh temporary directory; teardown removes it and what is in it. */
typedef struct {
    char dir[64];
} fixture;

static int setup(void **state)
{
    fixture *fx = calloc(1, sizeof *fx);
    if (!fx)
        return -1;
    strcpy(fx->dir, "/tmp/hotscan-ruledata-XXXXXX");
    if (!mkdtemp(fx->dir)) {
        free(fx);
        return -1;
    }
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    fixture *fx = *state;
    DIR *d = opendir(fx->dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char *p = hs_path_join(fx->dir, e->d_name);
            unlink(p);
            free(p);
        }
        closedir(d);
    }
    rmdir(fx->dir);
    free(fx);
    return 0;
}

/* Writes `text` to dir/name and returns the path (caller frees). */
static char *write_file(const fixture *fx, const char *name, const char *text)
{
    char *path = hs_path_join(fx->dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
    return path;
}

/* Loads `text` as one file and expects it to fail; returns the error (caller frees). */
static char *load_expect_error(const fixture *fx, const char *name, const char *text)
{
    char *path = write_file(fx, name, text);
    hs_ruledata *rd = hs_ruledata_create();
    char *err = NULL;
    assert_false(hs_ruledata_load_file(rd, path, &err));
    assert_non_null(err);
    /* every error names the file it is about */
    assert_non_null(strstr(err, path));
    /* a failed file is not recorded as loaded */
    assert_int_equal(rd->files.len, 0);
    hs_ruledata_delete(rd);
    free(path);
    return err;
}

/* ---- valid data ---- */

static void test_cost_names_round_trip(void **state)
{
    (void)state;
    for (int c = 0; c < HS_COST_COUNT; c++) {
        hs_cost back;
        assert_true(hs_cost_parse(hs_cost_name((hs_cost)c), &back));
        assert_int_equal(back, c);
    }
    assert_string_equal(hs_cost_name(HS_COST_SYSCALL), "syscall");
    assert_string_equal(hs_cost_name(HS_COST_CYCLE), "cycle-counter");
    assert_string_equal(hs_cost_name(HS_COST_COUNT), "unknown");
    hs_cost c;
    assert_false(hs_cost_parse("fast", &c));
    assert_false(hs_cost_parse("", &c));
}

static void test_load_valid_file(void **state)
{
    fixture *fx = *state;
    char *path = write_file(fx, "project.json",
        "{\n"
        "  \"description\": \"a project's wrappers\",\n"
        "  \"comment\": \"ignored\",\n"
        "  \"timers\": [\n"
        "    {\"name\": \"clock\", \"clock\": \"process CPU time\", \"cost\": \"syscall\", \"note\": \"x\"},\n"
        "    {\"name\": \"clock_gettime\", \"cost\": \"vdso\", \"clock_id_arg\": 0, \"out_arg\": 1},\n"
        "    {\"name\": \"rdtsc_wrapper\", \"cost\": \"cycle-counter\", \"out_arg\": 16}\n"
        "  ],\n"
        "  \"clock_ids\": {\"CLOCK_MONOTONIC\": \"vdso\", \"CLOCK_MONOTONIC_COARSE\": \"coarse\"},\n"
        "  \"blocking_functions\": [\"poll\", \"my_sleep\"],\n"
        "  \"hot_functions\": [\"dispatch_command\", \"Server::handle\"],\n"
        "  \"events\": [{\"name\": \"os_event_set\", \"kind\": \"set\", \"object_arg\": 0}],\n"
        "  \"event_types\": [\"os_event_t\"],\n"
        "  \"relaxed_types\": [\"Atomic_relaxed\"],\n"
        "  \"atomic_wrappers\": [{\"name\": \"my_atomic_add64\"}],\n"
        "  \"timer_replacements\": [{\"timer\": \"time\", \"replacement\": \"thd->start_time\"}]\n"
        "}\n");
    hs_ruledata *rd = hs_ruledata_create();
    char *err = NULL;
    assert_true(hs_ruledata_load_file(rd, path, &err));
    assert_null(err);

    assert_int_equal(rd->timers.len, 3);
    const hs_timer_api *t = hs_ruledata_find_timer(rd, "clock");
    assert_non_null(t);
    assert_string_equal(t->name, "clock");
    assert_string_equal(t->clock, "process CPU time");
    assert_int_equal(t->cost, HS_COST_SYSCALL);
    assert_int_equal(t->clock_id_arg, -1);
    assert_int_equal(t->out_arg, -1);
    assert_string_equal(t->origin, path);

    t = hs_ruledata_find_timer(rd, "clock_gettime");
    assert_non_null(t);
    assert_int_equal(t->cost, HS_COST_VDSO);
    assert_int_equal(t->clock_id_arg, 0);
    assert_int_equal(t->out_arg, 1);
    assert_string_equal(t->clock, "a clock"); /* the default description */

    t = hs_ruledata_find_timer(rd, "rdtsc_wrapper");
    assert_non_null(t);
    assert_int_equal(t->cost, HS_COST_CYCLE);
    assert_int_equal(t->out_arg, 16);

    /* an exact name is not a prefix pattern */
    assert_null(hs_ruledata_find_timer(rd, "clocks"));
    assert_null(hs_ruledata_find_timer(rd, "cloc"));
    assert_null(hs_ruledata_find_timer(rd, "std::clock_gettime"));

    const hs_event_api *ev = hs_ruledata_find_event(rd, "os_event_set");
    assert_non_null(ev);
    assert_string_equal(ev->kind, "set");
    assert_int_equal(ev->object_arg, 0);
    assert_null(hs_ruledata_find_event(rd, "os_event_reset"));
    assert_true(hs_strmap_has(rd->event_types, "os_event_t"));
    assert_true(hs_strmap_has(rd->relaxed_types, "Atomic_relaxed"));
    assert_int_equal(rd->atomic_wrappers.len, 1);
    assert_int_equal(rd->replacements.len, 1);
    hs_timer_replacement *r = rd->replacements.items[0];
    assert_null(r->function);
    assert_string_equal(r->timer, "time");
    assert_string_equal(r->replacement, "thd->start_time");
    assert_non_null(r->description);

    assert_int_equal(rd->files.len, 1);
    assert_string_equal(rd->files.items[0], path);
    hs_ruledata_delete(rd);
    free(path);
}

static void test_clock_id_costs(void **state)
{
    fixture *fx = *state;
    char *a = write_file(fx, "a.json",
        "{\"clock_ids\": {\"CLOCK_REALTIME\": \"vdso\", \"CLOCK_PROCESS_CPUTIME_ID\": \"syscall\",\n"
        "                 \"CLOCK_REALTIME_COARSE\": \"coarse\", \"MY_TSC\": \"cycle-counter\"}}\n");
    char *b = write_file(fx, "b.json", "{\"clock_ids\": {\"CLOCK_REALTIME\": \"syscall\"}}\n");
    hs_ruledata *rd = hs_ruledata_create();
    char *err = NULL;
    assert_true(hs_ruledata_load_file(rd, a, &err));
    hs_cost c = HS_COST_COUNT;
    assert_true(hs_ruledata_clock_id_cost(rd, "CLOCK_REALTIME", &c));
    assert_int_equal(c, HS_COST_VDSO);
    /* HS_COST_SYSCALL is 0: it must still read back as present */
    assert_true(hs_ruledata_clock_id_cost(rd, "CLOCK_PROCESS_CPUTIME_ID", &c));
    assert_int_equal(c, HS_COST_SYSCALL);
    assert_true(hs_ruledata_clock_id_cost(rd, "CLOCK_REALTIME_COARSE", &c));
    assert_int_equal(c, HS_COST_COARSE);
    assert_true(hs_ruledata_clock_id_cost(rd, "MY_TSC", &c));
    assert_int_equal(c, HS_COST_CYCLE);
    assert_false(hs_ruledata_clock_id_cost(rd, "CLOCK_NOPE", &c));
    /* a later file replaces a clock id's cost */
    assert_true(hs_ruledata_load_file(rd, b, &err));
    assert_true(hs_ruledata_clock_id_cost(rd, "CLOCK_REALTIME", &c));
    assert_int_equal(c, HS_COST_SYSCALL);
    assert_true(hs_ruledata_clock_id_cost(rd, "CLOCK_REALTIME_COARSE", &c));
    assert_int_equal(c, HS_COST_COARSE);
    hs_ruledata_delete(rd);
    free(a);
    free(b);
}

static void test_blocking_set(void **state)
{
    fixture *fx = *state;
    char *a = write_file(fx, "a.json", "{\"blocking_functions\": [\"poll\", \"std::this_thread::sleep_for\"]}");
    char *b = write_file(fx, "b.json", "{\"blocking_functions\": [\"my_wait\", \"poll\"]}");
    hs_ruledata *rd = hs_ruledata_create();
    char *err = NULL;
    assert_true(hs_ruledata_load_file(rd, a, &err));
    assert_true(hs_ruledata_load_file(rd, b, &err));
    assert_true(hs_ruledata_is_blocking(rd, "poll"));
    assert_true(hs_ruledata_is_blocking(rd, "std::this_thread::sleep_for"));
    assert_true(hs_ruledata_is_blocking(rd, "my_wait")); /* later files extend */
    assert_false(hs_ruledata_is_blocking(rd, "sleep_for"));
    assert_false(hs_ruledata_is_blocking(rd, "pol"));
    assert_false(hs_ruledata_is_blocking(rd, "clock"));
    assert_int_equal(hs_strmap_size(rd->blocking), 3);
    hs_ruledata_delete(rd);
    free(a);
    free(b);
}

static bool has_string(const hs_vec *v, const char *s)
{
    for (size_t i = 0; i < v->len; i++)
        if (strcmp(v->items[i], s) == 0)
            return true;
    return false;
}

static void test_hot_functions(void **state)
{
    fixture *fx = *state;
    char *a = write_file(fx, "a.json", "{\"hot_functions\": [\"dispatch_command\", \"Server::handle\"]}");
    char *b = write_file(fx, "b.json", "{\"hot_functions\": [\"trx_start_low\"]}");
    hs_ruledata *rd = hs_ruledata_create();
    char *err = NULL;
    assert_true(hs_ruledata_load_file(rd, a, &err));
    assert_int_equal(rd->hot_functions.len, 2);
    assert_true(has_string(&rd->hot_functions, "dispatch_command"));
    assert_true(has_string(&rd->hot_functions, "Server::handle"));
    assert_true(hs_ruledata_load_file(rd, b, &err));
    assert_int_equal(rd->hot_functions.len, 3);
    assert_true(has_string(&rd->hot_functions, "trx_start_low"));
    hs_ruledata_delete(rd);
    free(a);
    free(b);
}

static void test_trailing_star_patterns(void **state)
{
    fixture *fx = *state;
    char *path = write_file(fx, "p.json",
        "{\"timers\": [\n"
        "  {\"name\": \"my_timer_*\", \"cost\": \"vdso\"},\n"
        "  {\"name\": \"my_timer_cycles\", \"cost\": \"cycle-counter\"},\n"
        "  {\"name\": \"ut_time_monotonic*\", \"cost\": \"coarse\"}\n"
        "]}\n");
    hs_ruledata *rd = hs_ruledata_create();
    char *err = NULL;
    assert_true(hs_ruledata_load_file(rd, path, &err));
    const hs_timer_api *t = hs_ruledata_find_timer(rd, "my_timer_microseconds");
    assert_non_null(t);
    assert_string_equal(t->name, "my_timer_*");
    assert_int_equal(t->cost, HS_COST_VDSO);
    t = hs_ruledata_find_timer(rd, "my_timer_"); /* the suffix may be empty */
    assert_non_null(t);
    assert_string_equal(t->name, "my_timer_*");
    /* a later, more specific entry wins over the earlier pattern */
    t = hs_ruledata_find_timer(rd, "my_timer_cycles");
    assert_non_null(t);
    assert_string_equal(t->name, "my_timer_cycles");
    assert_int_equal(t->cost, HS_COST_CYCLE);
    t = hs_ruledata_find_timer(rd, "ut_time_monotonic_us");
    assert_non_null(t);
    assert_int_equal(t->cost, HS_COST_COARSE);
    assert_non_null(hs_ruledata_find_timer(rd, "ut_time_monotonic"));
    /* the prefix must match in full */
    assert_null(hs_ruledata_find_timer(rd, "my_timer"));
    assert_null(hs_ruledata_find_timer(rd, "my_time"));
    assert_null(hs_ruledata_find_timer(rd, "xmy_timer_cycles"));
    assert_null(hs_ruledata_find_timer(rd, "ut_time_mono"));
    hs_ruledata_delete(rd);
    free(path);
}

static void test_override_later_file_replaces(void **state)
{
    fixture *fx = *state;
    /* loaded in name order: 10-base.json, then 20-project.json */
    char *second = write_file(fx, "20-project.json",
        "{\"timers\": [{\"name\": \"time\", \"clock\": \"cached seconds\", \"cost\": \"coarse\"},\n"
        "             {\"name\": \"my_clock\", \"cost\": \"vdso\"}],\n"
        " \"events\": [{\"name\": \"os_event_set\", \"kind\": \"try_set\"}]}\n");
    char *first = write_file(fx, "10-base.json",
        "{\"timers\": [{\"name\": \"time\", \"clock\": \"wall-clock seconds\", \"cost\": \"vdso\", \"out_arg\": 0},\n"
        "             {\"name\": \"clock\", \"cost\": \"syscall\"}],\n"
        " \"events\": [{\"name\": \"os_event_set\", \"kind\": \"set\", \"object_arg\": 0}]}\n");
    char *ignored = write_file(fx, "notes.txt", "this is not rule data {");
    hs_ruledata *rd = hs_ruledata_create();
    char *err = NULL;
    assert_true(hs_ruledata_load_dir(rd, fx->dir, &err));
    assert_null(err);
    assert_int_equal(rd->files.len, 2);
    assert_string_equal(rd->files.items[0], first);
    assert_string_equal(rd->files.items[1], second);

    /* same name: replaced in place, not appended */
    assert_int_equal(rd->timers.len, 3);
    const hs_timer_api *t = hs_ruledata_find_timer(rd, "time");
    assert_non_null(t);
    assert_int_equal(t->cost, HS_COST_COARSE);
    assert_string_equal(t->clock, "cached seconds");
    assert_int_equal(t->out_arg, -1); /* the whole entry is replaced, not merged */
    assert_string_equal(t->origin, second);
    size_t named_time = 0;
    for (size_t i = 0; i < rd->timers.len; i++)
        named_time += strcmp(((hs_timer_api *)rd->timers.items[i])->name, "time") == 0;
    assert_int_equal(named_time, 1);
    t = hs_ruledata_find_timer(rd, "clock");
    assert_non_null(t);
    assert_string_equal(t->origin, first);
    assert_non_null(hs_ruledata_find_timer(rd, "my_clock"));

    assert_int_equal(rd->events.len, 1);
    const hs_event_api *ev = hs_ruledata_find_event(rd, "os_event_set");
    assert_non_null(ev);
    assert_string_equal(ev->kind, "try_set");
    assert_int_equal(ev->object_arg, -1);
    assert_string_equal(ev->origin, second);
    hs_ruledata_delete(rd);
    free(first);
    free(second);
    free(ignored);
}

static void test_bundled_rules_dir(void **state)
{
    (void)state;
    hs_ruledata *rd = hs_ruledata_create();
    char *err = NULL;
    if (!hs_ruledata_load_dir(rd, HOTSCAN_TEST_RULES_DIR, &err))
        fail_msg("bundled rule data failed to load: %s", err);
    assert_true(rd->files.len >= 1);

    const hs_timer_api *t = hs_ruledata_find_timer(rd, "clock");
    assert_non_null(t);
    assert_int_equal(t->cost, HS_COST_SYSCALL);
    t = hs_ruledata_find_timer(rd, "clock_gettime");
    assert_non_null(t);
    assert_int_equal(t->clock_id_arg, 0);
    assert_int_equal(t->out_arg, 1);
    assert_non_null(hs_ruledata_find_timer(rd, "gettimeofday"));
    assert_non_null(hs_ruledata_find_timer(rd, "time"));
    assert_non_null(hs_ruledata_find_timer(rd, "std::chrono::steady_clock::now"));
    assert_non_null(hs_ruledata_find_timer(rd, "std::chrono::system_clock::now"));
    assert_non_null(hs_ruledata_find_timer(rd, "std::chrono::high_resolution_clock::now"));
    assert_non_null(hs_ruledata_find_timer(rd, "QueryPerformanceCounter"));
    assert_non_null(hs_ruledata_find_timer(rd, "my_hrtime"));
    assert_non_null(hs_ruledata_find_timer(rd, "ut_time_us"));
    t = hs_ruledata_find_timer(rd, "my_timer_cycles");
    assert_non_null(t);
    assert_string_equal(t->name, "my_timer_*");
    assert_non_null(hs_ruledata_find_timer(rd, "ut_time_monotonic_ms"));
    assert_null(hs_ruledata_find_timer(rd, "printf"));

    hs_cost c;
    assert_true(hs_ruledata_clock_id_cost(rd, "CLOCK_PROCESS_CPUTIME_ID", &c));
    assert_int_equal(c, HS_COST_SYSCALL);
    assert_true(hs_ruledata_clock_id_cost(rd, "CLOCK_MONOTONIC", &c));
    assert_int_equal(c, HS_COST_VDSO);
    assert_true(hs_ruledata_clock_id_cost(rd, "CLOCK_MONOTONIC_COARSE", &c));
    assert_int_equal(c, HS_COST_COARSE);

    assert_true(hs_ruledata_is_blocking(rd, "poll"));
    assert_true(hs_ruledata_is_blocking(rd, "pthread_cond_wait"));
    assert_false(hs_ruledata_is_blocking(rd, "clock"));

    /* every timer names the bundled file it came from */
    for (size_t i = 0; i < rd->timers.len; i++) {
        const hs_timer_api *ti = rd->timers.items[i];
        assert_non_null(strstr(ti->origin, HOTSCAN_TEST_RULES_DIR));
    }
    hs_ruledata_delete(rd);
}

/* ---- errors ---- */

static void test_error_malformed_json(void **state)
{
    fixture *fx = *state;
    char *path = write_file(fx, "broken.json",
        "{\n"
        "  \"timers\": [\n"
        "    {\"name\": \"x\", \"cost\": \"vdso\",}\n"
        "  ]\n"
        "}\n");
    hs_ruledata *rd = hs_ruledata_create();
    char *err = NULL;
    assert_false(hs_ruledata_load_file(rd, path, &err));
    assert_non_null(err);
    /* "path:line:col: problem" */
    size_t pl = strlen(path);
    assert_int_equal(strncmp(err, path, pl), 0);
    int line = 0, col = 0, used = 0;
    assert_int_equal(sscanf(err + pl, ":%d:%d: %n", &line, &col, &used), 2);
    assert_int_equal(line, 3);
    assert_true(col > 0);
    assert_true(used > 0);
    assert_true(strlen(err + pl + used) > 0);
    assert_int_equal(rd->timers.len, 0);
    assert_int_equal(rd->files.len, 0);
    free(err);
    hs_ruledata_delete(rd);
    free(path);
}

static void test_error_top_level_not_object(void **state)
{
    char *err = load_expect_error(*state, "array.json", "[1, 2, 3]\n");
    free(err);
}

static void test_error_unknown_section(void **state)
{
    char *err = load_expect_error(*state, "section.json", "{\"timerz\": []}\n");
    assert_non_null(strstr(err, "unknown section"));
    assert_non_null(strstr(err, "timerz"));
    free(err);
}

static void test_error_unknown_key_in_timer(void **state)
{
    char *err = load_expect_error(*state, "key.json",
                                  "{\"timers\": [{\"name\": \"my_clock\", \"cost\": \"vdso\", \"cots\": \"vdso\"}]}\n");
    assert_non_null(strstr(err, "unknown key"));
    assert_non_null(strstr(err, "cots"));
    free(err);
}

static void test_error_missing_name(void **state)
{
    char *err = load_expect_error(*state, "noname.json", "{\"timers\": [{\"cost\": \"vdso\"}]}\n");
    assert_non_null(strstr(err, "name"));
    free(err);
}

static void test_error_missing_cost(void **state)
{
    char *err = load_expect_error(*state, "nocost.json", "{\"timers\": [{\"name\": \"my_clock\"}]}\n");
    assert_non_null(strstr(err, "my_clock"));
    assert_non_null(strstr(err, "cost"));
    free(err);
}

static void test_error_bad_cost(void **state)
{
    char *err = load_expect_error(*state, "badcost.json",
                                  "{\"timers\": [{\"name\": \"my_clock\", \"cost\": \"fast\"}]}\n");
    assert_non_null(strstr(err, "my_clock"));
    assert_non_null(strstr(err, "cost"));
    free(err);
    err = load_expect_error(*state, "numcost.json", "{\"timers\": [{\"name\": \"my_clock\", \"cost\": 1}]}\n");
    assert_non_null(strstr(err, "cost"));
    free(err);
    err = load_expect_error(*state, "clockid.json", "{\"clock_ids\": {\"CLOCK_X\": \"cheap\"}}\n");
    assert_non_null(strstr(err, "CLOCK_X"));
    free(err);
}

/* Issue 12, item 12: every way rule data was accepted silently is now an error naming the
 * file, the place in the document and what was expected. */
static void test_error_strict_shapes(void **state)
{
    static const struct {
        const char *json, *where, *expected;
    } cases[] = {
        {"{\"timer_replacements\": [{\"function\": [\"f\"], \"timer\": \"clock\", \"replacement\": \"x\"}]}",
         "timer_replacements[0] (\"clock\").function", "expected a string"},
        {"{\"events\": [{\"name\": \"os_event_wait\", \"kind\": \"wiat\"}]}",
         "events[0] (\"os_event_wait\").kind", "expected one of create, set"},
        {"{\"timers\": [{\"name\": \"my_clock\", \"cost\": \"vdso\", \"clock\": 5}]}",
         "timers[0] (\"my_clock\").clock", "expected a string; got 5"},
        {"{\"timers\": [{\"name\": \"my_*_clock\", \"cost\": \"vdso\"}]}",
         "timers[0] (\"my_*_clock\").name", "at most one `*` at its end"},
        {"{\"blocking_functions\": [\"read*\"]}", "blocking_functions[0]", "without wildcards"},
        {"{\"hot_functions\": [\"dispatch?\"]}", "hot_functions[0]", "without wildcards"},
        {"{\"timers\": [{\"name\": \"a\", \"cost\": \"vdso\", \"name\": \"b\"}]}", "1:", "duplicate"},
        {"{\"atomic_wrappers\": [{\"name\": \"my_inc\", \"order\": \"sequential\"}]}",
         "atomic_wrappers[0] (\"my_inc\").order", "expected one of relaxed"},
        {"{\"atomic_wrappers\": [{\"name\": \"my_inc\", \"object\": 0}]}",
         "atomic_wrappers[0] (\"my_inc\").object", "unknown key"},
        {"{\"events\": [{\"name\": \"e\", \"kind\": \"set\", \"objekt_arg\": 0}]}",
         "events[0] (\"e\").objekt_arg", "unknown key"},
        {"{\"description\": 7}", "description", "a string"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "strict%zu.json", i);
        char *err = load_expect_error(*state, name, cases[i].json);
        if (!strstr(err, name) || !strstr(err, cases[i].where) || !strstr(err, cases[i].expected))
            fail_msg("case %zu: %s", i, err);
        free(err);
    }
}

static void test_error_out_arg_not_an_index(void **state)
{
    static const char *const bad[] = {
        "{\"timers\": [{\"name\": \"my_clock\", \"cost\": \"vdso\", \"out_arg\": \"1\"}]}",
        "{\"timers\": [{\"name\": \"my_clock\", \"cost\": \"vdso\", \"out_arg\": -1}]}",
        "{\"timers\": [{\"name\": \"my_clock\", \"cost\": \"vdso\", \"out_arg\": 17}]}",
        "{\"timers\": [{\"name\": \"my_clock\", \"cost\": \"vdso\", \"out_arg\": 1.5}]}",
        "{\"timers\": [{\"name\": \"my_clock\", \"cost\": \"vdso\", \"clock_id_arg\": true}]}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "arg%zu.json", i);
        char *err = load_expect_error(*state, name, bad[i]);
        assert_non_null(strstr(err, "my_clock"));
        assert_non_null(strstr(err, i == 4 ? "clock_id_arg" : "out_arg"));
        free(err);
    }
}

static void test_error_wrong_section_types(void **state)
{
    static const char *const bad[] = {
        "{\"timers\": {\"name\": \"x\"}}",
        "{\"timers\": [\"clock\"]}",
        "{\"clock_ids\": [\"CLOCK_MONOTONIC\"]}",
        "{\"blocking_functions\": \"poll\"}",
        "{\"blocking_functions\": [\"poll\", 3]}",
        "{\"hot_functions\": [null]}",
        "{\"events\": [{\"name\": \"os_event_set\"}]}",
        "{\"atomic_wrappers\": [{\"op\": \"add\"}]}",
        "{\"timer_replacements\": [{\"timer\": \"time\"}]}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "type%zu.json", i);
        free(load_expect_error(*state, name, bad[i]));
    }
}

static void test_error_missing_file(void **state)
{
    fixture *fx = *state;
    char *path = hs_path_join(fx->dir, "absent.json");
    hs_ruledata *rd = hs_ruledata_create();
    char *err = NULL;
    assert_false(hs_ruledata_load_file(rd, path, &err));
    assert_non_null(err);
    assert_non_null(strstr(err, path));
    free(err);
    hs_ruledata_delete(rd);
    free(path);
}

static void test_error_in_dir_names_the_file(void **state)
{
    fixture *fx = *state;
    char *good = write_file(fx, "a.json", "{\"timers\": [{\"name\": \"clock\", \"cost\": \"syscall\"}]}");
    char *bad = write_file(fx, "b.json", "{\"timers\": [{\"name\": \"clock\", \"cost\": \"free\"}]}");
    hs_ruledata *rd = hs_ruledata_create();
    char *err = NULL;
    assert_false(hs_ruledata_load_dir(rd, fx->dir, &err));
    assert_non_null(err);
    assert_non_null(strstr(err, bad));
    assert_null(strstr(err, good));
    free(err);
    hs_ruledata_delete(rd);
    free(good);
    free(bad);
}

static void test_error_empty_dir(void **state)
{
    fixture *fx = *state;
    hs_ruledata *rd = hs_ruledata_create();
    char *err = NULL;
    assert_false(hs_ruledata_load_dir(rd, fx->dir, &err));
    assert_non_null(err);
    assert_non_null(strstr(err, fx->dir));
    free(err);
    err = NULL;

    /* a folder with files but none of them *.json is just as empty */
    char *txt = write_file(fx, "readme.txt", "{}");
    char *bare = write_file(fx, ".json", "{}"); /* no name before the extension */
    assert_false(hs_ruledata_load_dir(rd, fx->dir, &err));
    assert_non_null(err);
    assert_non_null(strstr(err, fx->dir));
    free(err);
    hs_ruledata_delete(rd);
    free(txt);
    free(bare);
}

/*
 * `hotscan scan --rules DIR` loads DIR after the bundled rules into the same hs_ruledata.
 * A DIR without rule data is a user mistake (a typo'd folder) and must be reported even
 * when earlier directories loaded fine.
 */
static void test_error_empty_dir_after_bundled(void **state)
{
    fixture *fx = *state;
    hs_ruledata *rd = hs_ruledata_create();
    char *err = NULL;
    assert_true(hs_ruledata_load_dir(rd, HOTSCAN_TEST_RULES_DIR, &err));
    size_t before = rd->files.len;
    bool ok = hs_ruledata_load_dir(rd, fx->dir, &err);
    size_t after = rd->files.len;
    bool names_dir = err && strstr(err, fx->dir);
    free(err);
    hs_ruledata_delete(rd);
    assert_int_equal(after, before);
    assert_false(ok);
    assert_true(names_dir);
}

static void test_error_missing_dir(void **state)
{
    fixture *fx = *state;
    char *dir = hs_path_join(fx->dir, "nope");
    hs_ruledata *rd = hs_ruledata_create();
    char *err = NULL;
    assert_false(hs_ruledata_load_dir(rd, dir, &err));
    assert_non_null(err);
    assert_non_null(strstr(err, dir));
    free(err);
    hs_ruledata_delete(rd);
    free(dir);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_cost_names_round_trip),
        T(test_load_valid_file),
        T(test_clock_id_costs),
        T(test_blocking_set),
        T(test_hot_functions),
        T(test_trailing_star_patterns),
        T(test_override_later_file_replaces),
        T(test_bundled_rules_dir),
        T(test_error_malformed_json),
        T(test_error_top_level_not_object),
        T(test_error_unknown_section),
        T(test_error_unknown_key_in_timer),
        T(test_error_missing_name),
        T(test_error_missing_cost),
        T(test_error_bad_cost),
        T(test_error_out_arg_not_an_index),
        T(test_error_strict_shapes),
        T(test_error_wrong_section_types),
        T(test_error_missing_file),
        T(test_error_in_dir_names_the_file),
        T(test_error_empty_dir),
        T(test_error_empty_dir_after_bundled),
        T(test_error_missing_dir),
    };
    return cmocka_run_group_tests(tests, 0, 0);
}
