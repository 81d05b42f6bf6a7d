/*
 * test_strmap.c - unit tests for the string -> pointer hash map (analyzer/util/strmap.c) and
 * the set of key digests (analyzer/util/keyset.c), and the model's string interner
 * (analyzer/model/facts.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hotscan/common.h"
#include "hotscan/facts.h"
#include "hotscan/keyset.h"
#include "hotscan/strmap.h"

static void *val(uintptr_t n)
{
    return (void *)n;
}

static void test_empty_map(void **state)
{
    (void)state;
    hs_strmap *m = hs_strmap_create();
    assert_int_equal(hs_strmap_size(m), 0);
    assert_null(hs_strmap_get(m, "missing"));
    assert_false(hs_strmap_has(m, "missing"));
    assert_false(hs_strmap_has(m, ""));
    size_t it = 0;
    const char *k = NULL;
    void *v = NULL;
    assert_false(hs_strmap_next(m, &it, &k, &v));
    hs_strmap_delete(m);
    hs_strmap_delete(NULL); /* deleting nothing is allowed */
}

static void test_put_get(void **state)
{
    (void)state;
    hs_strmap *m = hs_strmap_create();
    assert_null(hs_strmap_put(m, "alpha", val(1)));
    assert_null(hs_strmap_put(m, "beta", val(2)));
    assert_null(hs_strmap_put(m, "", val(3))); /* the empty string is a key like any other */
    assert_int_equal(hs_strmap_size(m), 3);
    assert_ptr_equal(hs_strmap_get(m, "alpha"), val(1));
    assert_ptr_equal(hs_strmap_get(m, "beta"), val(2));
    assert_ptr_equal(hs_strmap_get(m, ""), val(3));
    assert_true(hs_strmap_has(m, "alpha"));
    assert_false(hs_strmap_has(m, "alph"));
    assert_false(hs_strmap_has(m, "alphaa"));
    assert_null(hs_strmap_get(m, "gamma"));
    hs_strmap_delete(m);
}

static void test_keys_are_copied(void **state)
{
    (void)state;
    hs_strmap *m = hs_strmap_create();
    char key[16];
    strcpy(key, "transient");
    hs_strmap_put(m, key, val(7));
    strcpy(key, "clobbered");
    assert_ptr_equal(hs_strmap_get(m, "transient"), val(7));
    assert_null(hs_strmap_get(m, "clobbered"));
    hs_strmap_delete(m);
}

static void test_null_value_is_present(void **state)
{
    (void)state;
    hs_strmap *m = hs_strmap_create();
    hs_strmap_put(m, "k", NULL);
    assert_true(hs_strmap_has(m, "k"));
    assert_null(hs_strmap_get(m, "k"));
    assert_int_equal(hs_strmap_size(m), 1);
    hs_strmap_delete(m);
}

static void test_overwrite_returns_previous(void **state)
{
    (void)state;
    hs_strmap *m = hs_strmap_create();
    assert_null(hs_strmap_put(m, "k", val(1)));
    assert_ptr_equal(hs_strmap_put(m, "k", val(2)), val(1));
    assert_ptr_equal(hs_strmap_put(m, "k", val(3)), val(2));
    assert_int_equal(hs_strmap_size(m), 1);
    assert_ptr_equal(hs_strmap_get(m, "k"), val(3));
    hs_strmap_delete(m);
}

static void test_iteration_visits_each_key_once(void **state)
{
    (void)state;
    hs_strmap *m = hs_strmap_create();
    const char *names[] = {"a", "bb", "ccc", "dddd", "Server::handle", "c:@F@main"};
    const size_t n = sizeof names / sizeof names[0];
    for (size_t i = 0; i < n; i++)
        hs_strmap_put(m, names[i], val(i + 1));
    int seen[6] = {0};
    size_t count = 0;
    const char *k;
    void *v;
    for (size_t it = 0; hs_strmap_next(m, &it, &k, &v);) {
        count++;
        uintptr_t idx = (uintptr_t)v;
        assert_in_range(idx, 1, n);
        assert_string_equal(k, names[idx - 1]);
        seen[idx - 1]++;
    }
    assert_int_equal(count, n);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(seen[i], 1);

    /* key and value out-parameters are optional */
    count = 0;
    for (size_t it = 0; hs_strmap_next(m, &it, NULL, NULL);)
        count++;
    assert_int_equal(count, n);
    hs_strmap_delete(m);
}

/* What a person reads comes in strcmp order, appended after what `out` already held. */
static void test_sorted_keys(void **state)
{
    (void)state;
    hs_strmap *m = hs_strmap_create();
    const char *names[] = {"pread", "epoll_wait", "nanosleep", "accept", "poll", "CLOCK_MONOTONIC"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        hs_strmap_put(m, names[i], NULL);
    hs_vec out = {0};
    hs_vec_push(&out, (void *)"kept first");
    hs_strmap_sorted_keys(m, &out);
    assert_int_equal(out.len, 7);
    assert_string_equal(out.items[0], "kept first");
    const char *want[] = {"CLOCK_MONOTONIC", "accept", "epoll_wait", "nanosleep", "poll", "pread"};
    for (size_t i = 0; i < 6; i++) {
        assert_string_equal(out.items[i + 1], want[i]);
        assert_ptr_equal(out.items[i + 1], hs_strmap_key(m, want[i])); /* the map's copy */
    }
    hs_vec_free(&out);
    hs_strmap_delete(m);
}

static void test_growth_past_thousands_of_keys(void **state)
{
    (void)state;
    enum { N = 20000 };
    hs_strmap *m = hs_strmap_create();
    char key[64];
    for (uintptr_t i = 0; i < N; i++) {
        snprintf(key, sizeof key, "c:@F@function_%lu", (unsigned long)i);
        assert_null(hs_strmap_put(m, key, val(i + 1)));
        assert_int_equal(hs_strmap_size(m), i + 1);
    }
    for (uintptr_t i = 0; i < N; i++) {
        snprintf(key, sizeof key, "c:@F@function_%lu", (unsigned long)i);
        assert_ptr_equal(hs_strmap_get(m, key), val(i + 1));
    }
    assert_null(hs_strmap_get(m, "c:@F@function_20000"));
    assert_false(hs_strmap_has(m, "c:@F@function_"));

    /* overwrite every other key after growth: size unchanged, new values visible */
    for (uintptr_t i = 0; i < N; i += 2) {
        snprintf(key, sizeof key, "c:@F@function_%lu", (unsigned long)i);
        assert_ptr_equal(hs_strmap_put(m, key, val(i + 1)), val(i + 1));
        hs_strmap_put(m, key, val(N + i + 1));
    }
    assert_int_equal(hs_strmap_size(m), N);

    /* iteration sees every key exactly once with its current value */
    unsigned char *seen = calloc(N, 1);
    assert_non_null(seen);
    size_t count = 0;
    const char *k;
    void *v;
    for (size_t it = 0; hs_strmap_next(m, &it, &k, &v);) {
        unsigned long idx;
        assert_int_equal(sscanf(k, "c:@F@function_%lu", &idx), 1);
        assert_true(idx < N);
        uintptr_t want = (idx % 2 == 0) ? N + idx + 1 : idx + 1;
        assert_ptr_equal(v, val(want));
        assert_int_equal(seen[idx], 0);
        seen[idx] = 1;
        count++;
    }
    assert_int_equal(count, N);
    free(seen);
    hs_strmap_delete(m);
}

/* ---- hs_keyset: digests of keys, each once ----------------------------------------- */

static void test_keyset_first_time_only(void **state)
{
    (void)state;
    hs_keyset *s = hs_keyset_create();
    assert_int_equal(hs_keyset_size(s), 0);
    assert_true(hs_keyset_add(s, "call|a|b|f.c|1|2", 16));
    assert_false(hs_keyset_add(s, "call|a|b|f.c|1|2", 16));
    /* A prefix, an empty key: keys of their own. */
    assert_true(hs_keyset_add(s, "call|a|b|f.c|1|", 15));
    assert_true(hs_keyset_add(s, "", 0));
    assert_false(hs_keyset_add(s, "", 0));
    assert_int_equal(hs_keyset_size(s), 3);
    hs_keyset_delete(s);
}

static void test_keyset_growth(void **state)
{
    (void)state;
    enum { N = 50000 };
    hs_keyset *s = hs_keyset_create();
    char key[64];
    for (int i = 0; i < N; i++) {
        int n = snprintf(key, sizeof key, "atomic|/src/f%d.c|%d", i % 97, i);
        assert_true(hs_keyset_add(s, key, (size_t)n));
    }
    for (int i = 0; i < N; i++) {
        int n = snprintf(key, sizeof key, "atomic|/src/f%d.c|%d", i % 97, i);
        assert_false(hs_keyset_add(s, key, (size_t)n));
    }
    assert_int_equal(hs_keyset_size(s), N);
    hs_keyset_delete(s);
}

/* A borrowing map keeps the caller's key pointers: no copy, and lookups by content. */
static void test_borrowing_map(void **state)
{
    (void)state;
    hs_strmap *m = hs_strmap_create_borrowing();
    char key[] = "c:@F@main";
    hs_strmap_put(m, key, val(7));
    assert_ptr_equal(hs_strmap_key(m, "c:@F@main"), key);
    assert_ptr_equal(hs_strmap_get(m, "c:@F@main"), val(7));
    hs_strmap_delete(m); /* frees no key: `key` is on the stack */

    hs_strmap *c = hs_strmap_create();
    hs_strmap_put(c, key, val(1));
    assert_ptr_not_equal(hs_strmap_key(c, key), key);
    hs_strmap_delete(c);
}

/* Equal strings intern to one pointer, which stays valid however much is interned after it
 * (the table grows, the arena adds blocks; a string longer than a block gets its own). */
static void test_interner(void **state)
{
    (void)state;
    hs_intern *in = hs_intern_create();
    assert_null(hs_intern_str(in, NULL));
    const char *empty = hs_intern_str(in, "");
    const char *first = hs_intern_str(in, "c:@F@first");
    char *longer = malloc(100001);
    memset(longer, 'x', 100000);
    longer[100000] = '\0';
    const char *big = hs_intern_str(in, longer);
    char buf[64];
    const char *kept[5000];
    for (int i = 0; i < 5000; i++) {
        snprintf(buf, sizeof buf, "c:@F@function_number_%d", i);
        kept[i] = hs_intern_str(in, buf);
    }
    assert_int_equal(hs_intern_count(in), 5003);
    assert_ptr_equal(hs_intern_str(in, ""), empty);
    assert_ptr_equal(hs_intern_str(in, "c:@F@first"), first);
    assert_string_equal(first, "c:@F@first");
    assert_ptr_equal(hs_intern_str(in, longer), big);
    assert_string_equal(big, longer);
    for (int i = 0; i < 5000; i++) {
        snprintf(buf, sizeof buf, "c:@F@function_number_%d", i);
        assert_ptr_equal(hs_intern_str(in, buf), kept[i]);
        assert_string_equal(kept[i], buf);
    }
    free(longer);
    hs_intern_delete(in);
}

static int items_freed;
static void count_free(void *item)
{
    items_freed++;
    free(item);
}

/* A map of lists: items kept in order under their key, lists and (on request) items freed. */
static void test_map_of_lists(void **state)
{
    (void)state;
    hs_strmap *m = hs_strmap_create();
    int a = 1, b = 2, c = 3;
    hs_strmap_push(m, "x", &a);
    hs_strmap_push(m, "y", &b);
    hs_strmap_push(m, "x", &c);
    assert_int_equal(hs_strmap_size(m), 2);
    const hs_vec *x = hs_strmap_get(m, "x");
    assert_int_equal(x->len, 2);
    assert_ptr_equal(x->items[0], &a);
    assert_ptr_equal(x->items[1], &c);
    assert_int_equal(((const hs_vec *)hs_strmap_get(m, "y"))->len, 1);
    hs_strmap_delete_lists(m, NULL);

    m = hs_strmap_create();
    for (int i = 0; i < 3; i++)
        hs_strmap_push(m, i == 2 ? "b" : "a", hs_xstrdup("item"));
    items_freed = 0;
    hs_strmap_delete_lists(m, count_free);
    assert_int_equal(items_freed, 3);
}

/* hs_strjoin3 makes what hs_printf("%s%s%s") makes (the walk's keys and names). */
static void test_strjoin3(void **state)
{
    (void)state;
    const char *parts[][3] = {{"ns", "::", "f"}, {"v:", "c:@S@s@FI@n", ""}, {"", "", ""}, {"load", "_at", ""}};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        char *joined = hs_strjoin3(parts[i][0], parts[i][1], parts[i][2]);
        char *printed = hs_printf("%s%s%s", parts[i][0], parts[i][1], parts[i][2]);
        assert_string_equal(joined, printed);
        free(joined);
        free(printed);
    }
}

/* hs_int_text writes what "%lld" prints (merge keys, fact-site keys, facts documents). */
static void test_int_text(void **state)
{
    (void)state;
    const long long values[] = {0, 7, -7, 10, -10, 4294967295LL, LLONG_MAX, LLONG_MIN};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        char text[HS_INT_TEXT_MAX + 1], printed[32];
        size_t n = hs_int_text(text, values[i]);
        assert_true(n <= HS_INT_TEXT_MAX);
        text[n] = '\0';
        snprintf(printed, sizeof printed, "%lld", values[i]);
        assert_string_equal(text, printed);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_map),
        cmocka_unit_test(test_put_get),
        cmocka_unit_test(test_keys_are_copied),
        cmocka_unit_test(test_null_value_is_present),
        cmocka_unit_test(test_overwrite_returns_previous),
        cmocka_unit_test(test_iteration_visits_each_key_once),
        cmocka_unit_test(test_sorted_keys),
        cmocka_unit_test(test_growth_past_thousands_of_keys),
        cmocka_unit_test(test_keyset_first_time_only),
        cmocka_unit_test(test_keyset_growth),
        cmocka_unit_test(test_borrowing_map),
        cmocka_unit_test(test_interner),
        cmocka_unit_test(test_map_of_lists),
        cmocka_unit_test(test_strjoin3),
        cmocka_unit_test(test_int_text),
    };
    return cmocka_run_group_tests(tests, 0, 0);
}
