/*
 * test_key_log.c - the header-skip keys the extraction workers share
 * (analyzer/extract/key_log.c): records read back whole, torn and damaged records never
 * read as keys, and a reader that takes only keys from TUs below the one it is about to
 * extract.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "key_log.h"

/* Key k of TU tu (header: a prefix key): 16 bytes no other (tu, k, header) has. */
static void make_key(unsigned char out[16], uint32_t tu, uint32_t k, bool header)
{
    for (int i = 0; i < 16; i++)
        out[i] = (unsigned char)(0x5a ^ (i * 37) ^ (tu * 11) ^ (k * 7) ^ (header ? 0xc3 : 0));
    memcpy(out, &tu, 4);
    memcpy(out + 4, &k, 4);
    out[8] = header;
}

/* A record of TU tu with nbody body keys and nheaders prefix keys made by make_key. */
static unsigned char *make_record(uint32_t tu, size_t nbody, size_t nheaders, size_t *len)
{
    unsigned char(*body)[16] = calloc(nbody + 1, 16), (*headers)[16] = calloc(nheaders + 1, 16);
    for (size_t k = 0; k < nbody; k++)
        make_key(body[k], tu, (uint32_t)k, false);
    for (size_t k = 0; k < nheaders; k++)
        make_key(headers[k], tu, (uint32_t)k, true);
    unsigned char *r = hs_key_log_record(tu, (const unsigned char(*)[16])body, nbody,
                                         (const unsigned char(*)[16])headers, nheaders, len);
    free(body);
    free(headers);
    return r;
}

/* What the parser or the reader handed on: how many records and keys of each TU, and
 * whether every key was one make_key made for that TU. */
typedef struct {
    size_t records;
    size_t keys[8];
    size_t headers[8];
    bool all_valid;
} seen;

static void on_record(const hs_key_record *r, void *user)
{
    seen *s = user;
    s->records++;
    if (r->tu >= 8) {
        s->all_valid = false;
        return;
    }
    for (uint32_t k = 0; k < r->nbody; k++) {
        unsigned char want[16];
        make_key(want, r->tu, k, false);
        s->all_valid &= memcmp(want, r->body + 16 * (size_t)k, 16) == 0;
    }
    for (uint32_t k = 0; k < r->nheaders; k++) {
        unsigned char want[16];
        make_key(want, r->tu, k, true);
        s->all_valid &= memcmp(want, r->headers + 16 * (size_t)k, 16) == 0;
    }
    s->keys[r->tu] += r->nbody;
    s->headers[r->tu] += r->nheaders;
}

/* The reader's keys: the TU is in the key's first bytes (make_key). */
static void on_key(bool header, const unsigned char *key, void *user)
{
    seen *s = user;
    uint32_t tu, k;
    memcpy(&tu, key, 4);
    memcpy(&k, key + 4, 4);
    unsigned char want[16];
    make_key(want, tu, k, header);
    if (tu >= 8 || memcmp(want, key, 16) != 0) {
        s->all_valid = false;
        return;
    }
    if (header)
        s->headers[tu]++;
    else
        s->keys[tu]++;
}

static unsigned char *concat(size_t *len, int n, ...)
{
    va_list ap;
    va_start(ap, n);
    unsigned char *out = NULL;
    *len = 0;
    for (int i = 0; i < n; i++) {
        const unsigned char *p = va_arg(ap, const unsigned char *);
        size_t plen = va_arg(ap, size_t);
        out = realloc(out, *len + plen + 1);
        memcpy(out + *len, p, plen);
        *len += plen;
    }
    va_end(ap);
    return out;
}

static void test_records_read_back_whole(void **state)
{
    (void)state;
    size_t l1, l2, l3, len;
    unsigned char *r1 = make_record(1, 3, 2, &l1), *r2 = make_record(2, 0, 4, &l2), *r3 = make_record(3, 5, 0, &l3);
    assert_int_equal(l1, HS_KEY_LOG_HEADER + 16 * 5);
    unsigned char *all = concat(&len, 3, r1, l1, r2, l2, r3, l3);
    seen s = {.all_valid = true};
    assert_int_equal(hs_key_log_parse(all, len, on_record, &s), len);
    assert_int_equal(s.records, 3);
    assert_true(s.all_valid);
    assert_int_equal(s.keys[1], 3);
    assert_int_equal(s.headers[1], 2);
    assert_int_equal(s.headers[2], 4);
    assert_int_equal(s.keys[3], 5);
    free(all);
    free(r1);
    free(r2);
    free(r3);
}

/* A record cut anywhere at the end is not read, and the parse stops at its start (the rest
 * may still come). */
static void test_torn_record_at_the_end_waits(void **state)
{
    (void)state;
    size_t l1, l2;
    unsigned char *r1 = make_record(1, 2, 1, &l1), *r2 = make_record(2, 4, 3, &l2);
    for (size_t cut = 0; cut < l2; cut++) {
        size_t len;
        unsigned char *all = concat(&len, 2, r1, l1, r2, cut);
        seen s = {.all_valid = true};
        assert_int_equal(hs_key_log_parse(all, len, on_record, &s), l1);
        assert_int_equal(s.records, 1);
        assert_true(s.all_valid);
        assert_int_equal(s.keys[2] + s.headers[2], 0);
        free(all);
    }
    free(r1);
    free(r2);
}

/* A record cut anywhere and followed by another: the cut one is never read, the next is. */
static void test_torn_record_in_the_middle_is_skipped(void **state)
{
    (void)state;
    size_t l1, l2, l3;
    unsigned char *r1 = make_record(1, 2, 1, &l1), *r2 = make_record(2, 1, 1, &l2), *r3 = make_record(3, 6, 2, &l3);
    for (size_t cut = 1; cut < l2; cut++) {
        size_t len;
        unsigned char *all = concat(&len, 3, r1, l1, r2, cut, r3, l3);
        seen s = {.all_valid = true};
        assert_int_equal(hs_key_log_parse(all, len, on_record, &s), len);
        assert_int_equal(s.records, 2);
        assert_true(s.all_valid);
        assert_int_equal(s.keys[2] + s.headers[2], 0);
        assert_int_equal(s.keys[3], 6);
        assert_int_equal(s.headers[3], 2);
        free(all);
    }
    free(r1);
    free(r2);
    free(r3);
}

/* Any one byte changed (the check, the counts, the TU, a key) and the record is not read. */
static void test_damaged_record_is_skipped(void **state)
{
    (void)state;
    size_t l1, l2, len;
    unsigned char *r1 = make_record(1, 2, 2, &l1), *r2 = make_record(2, 3, 0, &l2);
    unsigned char *all = concat(&len, 2, r1, l1, r2, l2);
    for (size_t i = 0; i < l1; i++) {
        all[i] ^= 0x10;
        seen s = {.all_valid = true};
        hs_key_log_parse(all, len, on_record, &s);
        assert_int_equal(s.records, 1);
        assert_true(s.all_valid);
        assert_int_equal(s.keys[1] + s.headers[1], 0);
        assert_int_equal(s.keys[2], 3);
        all[i] ^= 0x10;
    }
    free(all);
    free(r1);
    free(r2);
}

static void test_garbage_gives_nothing(void **state)
{
    (void)state;
    unsigned char buf[4096];
    uint32_t x = 12345;
    for (size_t i = 0; i < sizeof buf; i++) {
        x = x * 1103515245u + 12345u;
        buf[i] = (unsigned char)(x >> 16);
    }
    /* Magics in it too, with counts that fit: still no check holds. */
    uint32_t magic = HS_KEY_LOG_MAGIC, one = 1, zero = 0;
    for (size_t at = 100; at + 64 < sizeof buf; at += 500) {
        memcpy(buf + at, &magic, 4);
        memcpy(buf + at + 8, &one, 4);
        memcpy(buf + at + 12, &zero, 4);
    }
    seen s = {.all_valid = true};
    size_t used = hs_key_log_parse(buf, sizeof buf, on_record, &s);
    assert_int_equal(s.records, 0);
    assert_true(used >= sizeof buf - 3);
}

static void append(FILE *f, const unsigned char *p, size_t n)
{
    assert_int_equal(fwrite(p, 1, n, f), n);
    assert_int_equal(fflush(f), 0);
}

/* The reader takes the keys of TUs below the one it is about to extract, holds the others
 * back until it passes them, reads each record once, and waits at a record being written. */
static void test_reader_takes_earlier_tus_only(void **state)
{
    (void)state;
    char path[] = "/tmp/hotscan-test-keylog-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fopen(path, "ab");
    assert_non_null(f);
    hs_key_log_reader *r = hs_key_log_reader_create(fd);
    seen s = {.all_valid = true};
    assert_int_equal(hs_key_log_reader_update(r, 3, on_key, &s), 0); /* empty */

    size_t l0, l5, l2, l4;
    unsigned char *r0 = make_record(0, 2, 1, &l0), *r5 = make_record(5, 4, 0, &l5), *r2 = make_record(2, 1, 1, &l2),
                  *r4 = make_record(4, 3, 2, &l4);
    append(f, r0, l0);
    append(f, r5, l5); /* from a TU after the reader's: a concurrent worker's */
    append(f, r2, l2);
    assert_int_equal(hs_key_log_reader_update(r, 3, on_key, &s), 3 + 2);
    assert_int_equal(s.keys[0], 2);
    assert_int_equal(s.headers[0], 1);
    assert_int_equal(s.keys[2] + s.headers[2], 2);
    assert_int_equal(s.keys[5], 0);
    assert_int_equal(hs_key_log_reader_update(r, 4, on_key, &s), 0); /* nothing new, TU 5 still held */

    append(f, r4, l4 - 10); /* being written */
    assert_int_equal(hs_key_log_reader_update(r, 6, on_key, &s), 4); /* TU 5 now; TU 4 not yet */
    assert_int_equal(s.keys[5], 4);
    assert_int_equal(s.keys[4] + s.headers[4], 0);
    assert_int_equal(hs_key_log_reader_offset(r), l0 + l5 + l2);
    append(f, r4 + l4 - 10, 10);
    assert_int_equal(hs_key_log_reader_update(r, 6, on_key, &s), 5);
    assert_int_equal(s.keys[4], 3);
    assert_int_equal(s.headers[4], 2);
    assert_int_equal(hs_key_log_reader_update(r, 7, on_key, &s), 0); /* each record once */
    assert_int_equal(s.keys[0], 2);
    assert_true(s.all_valid);

    hs_key_log_reader_delete(r);
    fclose(f);
    close(fd);
    unlink(path);
    free(r0);
    free(r5);
    free(r2);
    free(r4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_records_read_back_whole),
        cmocka_unit_test(test_torn_record_at_the_end_waits),
        cmocka_unit_test(test_torn_record_in_the_middle_is_skipped),
        cmocka_unit_test(test_damaged_record_is_skipped),
        cmocka_unit_test(test_garbage_gives_nothing),
        cmocka_unit_test(test_reader_takes_earlier_tus_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
