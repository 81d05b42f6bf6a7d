/*
 * test_facts_json.c - the faster facts reader (analyzer/model/facts_json.c) against
 * jansson's json_loadb: where it reads a document it must make the same tree (same values,
 * same member order), and where it cannot prove that it must leave the bytes to jansson.
 * And the faster writer against json_dumps(doc, JSON_COMPACT): the same bytes, or NULL
 * where jansson gives NULL.
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

#include "hotscan/facts.h"

/* The fast reader reads `text` to what jansson reads, member order included. */
static void same_as_jansson(const char *text, size_t n)
{
    json_error_t jerr;
    json_t *want = json_loadb(text, n, 0, &jerr);
    json_t *got = hs_facts_loadb_fast(text, n);
    if (!want || !got)
        fail_msg("not read: %s (jansson: %s)", text, want ? "read it" : jerr.text);
    assert_true(json_equal(want, got));
    char *a = json_dumps(want, JSON_COMPACT | JSON_ENCODE_ANY), *b = json_dumps(got, JSON_COMPACT | JSON_ENCODE_ANY);
    assert_string_equal(a, b);
    free(a);
    free(b);
    json_decref(want);
    json_decref(got);
}

static void test_reads_what_jansson_reads(void **state)
{
    (void)state;
    const char *docs[] = {
        "{}", "[]", " \n\t\r{ } \n", "[1, -2, 0, -0, 9223372036854775807, -9223372036854775808]",
        "{\"a\": true, \"b\": false, \"c\": null, \"d\": [[], {}, [[[]]]]}",
        "{\"functions\": [{\"usr\": \"c:@F@main\", \"line\": 3, \"hot\": false}], \"tu\": \"/x/a.c\"}",
        "{\"esc\": \"q\\\" b\\\\ s\\/ \\b\\f\\n\\r\\t\"}",
        "{\"u\": \"\\u0041\\u00e9\\u20ac\\ud83d\\ude00\", \"raw\": \"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"}",
        "{\"k\\u0041y\": 1, \"\": 2}",
        "{\"dup\": 1, \"other\": 2, \"dup\": 3}", /* jansson keeps the last value, in the first place */
        "[\"a long string without escapes, longer than the key buffer: "
        "0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789\"]",
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++)
        same_as_jansson(docs[i], strlen(docs[i]));
    /* A key longer than the reader's stack buffer, with an escape (decoded in its scratch). */
    char big[600] = "{\"";
    for (int i = 0; i < 300; i++)
        strcat(big, "k");
    strcat(big, "\\n\": \"v\\t\"}");
    same_as_jansson(big, strlen(big));
}

/* What it leaves to jansson (which reads it or reports the error). */
static void test_leaves_the_rest_to_jansson(void **state)
{
    (void)state;
    const char *docs[] = {
        "",          "   ",       "1",           "\"s\"",       "true",          "{",        "[1,]",
        "{\"a\" 1}", "{\"a\":}",  "[1] x",       "[1.5]",       "[1e3]",         "[01]",     "[-]",
        "[9223372036854775808]",  "[\"\\u0000\"]", "[\"\\ud800\"]", "[\"\\udc00\"]", "[\"\\x\"]", "[\"\\u12\"]",
        "[\"a\tb\"]", "[\"\xc3\"]", "[\"\xc0\x80\"]", "[\"\xed\xa0\x80\"]", "[\"\xf5\x80\x80\x80\"]", "[tru]",
        "{\"a\":1,}",
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        json_t *got = hs_facts_loadb_fast(docs[i], strlen(docs[i]));
        if (got)
            fail_msg("read what it should leave to jansson: %s", docs[i]);
    }
    /* A raw NUL inside a string, which strlen cannot show. */
    const char nul[] = "[\"a\0b\"]";
    assert_null(hs_facts_loadb_fast(nul, sizeof nul - 1));
    /* Nesting deeper than it reads. */
    char deep[3000];
    memset(deep, '[', 1500);
    memset(deep + 1500, ']', 1500);
    assert_null(hs_facts_loadb_fast(deep, 3000));
    /* hs_facts_loadb gives jansson's answer for them: a real number is read, a bad byte is an error. */
    json_error_t jerr;
    json_t *real = hs_facts_loadb("[1.5]", 5, &jerr);
    assert_true(json_is_real(json_array_get(real, 0)));
    json_decref(real);
    assert_null(hs_facts_loadb("[1,]", 4, &jerr));
    assert_true(jerr.text[0] != '\0');
}

/* The members judge orders files by, the rest stepped over; the same with a document the
 * step-over cannot read (a real number) and none from a file that is not JSON. */
static void test_members(void **state)
{
    (void)state;
    static const char *const names[] = {"tu", "command", NULL};
    const char *docs[] = {
        "{\"calls\": [{\"a\": \"x\\\"]}\"}, [1, {}], true], \"tu\": \"/t/a.c\", \"n\": -3, "
        "\"command\": {\"index\": 4, \"arguments\": [\"cc\"]}, \"z\": null}",
        "{\"tu\": \"/t/a.c\", \"r\": 1.5e3, \"command\": {\"index\": 4, \"arguments\": [\"cc\"]}}",
    };
    char path[] = "/tmp/test_facts_json.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        FILE *f = fopen(path, "w");
        fputs(docs[i], f);
        fclose(f);
        json_error_t jerr;
        json_t *m = hs_facts_load_members(path, names, &jerr);
        assert_non_null(m);
        assert_int_equal(json_object_size(m), 2);
        assert_string_equal(json_string_value(json_object_get(m, "tu")), "/t/a.c");
        assert_int_equal(json_integer_value(json_object_get(json_object_get(m, "command"), "index")), 4);
        json_decref(m);
    }
    FILE *f = fopen(path, "w");
    fputs("{\"tu\": \"a.c\", \"calls\": [1,", f);
    fclose(f);
    json_error_t jerr;
    assert_null(hs_facts_load_members(path, names, &jerr));
    unlink(path);
}

/* hs_facts_dumps writes what json_dumps(doc, JSON_COMPACT) writes. */
static void same_dump(json_t *doc)
{
    char *want = json_dumps(doc, JSON_COMPACT), *got = hs_facts_dumps(doc);
    if (!want)
        assert_null(got);
    else
        assert_string_equal(want, got);
    free(want);
    free(got);
    json_decref(doc);
}

static void test_writes_what_jansson_writes(void **state)
{
    (void)state;
    const char *docs[] = {
        "{}", "[]", "[[],{},[[]],{\"a\":{}}]", "{\"a\":1,\"b\":[true,false,null],\"c\":\"\"}",
        "[0,-1,9223372036854775807,-9223372036854775808,10,-10,1000000]",
        "{\"z\":1,\"a\":2,\"m\":3}", /* insertion order, not sorted */
        "[\"a/b \\\\ \\\" \\b\\f\\n\\r\\t \\u0001\\u001f\\u001b\\u007f end\"]",
        "{\"k\\n\\u0002\\\"\":\"\\u00e9\\u20ac\\ud83d\\ude00 caf\u00e9\"}",
        "{\"tu\":\"/t/a.c\",\"calls\":[{\"caller\":\"c:@F@f\",\"line\":3,\"loop\":12,\"guards\":[[0,true]]}]}",
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        json_error_t jerr;
        json_t *doc = json_loads(docs[i], 0, &jerr);
        if (!doc)
            fail_msg("test document %zu: %s", i, jerr.text);
        same_dump(doc);
    }
    /* A NUL inside a string, a real number (jansson's own formatting), a string that is not
     * UTF-8 (json_dumps refuses it: NULL), a bare value (not a document). */
    json_t *nul = json_array();
    json_array_append_new(nul, json_stringn("a\0b", 3));
    same_dump(nul);
    same_dump(json_pack("{s:f, s:[f]}", "r", 1.5, "s", 1e300));
    json_t *bad = json_array();
    json_array_append_new(bad, json_stringn_nocheck("\xff", 1));
    same_dump(bad);
    same_dump(json_integer(3));
    /* Deep nesting. */
    json_t *deep = json_array(), *at = deep;
    for (int d = 0; d < 1500; d++) {
        json_t *next = json_array();
        json_array_append_new(at, next);
        at = next;
    }
    same_dump(deep);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reads_what_jansson_reads),
        cmocka_unit_test(test_leaves_the_rest_to_jansson),
        cmocka_unit_test(test_members),
        cmocka_unit_test(test_writes_what_jansson_writes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
