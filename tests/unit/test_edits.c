/*
 * test_edits.c - unit tests for edit plans (analyzer/fix/edits.c): the safety rules every fix
 * writer shares. Each test builds a small tree in a temporary folder and a report by hand.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "hotscan/edits.h"

/* ---- fixtures ---- */

typedef struct {
    char *base;   /* a temporary folder holding root/ and outside/ */
    char *root;   /* base/root, the report's root */
    json_t *report;
} tree;

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fwrite(text, 1, strlen(text), f);
    fclose(f);
}

static char *tree_path(const tree *t, const char *rel)
{
    return hs_path_join(t->root, rel);
}

static void tree_file(const tree *t, const char *rel, const char *text)
{
    char *path = tree_path(t, rel);
    char *dir = hs_dirname(path);
    mkdir(dir, 0755);
    write_text(path, text);
    free(dir);
    free(path);
}

static int setup(void **state)
{
    tree *t = hs_xcalloc(1, sizeof *t);
    char tmpl[] = "/tmp/hs-test-edits-XXXXXX";
    assert_non_null(mkdtemp(tmpl));
    t->base = hs_realpath(tmpl);
    t->root = hs_path_join(t->base, "root");
    assert_int_equal(mkdir(t->root, 0755), 0);
    char *outside = hs_path_join(t->base, "outside");
    assert_int_equal(mkdir(outside, 0755), 0);
    free(outside);
    t->report = json_pack("{s:i, s:s, s:[], s:{}}", "schema_version", 1, "root", t->root,
                          "findings", "files");
    *state = t;
    return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static int teardown(void **state)
{
    tree *t = *state;
    nftw(t->base, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    json_decref(t->report);
    free(t->root);
    free(t->base);
    free(t);
    return 0;
}

static json_t *edit(const char *file, size_t offset, size_t length, const char *replacement)
{
    return json_pack("{s:s, s:I, s:I, s:s}", "file", file, "offset", (json_int_t)offset, "length",
                     (json_int_t)length, "replacement", replacement);
}

/* A finding with one fix made of `edits` (a new reference is taken over). */
static json_t *finding(tree *t, const char *fingerprint, bool verified, json_t *edits)
{
    json_t *f = json_pack("{s:s, s:s, s:i, s:i, s:s, s:[{s:s, s:b, s:o}], s:s}", "rule",
                          "atomic-seqcst-counter", "file", "a.c", "line", 1, "column", 1,
                          "message", "m", "fixes", "description", "relaxed", "verified", verified,
                          "edits", edits, "fingerprint", fingerprint);
    assert_non_null(f);
    json_array_append_new(json_object_get(t->report, "findings"), f);
    return f;
}

static void record_hash(tree *t, const char *rel, const char *content)
{
    char *hash = hs_content_hash(content, strlen(content));
    json_object_set_new(json_object_get(t->report, "files"), rel,
                        json_pack("{s:s, s:I}", "hash", hash, "size", (json_int_t)strlen(content)));
    free(hash);
}

static bool problems_mention(const hs_edit_plan *plan, const char *a, const char *b)
{
    for (size_t i = 0; i < plan->problems.len; i++) {
        const char *p = plan->problems.items[i];
        if (strstr(p, a) && (!b || strstr(p, b)))
            return true;
    }
    return false;
}

static void build(tree *t, hs_edit_plan *plan)
{
    char *err = NULL;
    bool ok = hs_edit_plan_build(t->report, plan, &err);
    if (!ok)
        fail_msg("plan: %s", err);
    assert_null(err);
}

static const hs_edit *edit_at(const hs_edit_plan *plan, size_t file, size_t k)
{
    const hs_file_edits *fe = plan->files.items[file];
    return fe->edits.items[k];
}

static char *applied(const hs_edit_plan *plan, size_t file)
{
    size_t size;
    char *out = hs_file_edits_apply(plan->files.items[file], &size);
    assert_int_equal(size, strlen(out));
    return out;
}

/* ---- tests ---- */

static void test_identical_edits_from_two_findings_count_once(void **state)
{
    tree *t = *state;
    tree_file(t, "h.h", "static int hits;\nvoid f(void) { __atomic_fetch_add(&hits, 1, __ATOMIC_SEQ_CST); }\n");
    /* The same header edit, found while parsing two TUs. */
    finding(t, "fp-tu1", true, json_pack("[o]", edit("h.h", 61, 16, "__ATOMIC_RELAXED")));
    finding(t, "fp-tu2", true, json_pack("[o]", edit("h.h", 61, 16, "__ATOMIC_RELAXED")));
    hs_edit_plan plan;
    build(t, &plan);
    assert_int_equal(plan.problems.len, 0);
    assert_int_equal(plan.refused, 0);
    assert_int_equal(plan.files.len, 1);
    const hs_file_edits *fe = plan.files.items[0];
    assert_string_equal(fe->path, "h.h");
    assert_int_equal(fe->edits.len, 1);
    assert_string_equal(edit_at(&plan, 0, 0)->finding, "fp-tu1");
    assert_int_equal(edit_at(&plan, 0, 0)->finding_index, 0);
    char *out = applied(&plan, 0);
    assert_string_equal(out, "static int hits;\nvoid f(void) { __atomic_fetch_add(&hits, 1, __ATOMIC_RELAXED); }\n");
    free(out);
    hs_edit_plan_free(&plan);
}

static void test_identical_edits_through_symlinks_count_once(void **state)
{
    tree *t = *state;
    tree_file(t, "inc/h.h", "int a = 1;\n");
    char *link = tree_path(t, "h_link.h");
    assert_int_equal(symlink("inc/h.h", link), 0);
    char *dir_link = tree_path(t, "alias");
    assert_int_equal(symlink("inc", dir_link), 0);
    finding(t, "fp1", true, json_pack("[o]", edit("inc/h.h", 8, 1, "2")));
    finding(t, "fp2", true, json_pack("[o]", edit("h_link.h", 8, 1, "2")));
    finding(t, "fp3", true, json_pack("[o]", edit("alias/h.h", 8, 1, "2")));
    hs_edit_plan plan;
    build(t, &plan);
    assert_int_equal(plan.problems.len, 0);
    assert_int_equal(plan.files.len, 1);
    const hs_file_edits *fe = plan.files.items[0];
    assert_string_equal(fe->path, "inc/h.h"); /* the real path, for a/ and b/ in patches */
    assert_int_equal(fe->edits.len, 1);
    char *out = applied(&plan, 0);
    assert_string_equal(out, "int a = 2;\n");
    free(out);
    hs_edit_plan_free(&plan);
    free(link);
    free(dir_link);
}

static void test_overlapping_edits_are_both_refused(void **state)
{
    tree *t = *state;
    tree_file(t, "a.c", "x = clock(); y = clock();\n");
    finding(t, "fp-first", true, json_pack("[o]", edit("a.c", 4, 7, "now()")));
    finding(t, "fp-second", true, json_pack("[o]", edit("a.c", 8, 3, "(0)")));
    finding(t, "fp-other", true, json_pack("[o]", edit("a.c", 17, 7, "x")));
    hs_edit_plan plan;
    build(t, &plan);
    assert_int_equal(plan.problems.len, 1);
    assert_true(problems_mention(&plan, "fp-first", "fp-second"));
    assert_true(problems_mention(&plan, "a.c", "overlap"));
    assert_int_equal(plan.refused, 2);
    /* The edit that overlaps nothing still goes in. */
    assert_int_equal(plan.files.len, 1);
    assert_int_equal(((hs_file_edits *)plan.files.items[0])->edits.len, 1);
    char *out = applied(&plan, 0);
    assert_string_equal(out, "x = clock(); y = x;\n");
    free(out);
    hs_edit_plan_free(&plan);
}

static void test_adjacent_edits_are_fine(void **state)
{
    tree *t = *state;
    tree_file(t, "a.c", "abcdef\n");
    finding(t, "fp1", true, json_pack("[o]", edit("a.c", 1, 2, "BC")));
    finding(t, "fp2", true, json_pack("[o]", edit("a.c", 3, 2, "DE")));
    finding(t, "fp3", true, json_pack("[o]", edit("a.c", 5, 0, "+"))); /* at the end of fp2's */
    hs_edit_plan plan;
    build(t, &plan);
    assert_int_equal(plan.problems.len, 0);
    assert_int_equal(plan.refused, 0);
    char *out = applied(&plan, 0);
    assert_string_equal(out, "aBCDE+f\n");
    free(out);
    hs_edit_plan_free(&plan);
}

static void test_insertion_points(void **state)
{
    tree *t = *state;
    tree_file(t, "a.c", "0123456789\n");
    /* The same insertion twice: once. */
    finding(t, "same1", true, json_pack("[o]", edit("a.c", 0, 0, "// x\n")));
    finding(t, "same2", true, json_pack("[o]", edit("a.c", 0, 0, "// x\n")));
    /* Two different insertions at one place: the order would be a guess, so neither. */
    finding(t, "ins-a", true, json_pack("[o]", edit("a.c", 3, 0, "A")));
    finding(t, "ins-b", true, json_pack("[o]", edit("a.c", 3, 0, "B")));
    /* An insertion strictly inside a replaced range: neither. */
    finding(t, "repl", true, json_pack("[o]", edit("a.c", 5, 3, "r")));
    finding(t, "inside", true, json_pack("[o]", edit("a.c", 6, 0, "I")));
    /* An insertion where a replacement starts: it goes before it. */
    finding(t, "start-ins", true, json_pack("[o]", edit("a.c", 9, 0, "<")));
    finding(t, "start-repl", true, json_pack("[o]", edit("a.c", 9, 1, "N")));
    hs_edit_plan plan;
    build(t, &plan);
    assert_int_equal(plan.problems.len, 2);
    assert_true(problems_mention(&plan, "ins-a", "ins-b"));
    assert_true(problems_mention(&plan, "repl", "inside"));
    assert_int_equal(plan.refused, 4);
    const hs_file_edits *fe = plan.files.items[0];
    assert_int_equal(fe->edits.len, 3);
    char *out = applied(&plan, 0);
    assert_string_equal(out, "// x\n012345678<N\n");
    free(out);
    hs_edit_plan_free(&plan);
}

static void test_changed_file_is_refused(void **state)
{
    tree *t = *state;
    tree_file(t, "a.c", "int x = 1;\n");
    tree_file(t, "b.c", "int y = 1;\n");
    tree_file(t, "c.c", "int z = 1;\n");
    record_hash(t, "a.c", "int x = 0;\n");   /* same size, other content */
    record_hash(t, "b.c", "int y = 1;\n");   /* unchanged */
    record_hash(t, "c.c", "int z = 1;\n\n"); /* other size */
    finding(t, "fa", true, json_pack("[o]", edit("a.c", 8, 1, "2")));
    finding(t, "fb", true, json_pack("[o]", edit("b.c", 8, 1, "2")));
    finding(t, "fc", true, json_pack("[o]", edit("c.c", 8, 1, "2")));
    hs_edit_plan plan;
    build(t, &plan);
    assert_true(problems_mention(&plan, "a.c", "changed since the scan"));
    assert_true(problems_mention(&plan, "c.c", "changed since the scan"));
    assert_int_equal(plan.problems.len, 2);
    assert_int_equal(plan.stale.len, 2);
    assert_int_equal(plan.refused, 2);
    assert_int_equal(plan.files.len, 1);
    assert_string_equal(((hs_file_edits *)plan.files.items[0])->path, "b.c");
    hs_edit_plan_free(&plan);
}

static void test_paths_outside_the_root_are_refused(void **state)
{
    tree *t = *state;
    char *outside = hs_path_join(t->base, "outside/victim.c");
    write_text(outside, "int v = 1;\n");
    char *link = tree_path(t, "victim_link.c");
    assert_int_equal(symlink(outside, link), 0);
    char *dir_link = tree_path(t, "out");
    assert_int_equal(symlink("../outside", dir_link), 0);
    tree_file(t, "inside.c", "int i = 1;\n");
    char *inside_abs = tree_path(t, "inside.c");

    finding(t, "dotdot", true, json_pack("[o]", edit("../outside/victim.c", 8, 1, "2")));
    finding(t, "absolute", true, json_pack("[o]", edit(outside, 8, 1, "2")));
    finding(t, "via-link", true, json_pack("[o]", edit("victim_link.c", 8, 1, "2")));
    finding(t, "via-dir-link", true, json_pack("[o]", edit("out/victim.c", 8, 1, "2")));
    finding(t, "missing", true, json_pack("[o]", edit("nope.c", 0, 0, "x")));
    /* An absolute path that is under the root is fine. */
    finding(t, "abs-inside", true, json_pack("[o]", edit(inside_abs, 8, 1, "2")));
    hs_edit_plan plan;
    build(t, &plan);
    assert_true(problems_mention(&plan, "../outside/victim.c", "outside the root"));
    assert_true(problems_mention(&plan, outside, "outside the root"));
    assert_true(problems_mention(&plan, "victim_link.c", "outside the root"));
    assert_true(problems_mention(&plan, "out/victim.c", "outside the root"));
    assert_true(problems_mention(&plan, "nope.c", "cannot resolve"));
    assert_int_equal(plan.problems.len, 5);
    assert_int_equal(plan.files.len, 1);
    assert_string_equal(((hs_file_edits *)plan.files.items[0])->path, "inside.c");
    hs_edit_plan_free(&plan);
    free(outside);
    free(link);
    free(dir_link);
    free(inside_abs);
}

static void test_edits_beyond_the_end_are_refused(void **state)
{
    tree *t = *state;
    tree_file(t, "a.c", "12345"); /* 5 bytes, no newline */
    finding(t, "past", true, json_pack("[o]", edit("a.c", 6, 0, "x")));
    finding(t, "long", true, json_pack("[o]", edit("a.c", 3, 3, "x")));
    finding(t, "huge", true, json_pack("[o]", edit("a.c", 1, (size_t)INT64_MAX, "x")));
    finding(t, "at-end", true, json_pack("[o]", edit("a.c", 5, 0, "\n")));
    hs_edit_plan plan;
    build(t, &plan);
    assert_true(problems_mention(&plan, "past", "beyond the end"));
    assert_true(problems_mention(&plan, "long", "beyond the end"));
    assert_true(problems_mention(&plan, "huge", "beyond the end"));
    assert_int_equal(plan.problems.len, 3);
    assert_int_equal(plan.refused, 3);
    char *out = applied(&plan, 0);
    assert_string_equal(out, "12345\n");
    free(out);
    hs_edit_plan_free(&plan);
}

static void test_unverified_fixes_are_ignored(void **state)
{
    tree *t = *state;
    tree_file(t, "a.c", "abc\n");
    finding(t, "unverified", false, json_pack("[o]", edit("a.c", 0, 1, "A")));
    /* No "verified" at all counts as unverified too. */
    json_t *f = finding(t, "no-flag", true, json_pack("[o]", edit("a.c", 1, 1, "B")));
    json_object_del(json_array_get(json_object_get(f, "fixes"), 0), "verified");
    /* An unverified first fix, a verified second one: the verified one. */
    json_t *g = finding(t, "second", false, json_pack("[o]", edit("a.c", 2, 1, "X")));
    json_array_append_new(json_object_get(g, "fixes"),
                          json_pack("{s:s, s:b, s:[o]}", "description", "d", "verified", 1,
                                    "edits", edit("a.c", 2, 1, "C")));
    /* Alternatives: only the first verified fix of a finding is taken. */
    json_t *h = finding(t, "alternatives", true, json_pack("[o]", edit("a.c", 3, 0, "!")));
    json_array_append_new(json_object_get(h, "fixes"),
                          json_pack("{s:s, s:b, s:[o]}", "description", "d", "verified", 1,
                                    "edits", edit("a.c", 3, 0, "?")));
    hs_edit_plan plan;
    build(t, &plan);
    assert_int_equal(plan.problems.len, 0);
    assert_int_equal(plan.refused, 0);
    char *out = applied(&plan, 0);
    assert_string_equal(out, "abC!\n");
    free(out);
    hs_edit_plan_free(&plan);
}

static void test_a_fix_is_all_or_nothing(void **state)
{
    tree *t = *state;
    tree_file(t, "a.c", "t1 = clock();\nt2 = clock();\n");
    tree_file(t, "b.c", "x\n");
    /* Two edits in a.c and one in b.c; the one in b.c is beyond its end. */
    finding(t, "partial", true,
            json_pack("[o, o, o]", edit("a.c", 0, 0, "clock_t now = clock();\n"),
                      edit("a.c", 5, 7, "now"), edit("b.c", 10, 1, "y")));
    finding(t, "fine", true, json_pack("[o]", edit("a.c", 19, 7, "t1")));
    hs_edit_plan plan;
    build(t, &plan);
    assert_int_equal(plan.problems.len, 1);
    assert_true(problems_mention(&plan, "b.c", "none of the edits of its fix"));
    assert_int_equal(plan.refused, 3);
    assert_int_equal(plan.files.len, 1);
    char *out = applied(&plan, 0);
    assert_string_equal(out, "t1 = clock();\nt2 = t1;\n");
    free(out);
    hs_edit_plan_free(&plan);
}

static void test_apply_result(void **state)
{
    tree *t = *state;
    tree_file(t, "a.c", "int main(void)\n{\n    return 0;\n}");
    finding(t, "f", true,
            json_pack("[o, o, o, o]", edit("a.c", 0, 0, "#include <stdio.h>\n"),
                      edit("a.c", 4, 4, "MAIN"), edit("a.c", 17, 14, ""),
                      edit("a.c", 32, 0, "\n")));
    hs_edit_plan plan;
    build(t, &plan);
    assert_int_equal(plan.problems.len, 0);
    const hs_file_edits *fe = plan.files.items[0];
    assert_int_equal(fe->edits.len, 4);
    assert_int_equal(fe->size, 32);
    size_t size;
    char *out = hs_file_edits_apply(fe, &size);
    assert_string_equal(out, "#include <stdio.h>\nint MAIN(void)\n{\n}\n");
    assert_int_equal(size, strlen(out));
    free(out);
    hs_edit_plan_free(&plan);
}

static void test_unusable_reports(void **state)
{
    tree *t = *state;
    hs_edit_plan plan;
    char *err = NULL;
    json_t *no_root = json_pack("{s:[]}", "findings");
    assert_false(hs_edit_plan_build(no_root, &plan, &err));
    assert_non_null(strstr(err, "root"));
    free(err);
    hs_edit_plan_free(&plan);
    json_decref(no_root);

    char *gone = hs_path_join(t->base, "gone");
    json_t *missing_root = json_pack("{s:s, s:[]}", "root", gone, "findings");
    assert_false(hs_edit_plan_build(missing_root, &plan, &err));
    assert_non_null(strstr(err, gone));
    free(err);
    json_decref(missing_root);
    free(gone);

    /* Malformed edits are problems, not failures. */
    tree_file(t, "a.c", "x\n");
    finding(t, "bad", true, json_pack("[{s:s, s:i}]", "file", "a.c", "offset", -1));
    assert_true(hs_edit_plan_build(t->report, &plan, &err));
    assert_true(problems_mention(&plan, "a.c", "malformed"));
    assert_int_equal(plan.refused, 1);
    assert_int_equal(plan.files.len, 0);
    hs_edit_plan_free(&plan);
}

static void test_write_keeps_mode_and_skips_read_only(void **state)
{
    tree *t = *state;
    tree_file(t, "rw.c", "a\n");
    tree_file(t, "ro.c", "b\n");
    char *rw = tree_path(t, "rw.c"), *ro = tree_path(t, "ro.c");
    chmod(rw, 0750);
    chmod(ro, 0444);
    finding(t, "f1", true, json_pack("[o]", edit("rw.c", 0, 1, "A")));
    finding(t, "f2", true, json_pack("[o]", edit("ro.c", 0, 1, "B")));
    hs_edit_plan plan;
    build(t, &plan);
    assert_int_equal(plan.files.len, 2);
    FILE *log = tmpfile();
    assert_int_equal(hs_apply_plan(&plan, true, log, NULL), 1); /* dry run: checks only */
    size_t size;
    char *text = hs_read_file(rw, &size);
    assert_string_equal(text, "a\n");
    free(text);
    assert_int_equal(hs_apply_plan(&plan, false, log, NULL), 1);
    fclose(log);
    text = hs_read_file(rw, &size);
    assert_string_equal(text, "A\n");
    free(text);
    text = hs_read_file(ro, &size);
    assert_string_equal(text, "b\n");
    free(text);
    struct stat st;
    assert_int_equal(stat(rw, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0750);
    assert_int_equal(stat(ro, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0444);
    /* Written once, the plan is stale: writing again refuses the changed file. */
    assert_false(hs_file_edits_write(plan.files.items[1], false, NULL));
    hs_edit_plan_free(&plan);
    free(rw);
    free(ro);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_identical_edits_from_two_findings_count_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_identical_edits_through_symlinks_count_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_overlapping_edits_are_both_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_adjacent_edits_are_fine, setup, teardown),
        cmocka_unit_test_setup_teardown(test_insertion_points, setup, teardown),
        cmocka_unit_test_setup_teardown(test_changed_file_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_paths_outside_the_root_are_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_edits_beyond_the_end_are_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unverified_fixes_are_ignored, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_fix_is_all_or_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_apply_result, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unusable_reports, setup, teardown),
        cmocka_unit_test_setup_teardown(test_write_keeps_mode_and_skips_read_only, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
