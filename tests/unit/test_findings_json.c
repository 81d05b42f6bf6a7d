/*
 * test_findings_json.c - unit tests for findings (analyzer/judge/findings.c) and the JSON and
 * text writers (analyzer/emit/emit_json.c, analyzer/emit/emit_text.c), and the judge's pack
 * that keeps finished findings as JSON text while the model is alive (analyzer/judge/judge.c).
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
#include <unistd.h>

#include "hotscan/emit.h"
#include "hotscan/findings.h"
#include "hotscan/judge.h"
#include "hotscan/rules.h"
#include "hotscan/tempfiles.h"

static json_t *fact_at(const char *file, int line, int column)
{
    json_t *fact = json_pack("{s:s, s:i, s:i, s:i, s:i, s:i}", "file", file, "line", line, "column",
                             column, "end_line", line, "end_column", column + 7, "offset", 1234);
    assert_non_null(fact);
    return fact;
}

/* A finding as the rules make one: a fact, a message, and the code text as fingerprint basis. */
static json_t *finding_at(const char *rule, const char *file, int line, int column,
                          const char *function, const char *code)
{
    json_t *fact = fact_at(file, line, column);
    json_t *f = hs_finding_new(rule, "warning", "high", fact, function, "clock() on a hot path");
    json_decref(fact);
    if (code)
        json_object_set_new(f, "fingerprint_basis", json_string(code));
    return f;
}

static const char *sget(json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static json_int_t iget(json_t *o, const char *k)
{
    return json_integer_value(json_object_get(o, k));
}

/* Finalizes a one-finding list and returns its fingerprint (caller frees). */
static char *fingerprint_of(json_t *finding, const char *root)
{
    json_t *list = json_array();
    json_array_append_new(list, finding);
    hs_findings_finalize(list, root);
    char *fp = strdup(sget(json_array_get(list, 0), "fingerprint"));
    json_decref(list);
    return fp;
}

static void test_finding_new(void **state)
{
    (void)state;
    json_t *fact = fact_at("/proj/src/trx.c", 42, 9);
    json_t *f = hs_finding_new("timer-hot-path", "error", "high", fact, "trx_start_low",
                               "clock() on a hot path costs a system call");
    assert_string_equal(sget(f, "rule"), "timer-hot-path");
    assert_string_equal(sget(f, "severity"), "error");
    assert_string_equal(sget(f, "confidence"), "high");
    assert_string_equal(sget(f, "file"), "/proj/src/trx.c");
    assert_int_equal(iget(f, "line"), 42);
    assert_int_equal(iget(f, "column"), 9);
    assert_int_equal(iget(f, "end_line"), 42);
    assert_int_equal(iget(f, "end_column"), 16);
    assert_string_equal(sget(f, "function"), "trx_start_low");
    assert_string_equal(sget(f, "message"), "clock() on a hot path costs a system call");
    assert_true(json_is_array(json_object_get(f, "hot_path")));
    assert_int_equal(json_array_size(json_object_get(f, "hot_path")), 0);
    assert_int_equal(json_array_size(json_object_get(f, "related")), 0);
    assert_int_equal(json_array_size(json_object_get(f, "fixes")), 0);
    assert_null(json_object_get(f, "offset")); /* only the position is copied */
    json_decref(f);

    f = hs_finding_new("timer-duplicate", "note", "medium", fact, NULL, "m");
    assert_string_equal(sget(f, "function"), "");
    json_decref(f);
    json_decref(fact);
}

/* A fact without an end (extract.c's hs_fact_set_position with end == NULL). */
static void test_finding_new_without_end(void **state)
{
    (void)state;
    json_t *fact = json_pack("{s:s, s:i, s:i}", "file", "a.c", "line", 7, "column", 3);
    json_t *f = hs_finding_new("timer-hot-path", "warning", "high", fact, "f", "m");
    assert_int_equal(iget(f, "end_line"), 7);
    assert_int_equal(iget(f, "end_column"), 3);
    json_decref(f);
    json_decref(fact);
    /* LeakSanitizer checks that nothing made for the missing fields is left behind */
}

static void test_related_path_steps_and_fixes(void **state)
{
    (void)state;
    json_t *f = finding_at("timer-duplicate", "/proj/a.c", 20, 5, "f", NULL);
    hs_finding_add_related(f, "/proj/a.c", 18, 3, "the first read");
    hs_finding_add_path_step(f, "dispatch", "/proj/d.c", 100);
    hs_finding_add_path_step(f, "f", "/proj/a.c", 20);
    hs_finding_add_fix(f, "reuse the first reading",
                       json_pack("[{s:s, s:i, s:i, s:s}]", "file", "/proj/a.c", "offset", 300,
                                 "length", 7, "replacement", "t0"));

    json_t *rel = json_array_get(json_object_get(f, "related"), 0);
    assert_string_equal(sget(rel, "file"), "/proj/a.c");
    assert_int_equal(iget(rel, "line"), 18);
    assert_int_equal(iget(rel, "column"), 3);
    assert_string_equal(sget(rel, "message"), "the first read");

    json_t *path = json_object_get(f, "hot_path");
    assert_int_equal(json_array_size(path), 2);
    assert_string_equal(sget(json_array_get(path, 0), "function"), "dispatch");
    assert_string_equal(sget(json_array_get(path, 0), "file"), "/proj/d.c");
    assert_int_equal(iget(json_array_get(path, 0), "line"), 100);
    assert_string_equal(sget(json_array_get(path, 1), "function"), "f");

    json_t *fix = json_array_get(json_object_get(f, "fixes"), 0);
    assert_string_equal(sget(fix, "description"), "reuse the first reading");
    assert_true(json_is_false(json_object_get(fix, "verified")));
    json_t *edit = json_array_get(json_object_get(fix, "edits"), 0);
    assert_int_equal(iget(edit, "offset"), 300);
    assert_int_equal(iget(edit, "length"), 7);
    assert_string_equal(sget(edit, "replacement"), "t0");
    json_decref(f);
}

static void test_severity_rank(void **state)
{
    (void)state;
    assert_true(hs_severity_rank("error") > hs_severity_rank("warning"));
    assert_true(hs_severity_rank("warning") > hs_severity_rank("note"));
}

static void test_finalize_relative_paths(void **state)
{
    (void)state;
    json_t *f = finding_at("timer-duplicate", "/proj/src/a.c", 20, 5, "f", "clock()");
    hs_finding_add_related(f, "/proj/src/a.c", 18, 3, "the first read");
    hs_finding_add_related(f, "/usr/include/time.h", 70, 1, "declared here");
    hs_finding_add_path_step(f, "dispatch", "/proj/net/d.c", 100);
    hs_finding_add_path_step(f, "f", "already/relative.c", 20);
    hs_finding_add_fix(f, "reuse",
                       json_pack("[{s:s, s:i, s:i, s:s}, {s:s, s:i, s:i, s:s}]", "file",
                                 "/proj/src/a.c", "offset", 300, "length", 7, "replacement", "t0",
                                 "file", "/proj/include/a.h", "offset", 0, "length", 0,
                                 "replacement", "extern long t0;\n"));
    json_t *list = json_array();
    json_array_append_new(list, f);
    json_array_append_new(list, finding_at("timer-hot-path", "/projector/x.c", 1, 1, "g", "time()"));
    hs_findings_finalize(list, "/proj/"); /* a trailing slash on the root is fine */

    /* sorted by file: "/projector/x.c" before "src/a.c" */
    json_t *outside = json_array_get(list, 0);
    json_t *a = json_array_get(list, 1);
    assert_string_equal(sget(a, "file"), "src/a.c");
    json_t *rel = json_object_get(a, "related");
    assert_string_equal(sget(json_array_get(rel, 0), "file"), "src/a.c");
    assert_string_equal(sget(json_array_get(rel, 1), "file"), "/usr/include/time.h");
    json_t *path = json_object_get(a, "hot_path");
    assert_string_equal(sget(json_array_get(path, 0), "file"), "net/d.c");
    assert_string_equal(sget(json_array_get(path, 1), "file"), "already/relative.c");
    json_t *edits = json_object_get(json_array_get(json_object_get(a, "fixes"), 0), "edits");
    assert_string_equal(sget(json_array_get(edits, 0), "file"), "src/a.c");
    assert_string_equal(sget(json_array_get(edits, 1), "file"), "include/a.h");
    /* "/projector" only shares a prefix with "/proj": not under the root */
    assert_string_equal(sget(outside, "file"), "/projector/x.c");
    json_decref(list);
}

static void test_finalize_sorts(void **state)
{
    (void)state;
    json_t *list = json_array();
    json_array_append_new(list, finding_at("timer-hot-path", "/r/b.c", 5, 1, "f", "a"));
    json_array_append_new(list, finding_at("timer-hot-path", "/r/a.c", 30, 2, "f", "b"));
    json_array_append_new(list, finding_at("timer-hot-path", "/r/a.c", 30, 1, "f", "c"));
    json_array_append_new(list, finding_at("timer-duplicate", "/r/a.c", 30, 2, "f", "d"));
    json_array_append_new(list, finding_at("timer-hot-path", "/r/a.c", 4, 9, "f", "e"));
    json_array_append_new(list, finding_at("timer-hot-path", "/r/a.c", 100, 1, "f", "g"));
    hs_findings_finalize(list, "/r");
    static const struct {
        const char *file, *rule;
        int line, column;
    } want[] = {
        {"a.c", "timer-hot-path", 4, 9},   {"a.c", "timer-hot-path", 30, 1},
        {"a.c", "timer-duplicate", 30, 2}, {"a.c", "timer-hot-path", 30, 2},
        {"a.c", "timer-hot-path", 100, 1}, {"b.c", "timer-hot-path", 5, 1},
    };
    assert_int_equal(json_array_size(list), 6);
    for (size_t i = 0; i < 6; i++) {
        json_t *f = json_array_get(list, i);
        assert_string_equal(sget(f, "file"), want[i].file);
        assert_int_equal(iget(f, "line"), want[i].line);
        assert_int_equal(iget(f, "column"), want[i].column);
        assert_string_equal(sget(f, "rule"), want[i].rule);
        assert_null(json_object_get(f, "fingerprint_basis"));
        const char *fp = sget(f, "fingerprint");
        assert_non_null(fp);
        assert_int_equal(strlen(fp), 16);
        assert_int_equal(strspn(fp, "0123456789abcdef"), 16);
    }
    json_decref(list);

    list = json_array();
    hs_findings_finalize(list, "/r"); /* an empty list stays empty */
    assert_int_equal(json_array_size(list), 0);
    json_decref(list);
}

static void test_fingerprint_stable_across_line_shifts(void **state)
{
    (void)state;
    char *before = fingerprint_of(finding_at("timer-hot-path", "/p/a.c", 10, 5, "f", "clock()"), "/p");
    char *after = fingerprint_of(finding_at("timer-hot-path", "/p/a.c", 57, 9, "f", "clock()"), "/p");
    assert_string_equal(before, after);
    /* the same file named through another root is the same relative file */
    char *moved = fingerprint_of(finding_at("timer-hot-path", "/q/a.c", 10, 5, "f", "clock()"), "/q");
    assert_string_equal(before, moved);
    /* without a fingerprint basis the message stands in, still without the line */
    char *m1 = fingerprint_of(finding_at("timer-hot-path", "/p/a.c", 10, 5, "f", NULL), "/p");
    char *m2 = fingerprint_of(finding_at("timer-hot-path", "/p/a.c", 99, 5, "f", NULL), "/p");
    assert_string_equal(m1, m2);

    /* what the finding is does change it */
    char *rule = fingerprint_of(finding_at("timer-duplicate", "/p/a.c", 10, 5, "f", "clock()"), "/p");
    char *func = fingerprint_of(finding_at("timer-hot-path", "/p/a.c", 10, 5, "g", "clock()"), "/p");
    char *file = fingerprint_of(finding_at("timer-hot-path", "/p/b.c", 10, 5, "f", "clock()"), "/p");
    char *code = fingerprint_of(finding_at("timer-hot-path", "/p/a.c", 10, 5, "f", "time(NULL)"), "/p");
    assert_string_not_equal(before, rule);
    assert_string_not_equal(before, func);
    assert_string_not_equal(before, file);
    assert_string_not_equal(before, code);
    free(before);
    free(after);
    free(moved);
    free(m1);
    free(m2);
    free(rule);
    free(func);
    free(file);
    free(code);
}

static void test_fingerprint_occurrences_differ(void **state)
{
    (void)state;
    /* two identical clock() calls in one function: distinct, and each stable under a shift */
    char *fp[2][2];
    for (int shift = 0; shift < 2; shift++) {
        json_t *list = json_array();
        /* appended out of order: finalize sorts before counting occurrences */
        json_array_append_new(list, finding_at("timer-duplicate", "/p/a.c", 14 + shift * 30, 3, "f", "clock()"));
        json_array_append_new(list, finding_at("timer-duplicate", "/p/a.c", 12 + shift * 30, 3, "f", "clock()"));
        hs_findings_finalize(list, "/p");
        for (int i = 0; i < 2; i++)
            fp[shift][i] = strdup(sget(json_array_get(list, (size_t)i), "fingerprint"));
        json_decref(list);
    }
    assert_string_not_equal(fp[0][0], fp[0][1]);
    assert_string_equal(fp[0][0], fp[1][0]);
    assert_string_equal(fp[0][1], fp[1][1]);
    /* the first occurrence is the same finding as when it was alone */
    char *alone = fingerprint_of(finding_at("timer-duplicate", "/p/a.c", 12, 3, "f", "clock()"), "/p");
    assert_string_equal(alone, fp[0][0]);
    free(alone);
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < 2; i++)
            free(fp[s][i]);
}

/* The report the CLI writes: the schema v1 document with finalized findings. */
static json_t *make_report(void)
{
    json_t *f1 = finding_at("timer-hot-path", "/proj/src/trx.c", 1187, 28, "trx_start_low", "clock()");
    json_object_set_new(f1, "severity", json_string("error"));
    json_object_set_new(f1, "message", json_string("clock() on a hot path costs a system call on every read"));
    hs_finding_add_path_step(f1, "dispatch_command", "/proj/src/sql_parse.cc", 1021);
    hs_finding_add_path_step(f1, "trx_start_low", "/proj/src/trx.c", 1187);
    json_t *f2 = finding_at("timer-duplicate", "/proj/src/trx.c", 1190, 7, "trx_start_low", "clock()");
    json_object_set_new(f2, "message", json_string("clock() is read a second time"));
    hs_finding_add_related(f2, "/proj/src/trx.c", 1187, 28, "the first read");
    hs_finding_add_fix(f2, "reuse the first reading",
                       json_pack("[{s:s, s:i, s:i, s:s}]", "file", "/proj/src/trx.c", "offset", 4000,
                                 "length", 7, "replacement", "start"));
    json_t *findings = json_pack("[o, o]", f2, f1);
    hs_findings_finalize(findings, "/proj");
    json_t *report = json_pack(
        "{s:i, s:{s:s, s:s}, s:s, s:{s:i, s:i, s:i, s:f}, s:o, s:[{s:s, s:s}]}", "schema_version", 1,
        "tool", "name", "hotscan", "version", "0.1.0", "root", "/proj", "summary",
        "translation_units", 3, "findings", 2, "errors", 1, "seconds", 0.25, "findings", findings,
        "errors", "file", "src/broken.c", "message", "libclang crashed");
    assert_non_null(report);
    return report;
}

static char *render(bool (*emit)(FILE *, json_t *), json_t *report)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    bool ok = emit(out, report);
    assert_int_equal(fclose(out), 0);
    assert_true(ok);
    return text;
}

static bool emit_text_plain(FILE *out, json_t *report)
{
    return hs_emit_text(out, report, false);
}

static bool emit_text_color(FILE *out, json_t *report)
{
    return hs_emit_text(out, report, true);
}

static void test_emit_json_round_trip(void **state)
{
    (void)state;
    json_t *report = make_report();
    char *text = render(hs_emit_json, report);
    assert_true(strlen(text) > 0);
    assert_int_equal(text[strlen(text) - 1], '\n');
    /* keys in a stable order: schema_version first */
    size_t first_key = strcspn(text, "\"");
    assert_int_equal(text[first_key], '"');
    assert_int_equal(strncmp(text + first_key, "\"schema_version\"", 16), 0);

    json_error_t jerr;
    json_t *back = json_loads(text, 0, &jerr);
    if (!back)
        fail_msg("hs_emit_json wrote invalid JSON: %s (line %d)", jerr.text, jerr.line);
    assert_true(json_equal(report, back));
    assert_int_equal(iget(back, "schema_version"), 1);
    json_t *findings = json_object_get(back, "findings");
    assert_int_equal(json_array_size(findings), 2);
    json_t *f = json_array_get(findings, 0);
    assert_string_equal(sget(f, "file"), "src/trx.c");
    assert_int_equal(iget(f, "line"), 1187);
    assert_non_null(sget(f, "fingerprint"));
    assert_null(json_object_get(f, "fingerprint_basis"));
    json_decref(back);
    free(text);
    json_decref(report);
}

static void test_emit_text(void **state)
{
    (void)state;
    json_t *report = make_report();
    char *text = render(emit_text_plain, report);
    const char *want =
        "src/trx.c:1187:28: error: clock() on a hot path costs a system call on every read [timer-hot-path]\n"
        "src/sql_parse.cc:1021:1: note: hot path: dispatch_command calls trx_start_low here\n"
        "src/trx.c:1190:7: warning: clock() is read a second time [timer-duplicate]\n"
        "src/trx.c:1187:28: note: the first read\n"
        "src/trx.c:1190:7: note: fix-it (unverified): reuse the first reading\n";
    assert_string_equal(text, want);
    assert_null(strchr(text, '\033'));
    free(text);

    text = render(emit_text_color, report);
    assert_non_null(strchr(text, '\033'));
    assert_non_null(strstr(text, "clock() is read a second time [timer-duplicate]"));
    assert_non_null(strstr(text, "src/trx.c:1187:28:"));
    free(text);
    json_decref(report);

    /* no findings, no output */
    json_t *empty = json_pack("{s:i, s:[]}", "schema_version", 1, "findings");
    text = render(emit_text_plain, empty);
    assert_string_equal(text, "");
    free(text);
    json_decref(empty);
}

/* A packed finding comes back exactly as the rule built it: members in their order, a NUL
 * inside a string, reals, integers beyond 32 bits, nested arrays; and in the order added. */
static void test_finding_pack_round_trip(void **state)
{
    (void)state;
    json_t *a = finding_at("atomic-seqcst-counter", "/src/b.c", 7, 3, "g", "n++");
    json_object_set_new(a, "zeta", json_stringn("a\0b", 3));
    json_object_set_new(a, "alpha", json_real(0.1));
    json_object_set_new(a, "big", json_integer(1LL << 40));
    json_object_set_new(a, "empty", json_object());
    hs_finding_add_related(a, "/src/c.h", 9, 1, "declared here");
    json_t *b = finding_at("os-event", "/src/a.c", 1, 1, "", "os_event_set(e)");
    char *want_a = json_dumps(a, JSON_COMPACT), *want_b = json_dumps(b, JSON_COMPACT);
    json_t *copy_a = json_deep_copy(a);

    hs_finding_pack *k = hs_finding_pack_create();
    hs_finding_pack_add(k, a); /* takes the references */
    hs_finding_pack_add(k, b);
    assert_int_equal(hs_finding_pack_count(k), 2);
    json_t *extra = NULL;
    json_t *back = hs_finding_pack_take(k, &extra);
    assert_int_equal(json_array_size(back), 2);
    char *got_a = json_dumps(json_array_get(back, 0), JSON_COMPACT);
    char *got_b = json_dumps(json_array_get(back, 1), JSON_COMPACT);
    assert_string_equal(got_a, want_a);
    assert_string_equal(got_b, want_b);
    assert_true(json_equal(json_array_get(back, 0), copy_a));
    assert_int_equal(json_string_length(json_object_get(json_array_get(back, 0), "zeta")), 3);
    assert_true(json_is_real(json_object_get(json_array_get(back, 0), "alpha")));
    /* No sections packed: an empty object. */
    assert_true(json_is_object(extra));
    assert_int_equal(json_object_size(extra), 0);
    free(want_a);
    free(want_b);
    free(got_a);
    free(got_b);
    json_decref(copy_a);
    json_decref(back);
    json_decref(extra);
}

/* A rule's finding goes to the pack when the judge packs, else to ctx->findings. */
static bool keep_odd(json_t *f, size_t i, void *user)
{
    (void)f;
    (void)user;
    return i % 2 == 1;
}

/* Parked findings leave null in their slots and come back as they were, in place; the kept
 * ones are the same objects throughout. */
static void test_finding_pack_park(void **state)
{
    (void)state;
    json_t *findings = json_array();
    for (int i = 0; i < 5; i++)
        json_array_append_new(findings, json_pack("{s:i, s:s, s:f, s:[i]}", "n", i, "text", "a\tb\u00e9",
                                                  "share", 0.1 * i, "list", i));
    json_t *before = json_deep_copy(findings);
    json_t *kept = json_array_get(findings, 1);
    hs_finding_pack *k = hs_finding_pack_park(findings, keep_odd, NULL);
    assert_true(json_is_null(json_array_get(findings, 0)));
    assert_true(json_is_null(json_array_get(findings, 4)));
    assert_ptr_equal(json_array_get(findings, 1), kept);
    json_object_set_new(kept, "verified", json_true()); /* what the fix stage does meanwhile */
    hs_finding_pack_unpark(k, findings);
    assert_int_equal(json_array_size(findings), 5);
    assert_ptr_equal(json_array_get(findings, 1), kept);
    json_object_del(kept, "verified");
    char *a = json_dumps(before, JSON_COMPACT), *b = json_dumps(findings, JSON_COMPACT);
    assert_string_equal(a, b);
    free(a);
    free(b);
    json_decref(before);
    json_decref(findings);
}

static bool write_hello(FILE *out, void *user)
{
    (void)user;
    return fputs("hello\n", out) >= 0;
}

static bool write_half_then_fail(FILE *out, void *user)
{
    (void)user;
    fputs("half", out);
    return false;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    char buf[64] = {0};
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    return strdup(buf);
}

/* A streamed output replaces the file whole; a writer that fails leaves the old content. */
static void test_write_output_with(void **state)
{
    (void)state;
    char dir[] = "/tmp/hotscan-test-output-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/report.txt", dir);
    char *err = NULL;
    assert_true(hs_write_output_with(path, write_hello, NULL, &err));
    assert_null(err);
    char *got = slurp(path);
    assert_string_equal(got, "hello\n");
    free(got);
    assert_false(hs_write_output_with(path, write_half_then_fail, NULL, &err));
    assert_non_null(err);
    assert_non_null(strstr(err, path));
    free(err);
    got = slurp(path);
    assert_string_equal(got, "hello\n");
    free(got);
    remove(path);
    assert_int_equal(rmdir(dir), 0); /* no temporary file left behind */
}

static void test_judge_add_finding(void **state)
{
    (void)state;
    hs_judge_ctx plain = {.findings = json_array()};
    hs_judge_add_finding(&plain, finding_at("timer-hot-path", "/src/a.c", 2, 2, "f", "time(0)"));
    assert_int_equal(json_array_size(plain.findings), 1);
    json_decref(plain.findings);

    hs_judge_ctx packed = {.findings = json_array(), .packed = hs_finding_pack_create()};
    hs_judge_add_finding(&packed, finding_at("timer-hot-path", "/src/a.c", 2, 2, "f", "time(0)"));
    assert_int_equal(json_array_size(packed.findings), 0);
    assert_int_equal(hs_finding_pack_count(packed.packed), 1);
    json_t *back = hs_finding_pack_take(packed.packed, NULL);
    assert_string_equal(json_string_value(json_object_get(json_array_get(back, 0), "rule")), "timer-hot-path");
    json_decref(back);
    json_decref(packed.findings);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_finding_pack_park),
        cmocka_unit_test(test_write_output_with),
        cmocka_unit_test(test_finding_new),
        cmocka_unit_test(test_finding_new_without_end),
        cmocka_unit_test(test_related_path_steps_and_fixes),
        cmocka_unit_test(test_severity_rank),
        cmocka_unit_test(test_finalize_relative_paths),
        cmocka_unit_test(test_finalize_sorts),
        cmocka_unit_test(test_fingerprint_stable_across_line_shifts),
        cmocka_unit_test(test_fingerprint_occurrences_differ),
        cmocka_unit_test(test_emit_json_round_trip),
        cmocka_unit_test(test_emit_text),
        cmocka_unit_test(test_finding_pack_round_trip),
        cmocka_unit_test(test_judge_add_finding),
    };
    return cmocka_run_group_tests(tests, 0, 0);
}
