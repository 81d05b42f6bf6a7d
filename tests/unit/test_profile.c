/*
 * test_profile.c - the profile stage: reading perf script and folded profiles the project
 * recorded from its own example (tests/profile/fixtures, made by make_fixtures.sh), format
 * errors naming the line, symbol reduction, and mapping samples to a program's functions
 * (C names, C++ qualified names, same-named static functions told apart by file).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hotscan/profile.h"

#define FIXTURE(name) HOTSCAN_TEST_PROFILE_DIR "/" name

static const hs_profile_frame *find_frame(const hs_profile *p, const char *name, const char *file)
{
    for (size_t i = 0; i < p->n_frames; i++)
        if (strcmp(p->frames[i].name, name) == 0 &&
            (!file || (p->frames[i].file && strcmp(p->frames[i].file, file) == 0)))
            return &p->frames[i];
    return NULL;
}

static unsigned long long stack_total(const hs_profile *p)
{
    unsigned long long n = 0;
    for (size_t i = 0; i < p->n_stacks; i++)
        n += p->stacks[i].samples;
    return n;
}

static void test_perf_script_fixture(void **state)
{
    (void)state;
    char *err = NULL;
    hs_profile *p = hs_profile_load(FIXTURE("minidb.perf"), &err);
    assert_non_null(p);
    assert_int_equal(p->format, HS_PROFILE_PERF_SCRIPT);
    assert_true(p->samples > 100);
    assert_int_equal(stack_total(p), p->samples);
    /* Frames carry their source file; the two static checksum()s are two frames. */
    assert_non_null(find_frame(p, "trx_start_low", "trx.c"));
    assert_non_null(find_frame(p, "checksum", "trx.c"));
    assert_non_null(find_frame(p, "checksum", "server.c"));
    /* Offsets and dsos are gone; inlined C++ frames are kept. */
    assert_non_null(find_frame(p, "clock", NULL));
    assert_non_null(find_frame(p, "minidb::bench::Workload::statement", "driver.cc"));
    assert_null(find_frame(p, "clock (/usr/lib/x86_64-linux-gnu/libc.so.6)", NULL));
    hs_profile_delete(p);
}

static void test_folded_fixture(void **state)
{
    (void)state;
    char *err = NULL;
    hs_profile *p = hs_profile_load(FIXTURE("minidb.folded"), &err);
    assert_non_null(p);
    assert_int_equal(p->format, HS_PROFILE_FOLDED);
    assert_true(p->samples > 100);
    assert_non_null(find_frame(p, "trx_start_low", NULL));
    /* Leaf first: some stack ends in the vDSO's clock_gettime under clock under trx_start_low. */
    bool seen = false;
    for (size_t i = 0; i < p->n_stacks && !seen; i++) {
        const hs_profile_stack *s = &p->stacks[i];
        for (size_t k = 0; k + 1 < s->n; k++)
            if (strcmp(p->frames[s->frames[k]].name, "clock") == 0 &&
                strcmp(p->frames[s->frames[k + 1]].name, "trx_start_low") == 0)
                seen = true;
    }
    assert_true(seen);
    hs_profile_delete(p);
}

static hs_profile *read_text(const char *text, char **err)
{
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    hs_profile *p = hs_profile_read(f, "t.txt", err);
    fclose(f);
    return p;
}

static void test_format_errors(void **state)
{
    (void)state;
    char *err = NULL;
    assert_null(read_text("\n# comment\nhello world\nnot a profile\n", &err));
    assert_non_null(strstr(err, "t.txt:3: not a profile hotscan reads"));
    free(err);
    err = NULL;
    assert_null(read_text("main;f 3\nmain;g 4\nmain;h four\n", &err));
    assert_non_null(strstr(err, "t.txt:3: not a folded stack line"));
    free(err);
    err = NULL;
    /* perf script without call chains: the sample's own line is named. */
    assert_null(read_text("t 1 1.0: cpu-clock: \n\t 401000 main+0x1 (/t)\n\nt 1 1.1: cpu-clock: \n\n", &err));
    assert_non_null(strstr(err, "t.txt:4: this perf sample has no call chain"));
    free(err);
    err = NULL;
    assert_null(read_text("", &err));
    assert_non_null(strstr(err, "empty"));
    free(err);
    err = NULL;
    /* A folded profile read back gives the same stacks. */
    hs_profile *p = read_text("t 1 1.0: cpu-clock: \n\t 401000 g+0x1 (/t)\n\t 401100 main (/t)\n\n"
                              "t 1 1.1: cpu-clock: \n\t 401000 g+0x1 (/t)\n\t 401100 main (/t)\n", &err);
    assert_non_null(p);
    assert_int_equal(p->samples, 2);
    assert_int_equal(p->n_stacks, 1);
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_true(hs_profile_write_folded(p, out));
    fclose(out);
    assert_string_equal(buf, "main;g 2\n");
    free(buf);
    hs_profile_delete(p);
}

static void check_reduce(const char *in, const char *want)
{
    char *r = hs_profile_reduce_name(in);
    assert_string_equal(r, want);
    free(r);
}

static void test_reduce_names(void **state)
{
    (void)state;
    check_reduce("trx_start_low", "trx_start_low");
    check_reduce("clock_gettime@@GLIBC_2.17", "clock_gettime");
    check_reduce("update_active.constprop.0", "update_active");
    check_reduce("minidb::bench::Workload::statement(unsigned int, unsigned long)", "minidb::bench::Workload::statement");
    check_reduce("unsigned long minidb::bench::Workload::repeat<main::{lambda(long)#1}>(long, main::{lambda(long)#1})",
                 "minidb::bench::Workload::repeat");
    check_reduce("minidb::bench::Workload::repeat<main::{lambda(long)#1}>", "minidb::bench::Workload::repeat");
    check_reduce("main::{lambda(long)#1}::operator()(long) const", "main");
    check_reduce("std::vector<int, std::allocator<int> >::push_back(int const&)", "std::vector::push_back");
    check_reduce("(anonymous namespace)::helper(int) [clone .isra.0]", "(anonymous namespace)::helper");
    check_reduce("ns::Counter::operator++(int)", "ns::Counter::operator++");
    check_reduce("ns::Cmp::operator()(int, int) const", "ns::Cmp::operator()");
    check_reduce("bool ns::operator< <int>(ns::A<int> const&, ns::A<int> const&)", "ns::operator<");
}

/* A program shaped like minidb's, as the merge would build it. */
static hs_function *def(hs_program *p, const char *usr, const char *name, const char *file)
{
    hs_function *f = hs_program_function(p, usr, name);
    f->defined = true;
    f->file = file;
    f->line = 1;
    return f;
}

static json_t *finding(const char *function, const char *file, const char *api)
{
    json_t *f = json_pack("{s:s, s:s, s:s, s:s}", "rule", "timer-hot-path", "confidence", "high", "function",
                          function, "file", file);
    if (api)
        json_object_set_new(f, "api", json_string(api));
    return f;
}

static json_int_t incl_of(json_t *f)
{
    return json_integer_value(json_object_get(json_object_get(f, "profile"), "inclusive_samples"));
}

static void test_mapping(void **state)
{
    (void)state;
    char *err = NULL;
    hs_profile *prof = hs_profile_load(FIXTURE("minidb.perf"), &err);
    assert_non_null(prof);
    hs_program *p = hs_program_create();
    hs_function *trx = def(p, "c:@F@trx_start_low", "trx_start_low", "/x/minidb/trx.c");
    hs_function *dispatch = def(p, "c:@F@dispatch_command", "dispatch_command", "/x/minidb/server.c");
    def(p, "c:@F@row_search", "row_search", "/x/minidb/trx.c");
    def(p, "c:trx.c@F@checksum", "checksum", "/x/minidb/trx.c");
    def(p, "c:server.c@F@checksum", "checksum", "/x/minidb/server.c");
    def(p, "c:@F@srv_init", "srv_init", "/x/minidb/srv0srv.c");
    hs_function *main_fn = def(p, "c:@F@main", "main", "/x/minidb/driver.cc");
    hs_program_add_call(p, dispatch, trx, "/x/minidb/server.c", 30, 5, false);
    hs_profile_map *m = hs_profile_map_program(prof, p, 1.0);
    assert_true(trx->profile_root);
    assert_true(dispatch->profile_root);
    /* main calls dispatch_command through inlined C++ frames: a sampled edge. */
    bool sampled = false;
    for (size_t i = 0; i < main_fn->callees.len; i++) {
        hs_call_edge *e = main_fn->callees.items[i];
        sampled |= e->callee == dispatch && e->sampled && e->samples > 0;
    }
    assert_true(sampled);
    /* The static edge dispatch_command -> trx_start_low is not added again. */
    size_t to_trx = 0;
    for (size_t i = 0; i < dispatch->callees.len; i++)
        to_trx += ((hs_call_edge *)dispatch->callees.items[i])->callee == trx;
    assert_int_equal(to_trx, 1);

    json_t *fs = json_pack("[o, o, o, o, o]", finding("trx_start_low", "/x/minidb/trx.c", "clock"),
                           finding("checksum", "/x/minidb/trx.c", NULL),
                           finding("checksum", "/x/minidb/server.c", NULL),
                           finding("srv_init", "/x/minidb/srv0srv.c", "os_event_create"),
                           finding("trx_start_low", "/x/minidb/trx.c", "time"));
    hs_profile_annotate(m, fs, false);
    json_t *clockf = json_array_get(fs, 0), *pr = json_object_get(clockf, "profile");
    assert_true(json_number_value(json_object_get(pr, "symbol_share")) > 50.0);
    assert_true(json_number_value(json_object_get(pr, "inclusive")) >= json_number_value(json_object_get(pr, "symbol_share")));
    /* Two static checksum()s: each has its own samples, summing to the frames' total. */
    json_int_t in_trx = incl_of(json_array_get(fs, 1)), in_server = incl_of(json_array_get(fs, 2));
    assert_true(in_trx > 0 && in_server > 0);
    assert_true(in_trx != in_server);
    /* Never sampled: low, and it says what it was. */
    json_t *cold = json_array_get(fs, 3);
    assert_string_equal(json_string_value(json_object_get(cold, "confidence")), "low");
    assert_string_equal(json_string_value(json_object_get(json_object_get(cold, "profile"), "confidence_was")), "high");
    hs_findings_rank_by_profile(fs);
    assert_string_equal(json_string_value(json_object_get(json_array_get(fs, 0), "api")), "clock");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(json_array_get(fs, 0), "profile"), "rank")), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(fs, 4), "function")), "srv_init");

    json_t *sum = hs_profile_summary(m);
    json_int_t mapped = json_integer_value(json_object_get(sum, "mapped"));
    json_int_t unmapped = json_integer_value(json_object_get(sum, "unmapped"));
    assert_true(mapped > 0);
    assert_int_equal(mapped + unmapped, (json_int_t)prof->samples);
    json_decref(sum);
    json_decref(fs);
    hs_profile_map_delete(m);
    hs_program_delete(p);
    hs_profile_delete(prof);
}

static void test_cxx_mapping(void **state)
{
    (void)state;
    char *err = NULL;
    hs_profile *prof = hs_profile_load(FIXTURE("minidb-cxx.perf"), &err);
    assert_non_null(prof);
    hs_program *p = hs_program_create();
    /* Two overloads of one qualified name, a template method, main (its lambda). */
    hs_function *s1 = def(p, "c:@N@minidb@N@bench@S@Workload@F@statement#i#", "minidb::bench::Workload::statement",
                          "/x/minidb/driver.cc");
    hs_function *s2 = def(p, "c:@N@minidb@N@bench@S@Workload@F@statement#i#l#", "minidb::bench::Workload::statement",
                          "/x/minidb/driver.cc");
    hs_function *rep = def(p, "c:@N@minidb@N@bench@S@Workload@FT@>1#Trepeat#l#t0.0#l#", "minidb::bench::Workload::repeat",
                           "/x/minidb/driver.cc");
    hs_function *main_fn = def(p, "c:@F@main", "main", "/x/minidb/driver.cc");
    hs_function *trx = def(p, "c:@F@trx_start_low", "trx_start_low", "/x/minidb/trx.c");
    hs_profile_map *m = hs_profile_map_program(prof, p, 1.0);
    assert_true(s1->profile_root && s2->profile_root && rep->profile_root && main_fn->profile_root);
    assert_true(trx->profile_root);
    json_t *fs = json_pack("[o, o]", finding("minidb::bench::Workload::repeat", "/x/minidb/driver.cc", NULL),
                           finding("trx_start_low", "/x/minidb/trx.c", "clock"));
    hs_profile_annotate(m, fs, false);
    /* repeat<lambda> is on nearly every stack. */
    assert_true(json_number_value(json_object_get(json_object_get(json_array_get(fs, 0), "profile"), "inclusive")) > 90);
    assert_true(json_number_value(json_object_get(json_object_get(json_array_get(fs, 1), "profile"), "symbol_share")) > 30);
    json_decref(fs);
    hs_profile_map_delete(m);
    hs_program_delete(p);
    hs_profile_delete(prof);
}

/* A report's paths are relative to --root, the program's as the compile database gives them;
 * a tree's programs share one `main` (one USR for C's main: redis-server's, redis-cli's and
 * redis-benchmark's are one function to hotscan). */
static void test_findings_in_report_paths(void **state)
{
    (void)state;
    char *err = NULL;
    hs_profile *prof = hs_profile_load(FIXTURE("minidb.perf"), &err);
    assert_non_null(prof);
    hs_program *p = hs_program_create();
    hs_function *trx = def(p, "c:@F@trx_start_low", "trx_start_low", "/x/minidb/trx.c");
    hs_function *dispatch = def(p, "c:@F@dispatch_command", "dispatch_command", "/x/minidb/server.c");
    def(p, "c:trx.c@F@checksum", "checksum", "/x/minidb/trx.c");
    def(p, "c:server.c@F@checksum", "checksum", "/x/minidb/server.c");
    def(p, "c:@F@main", "main", "/x/minidb/driver.cc");
    hs_program_add_call(p, dispatch, trx, "/x/minidb/server.c", 30, 5, false);
    hs_profile_map *m = hs_profile_map_program(prof, p, 1.0);
    json_t *fs = json_pack("[o, o, o, o, o]", finding("checksum", "minidb/trx.c", NULL),
                           finding("checksum", "minidb/server.c", NULL), finding("main", "minidb/driver.cc", "time"),
                           finding("main", "minidb/bench/validate_driver.c", "time"),
                           finding("trx_start_low", "minidb/trx.c", "clock"));
    hs_profile_annotate(m, fs, false);
    /* Each static checksum() by its file. */
    json_int_t in_trx = incl_of(json_array_get(fs, 0)), in_server = incl_of(json_array_get(fs, 1));
    assert_true(in_trx > 0 && in_server > 0);
    assert_true(in_trx != in_server);
    /* A start-up read in main: main has nearly every sample, the read none. */
    json_t *start = json_array_get(fs, 2), *sp = json_object_get(start, "profile");
    assert_true(json_number_value(json_object_get(sp, "inclusive")) > 90);
    assert_int_equal(json_integer_value(json_object_get(sp, "symbol_samples")), 0);
    assert_string_equal(json_string_value(json_object_get(sp, "unsampled")), "call");
    assert_string_equal(json_string_value(json_object_get(start, "confidence")), "low");
    assert_string_equal(json_string_value(json_object_get(sp, "confidence_was")), "high");
    /* Another program's main: the profile saw main only in driver.cc. */
    json_t *other = json_array_get(fs, 3), *op = json_object_get(other, "profile");
    assert_false(json_is_true(json_object_get(op, "sampled")));
    assert_string_equal(json_string_value(json_object_get(op, "unsampled")), "file");
    assert_string_equal(json_string_value(json_object_get(other, "confidence")), "low");
    /* The clock read stays, and names the function it is sampled under. */
    json_t *clk = json_array_get(fs, 4), *cp = json_object_get(clk, "profile");
    assert_string_equal(json_string_value(json_object_get(clk, "confidence")), "high");
    assert_null(json_object_get(cp, "unsampled"));
    json_t *caller = json_array_get(json_object_get(cp, "callers"), 0);
    assert_string_equal(json_string_value(json_object_get(caller, "function")), "dispatch_command");
    assert_true(json_number_value(json_object_get(caller, "share")) > 50);
    /* --keep-unsampled keeps them. */
    json_t *kept = json_pack("[o, o]", finding("main", "minidb/driver.cc", "time"),
                             finding("main", "minidb/bench/validate_driver.c", "time"));
    hs_profile_annotate(m, kept, true);
    for (size_t i = 0; i < 2; i++)
        assert_string_equal(json_string_value(json_object_get(json_array_get(kept, i), "confidence")), "high");
    json_decref(kept);
    json_decref(fs);
    hs_profile_map_delete(m);
    hs_program_delete(p);
    hs_profile_delete(prof);
}

/* ---- the whole-sample fast path against the line-by-line reading ---- */

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *buf = NULL;
    size_t cap = 0;
    FILE *out = open_memstream(&buf, &cap);
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        fwrite(chunk, 1, n, out);
    fclose(f);
    fclose(out);
    *len = cap;
    return buf;
}

/* What a reading gives: the error, or the samples and every stack with its frames (names and
 * files, by id, so frame numbering must agree too) and count. */
static char *describe(hs_profile *(*read)(FILE *, const char *, char **), const char *text, size_t len)
{
    FILE *f = fmemopen((void *)text, len, "r");
    char *err = NULL;
    hs_profile *p = read(f, "t.txt", &err);
    fclose(f);
    char *buf = NULL;
    size_t n = 0;
    FILE *out = open_memstream(&buf, &n);
    if (!p) {
        fprintf(out, "error: %s\n", err);
        free(err);
    } else {
        fprintf(out, "%s %llu samples\n", hs_profile_format_name(p->format), p->samples);
        for (size_t i = 0; i < p->n_frames; i++)
            fprintf(out, "frame %zu %s %s\n", i, p->frames[i].name, p->frames[i].file ? p->frames[i].file : "-");
        for (size_t i = 0; i < p->n_stacks; i++) {
            fprintf(out, "stack %llu:", p->stacks[i].samples);
            for (size_t k = 0; k < p->stacks[i].n; k++)
                fprintf(out, " %u", p->stacks[i].frames[k]);
            fprintf(out, "\n");
        }
        hs_profile_delete(p);
    }
    fclose(out);
    return buf;
}

static void assert_same_reading(const char *text, size_t len)
{
    char *fast = describe(hs_profile_read, text, len);
    char *slow = describe(hs_profile_read_by_lines, text, len);
    assert_string_equal(fast, slow);
    free(fast);
    free(slow);
}

/* Replaces every `from` by `to` (a new string). */
static char *replace_all(const char *s, size_t len, const char *from, const char *to, size_t *out_len)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *out = open_memstream(&buf, &n);
    size_t fl = strlen(from);
    for (size_t i = 0; i < len;) {
        if (i + fl <= len && memcmp(s + i, from, fl) == 0) {
            fputs(to, out);
            i += fl;
        } else {
            fputc(s[i++], out);
        }
    }
    fclose(out);
    *out_len = n;
    return buf;
}

static void test_fast_path_same_as_lines(void **state)
{
    (void)state;
    size_t len;
    char *fx = slurp(FIXTURE("minidb.perf"), &len);
    char *cxx_text;
    size_t cxx_len;
    cxx_text = slurp(FIXTURE("minidb-cxx.perf"), &cxx_len);
    /* The fixtures, three times over (the chains repeat), and one after the other. */
    char *buf = NULL;
    size_t n = 0;
    FILE *out = open_memstream(&buf, &n);
    for (int i = 0; i < 3; i++)
        fwrite(fx, 1, len, out);
    fwrite(cxx_text, 1, cxx_len, out);
    fclose(out);
    assert_same_reading(buf, n);
    char *a = describe(hs_profile_read, buf, n);
    assert_non_null(strstr(a, "perf-script"));
    free(a);
    /* Samples without blank lines between them; CRLF line ends; a blank line of spaces inside
     * a sample; the file ending without the blank line or without any newline. */
    size_t m;
    char *t = replace_all(buf, n, "\n\nminidb", "\nminidb", &m);
    assert_same_reading(t, m);
    free(t);
    t = replace_all(buf, n, "\n", "\r\n", &m);
    assert_same_reading(t, m);
    free(t);
    t = replace_all(buf, n, "  trx.c:19\n", "  trx.c:19\n   \n", &m);
    assert_same_reading(t, m);
    free(t);
    assert_same_reading(buf, n - 1);
    assert_same_reading(buf, n - 2);
    /* Leaf addresses that vary sample for sample (as real profiles have), source lines left out. */
    t = replace_all(buf, n, "\t     ", "\t  1", &m);
    char *u = replace_all(t, m, "  clock.c:31\n", "", &m);
    assert_same_reading(u, m);
    free(t);
    free(u);
    /* Errors name the same line after samples read whole: a sample without a call chain, and
     * a sample whose frames are not frames. */
    out = open_memstream(&t, &m);
    fwrite(fx, 1, len, out);
    fputs("t 1 1.1: cpu-clock: \n\nt 1 1.2: cpu-clock: \n\t 401000 g+0x1 (/t)\n\n", out);
    fclose(out);
    assert_same_reading(t, m);
    char *d = describe(hs_profile_read, t, m);
    assert_non_null(strstr(d, "this perf sample has no call chain"));
    free(d);
    free(t);
    out = open_memstream(&t, &m);
    fwrite(fx, 1, len, out);
    fputs("t 1 1.1: cpu-clock: \n   not a frame\n\t 401000 g+0x1 (/t)\n\n", out);
    fwrite(fx, 1, len, out);
    fclose(out);
    assert_same_reading(t, m);
    free(t);
    /* One-frame samples, a frame without its source line between ones with. */
    const char *small = "a 1 1.0: c: \n\t 401000 main (/t)\n\n"
                        "a 1 1.1: c: \n\t 401000 main (/t)\n\n"
                        "a 1 1.2: c: \n\t 401010 g+0x1 (/t)\n  t.c:3\n\t 401000 main (/t)\n  t.c:9\n\n"
                        "a 1 1.3: c: \n\t 401020 g+0x2 (/t)\n\t 401000 main (/t)\n  t.c:9\n\n"
                        "a 1 1.4: c: \n\t 401030 g+0x3 (/t)\n  t.c:4\n\t 401000 main (/t)\n  t.c:9\n\n";
    assert_same_reading(small, strlen(small));
    /* Folded stacks repeated. */
    free(buf);
    char *fold = slurp(FIXTURE("minidb.folded"), &len);
    out = open_memstream(&buf, &n);
    for (int i = 0; i < 3; i++)
        fwrite(fold, 1, len, out);
    fclose(out);
    assert_same_reading(buf, n);
    free(fold);
    free(buf);
    free(fx);
    free(cxx_text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_perf_script_fixture), cmocka_unit_test(test_folded_fixture),
        cmocka_unit_test(test_format_errors),       cmocka_unit_test(test_reduce_names),
        cmocka_unit_test(test_mapping),             cmocka_unit_test(test_cxx_mapping),
        cmocka_unit_test(test_fast_path_same_as_lines), cmocka_unit_test(test_findings_in_report_paths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
