/*
 * test_callgraph.c - unit tests for the program model (analyzer/model/program.c): hot roots,
 * shortest hot paths, cycles and recursion, cold propagation, and the cross-TU merge.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "hotscan/program.h"
#include "timers/timer_facts.h"

/* A function whose USR is derived from its name, as libclang spells C functions. */
static hs_function *fn(hs_program *p, const char *name)
{
    char *usr = hs_printf("c:@F@%s", name);
    hs_function *f = hs_program_function(p, usr, name);
    free(usr);
    return f;
}

static hs_call_edge *call(hs_program *p, hs_function *from, hs_function *to, unsigned line)
{
    return hs_program_add_call(p, from, to, "/src/x.c", line, 3, false);
}

static void hot(hs_program *p, const char *name)
{
    char *names[1] = {(char *)name};
    hs_program_compute_hotness(p, names, name ? 1 : 0);
}

/* Asserts that f's hot path is exactly the given edges, root first. */
static void assert_path(const hs_function *f, hs_call_edge **want, size_t n)
{
    hs_vec path;
    hs_program_hot_path(f, &path);
    size_t len = path.len;
    bool same = len == n;
    for (size_t i = 0; same && i < n; i++)
        same = path.items[i] == want[i];
    hs_vec_free(&path);
    assert_int_equal(len, n);
    assert_true(same);
}

static void test_function_lookup_by_usr(void **state)
{
    (void)state;
    hs_program *p = hs_program_create();
    hs_function *a = hs_program_function(p, "c:@F@a", "a");
    assert_ptr_equal(hs_program_function(p, "c:@F@a", "other name"), a);
    assert_string_equal(a->name, "a");
    hs_function *anon = hs_program_function(p, "c:@F@b", NULL);
    assert_string_equal(anon->name, "c:@F@b"); /* no name: the USR stands in */
    assert_int_equal(p->function_list.len, 2);
    assert_int_equal(a->hot_depth, -1);
    assert_false(a->defined);
    hs_call_edge *e = hs_program_add_call(p, a, anon, NULL, 7, 9, true);
    assert_ptr_equal(e->caller, a);
    assert_ptr_equal(e->callee, anon);
    assert_string_equal(e->file, "");
    assert_int_equal(e->line, 7);
    assert_int_equal(e->column, 9);
    assert_true(e->in_loop);
    assert_int_equal(a->callees.len, 1);
    assert_int_equal(anon->callers.len, 1);
    assert_int_equal(p->edges.len, 1);
    hs_program_delete(p);
    hs_program_delete(NULL);
}

static void test_reachability_depth(void **state)
{
    (void)state;
    hs_program *p = hs_program_create();
    hs_function *r = fn(p, "dispatch"), *a = fn(p, "a"), *b = fn(p, "b"), *c = fn(p, "c");
    hs_function *d = fn(p, "unrelated"), *e = fn(p, "caller_of_root");
    hs_call_edge *ra = call(p, r, a, 10), *ab = call(p, a, b, 20), *bc = call(p, b, c, 30);
    call(p, e, r, 40); /* callers of a root are not hot */
    hot(p, "dispatch");

    assert_true(r->hot_root);
    assert_false(a->hot_root);
    assert_int_equal(r->hot_depth, 0);
    assert_int_equal(a->hot_depth, 1);
    assert_int_equal(b->hot_depth, 2);
    assert_int_equal(c->hot_depth, 3);
    assert_int_equal(d->hot_depth, -1);
    assert_int_equal(e->hot_depth, -1);
    assert_null(r->hot_via);
    assert_ptr_equal(a->hot_via, ra);
    assert_ptr_equal(c->hot_via, bc);

    hs_call_edge *want[] = {ra, ab, bc};
    assert_path(c, want, 3);
    assert_path(a, want, 1);
    assert_path(r, NULL, 0);
    assert_path(d, NULL, 0);
    for (size_t i = 0; i < p->function_list.len; i++)
        assert_false(((hs_function *)p->function_list.items[i])->cold_only);
    hs_program_delete(p);
}

static void test_no_roots_nothing_hot(void **state)
{
    (void)state;
    hs_program *p = hs_program_create();
    hs_function *a = fn(p, "a"), *b = fn(p, "b");
    call(p, a, b, 1);
    hs_program_compute_hotness(p, NULL, 0);
    assert_false(a->hot_root);
    assert_int_equal(a->hot_depth, -1);
    assert_int_equal(b->hot_depth, -1);
    assert_false(b->cold_only);
    hs_program_delete(p);
}

static void test_shortest_path_chosen(void **state)
{
    (void)state;
    hs_program *p = hs_program_create();
    hs_function *r = fn(p, "root"), *a = fn(p, "a"), *b = fn(p, "b"), *c = fn(p, "c");
    hs_function *s = fn(p, "s"), *t = fn(p, "target");
    /* the long way is added first, so insertion order would pick it */
    hs_call_edge *ra = call(p, r, a, 1);
    call(p, a, b, 2);
    call(p, b, c, 3);
    call(p, c, t, 4);
    hs_call_edge *rs = call(p, r, s, 5), *st = call(p, s, t, 6);
    hot(p, "root");
    assert_int_equal(t->hot_depth, 2);
    assert_ptr_equal(t->hot_via, st);
    hs_call_edge *want[] = {rs, st};
    assert_path(t, want, 2);
    assert_int_equal(c->hot_depth, 3);
    assert_ptr_equal(a->hot_via, ra);
    hs_program_delete(p);
}

static void test_nearest_of_two_roots(void **state)
{
    (void)state;
    hs_program *p = hs_program_create();
    hs_function *r1 = fn(p, "far_root"), *x = fn(p, "x"), *y = fn(p, "y"), *t = fn(p, "t");
    hs_function *r2 = fn(p, "near_root");
    r1->hot_attr = true;
    r2->hot_attr = true;
    call(p, r1, x, 1);
    call(p, x, y, 2);
    call(p, y, t, 3);
    hs_call_edge *near = call(p, r2, t, 4);
    hs_program_compute_hotness(p, NULL, 0);
    assert_int_equal(t->hot_depth, 1);
    hs_call_edge *want[] = {near};
    assert_path(t, want, 1);
    hs_program_delete(p);
}

static void test_cycles_terminate(void **state)
{
    (void)state;
    hs_program *p = hs_program_create();
    hs_function *r = fn(p, "loop_root"), *a = fn(p, "a"), *b = fn(p, "b"), *c = fn(p, "c");
    hs_call_edge *ra = call(p, r, a, 1), *ab = call(p, a, b, 2), *bc = call(p, b, c, 4);
    call(p, b, a, 3); /* a <-> b */
    call(p, c, r, 5); /* and back to the root */
    hot(p, "loop_root");
    assert_int_equal(r->hot_depth, 0);
    assert_int_equal(a->hot_depth, 1);
    assert_int_equal(b->hot_depth, 2);
    assert_int_equal(c->hot_depth, 3);
    hs_call_edge *want[] = {ra, ab, bc};
    assert_path(c, want, 3);
    assert_path(r, NULL, 0); /* a root's path is empty even when it is called back */
    for (size_t i = 0; i < p->function_list.len; i++)
        assert_false(((hs_function *)p->function_list.items[i])->cold_only);
    hs_program_delete(p);
}

static void test_recursion(void **state)
{
    (void)state;
    hs_program *p = hs_program_create();
    hs_function *r = fn(p, "root"), *rec = fn(p, "walk"), *leaf = fn(p, "leaf");
    hs_call_edge *rr = call(p, r, rec, 1);
    call(p, rec, rec, 2); /* self-call */
    hs_call_edge *rl = call(p, rec, leaf, 3);
    call(p, r, r, 4); /* a recursive root */
    hot(p, "root");
    assert_true(r->hot_root);
    assert_int_equal(r->hot_depth, 0);
    assert_int_equal(rec->hot_depth, 1);
    assert_ptr_equal(rec->hot_via, rr);
    assert_int_equal(leaf->hot_depth, 2);
    hs_call_edge *want[] = {rr, rl};
    assert_path(leaf, want, 2);
    assert_path(rec, want, 1);
    assert_false(rec->cold_only);
    hs_program_delete(p);
}

static void test_unreached_recursion_is_not_hot(void **state)
{
    (void)state;
    hs_program *p = hs_program_create();
    hs_function *r = fn(p, "root"), *g = fn(p, "lonely");
    call(p, g, g, 1);
    hot(p, "root");
    assert_int_equal(g->hot_depth, -1);
    assert_false(g->cold_only);
    assert_true(r->hot_root);
    hs_program_delete(p);
}

static void test_cold_stops_propagation(void **state)
{
    (void)state;
    hs_program *p = hs_program_create();
    hs_function *r = fn(p, "root"), *k = fn(p, "error_path"), *l = fn(p, "report"), *m = fn(p, "format");
    k->cold_attr = true;
    call(p, r, k, 1);
    call(p, k, l, 2);
    call(p, l, m, 3);
    hot(p, "root");
    assert_int_equal(k->hot_depth, -1);
    assert_int_equal(l->hot_depth, -1);
    assert_int_equal(m->hot_depth, -1);
    assert_true(k->cold_only);
    assert_true(l->cold_only);
    assert_true(m->cold_only);
    assert_false(r->cold_only);
    assert_path(l, NULL, 0);
    hs_program_delete(p);
}

static void test_cold_and_warm_callers_not_cold_only(void **state)
{
    (void)state;
    hs_program *p = hs_program_create();
    hs_function *r = fn(p, "root"), *k = fn(p, "slow_path"), *shared = fn(p, "shared");
    hs_function *entry = fn(p, "main"), *k2 = fn(p, "abort_path"), *util = fn(p, "util");
    k->cold_attr = true;
    k2->cold_attr = true;
    /* shared: called from a cold function and from a hot root */
    call(p, k, shared, 1);
    hs_call_edge *rs = call(p, r, shared, 2);
    /* util: called from a cold function and from a warm entry that is not hot */
    call(p, k2, util, 3);
    call(p, entry, util, 4);
    hot(p, "root");
    assert_int_equal(shared->hot_depth, 1);
    assert_ptr_equal(shared->hot_via, rs);
    assert_false(shared->cold_only);
    assert_int_equal(util->hot_depth, -1);
    assert_false(util->cold_only);
    assert_false(entry->cold_only);
    assert_true(k->cold_only);
    assert_true(k2->cold_only);
    hs_program_delete(p);
}

static void test_unreached_cycles_not_cold_only(void **state)
{
    (void)state;
    hs_program *p = hs_program_create();
    /* a <-> b, called by nothing else (say, through a function pointer) */
    hs_function *a = fn(p, "a"), *b = fn(p, "b");
    call(p, a, b, 1);
    call(p, b, a, 2);
    /* c <-> d, entered only from cold code: reachable only from cold, so cold-only */
    hs_function *k = fn(p, "cold_entry"), *c = fn(p, "c"), *d = fn(p, "d");
    k->cold_attr = true;
    call(p, k, c, 3);
    call(p, c, d, 4);
    call(p, d, c, 5);
    hs_program_compute_hotness(p, NULL, 0);
    assert_false(a->cold_only);
    assert_false(b->cold_only);
    assert_true(c->cold_only);
    assert_true(d->cold_only);
    hs_program_delete(p);
}

/*
 * What an unreached warm cycle calls is reachable from non-cold code, so it is not
 * "reachable only from cold code" even when a cold function calls it too. The same
 * holds for a self-recursive function nothing else calls (an API entered through a
 * function pointer): its callees are warm.
 */
static void test_callee_of_unreached_cycle_not_cold_only(void **state)
{
    (void)state;
    hs_program *p = hs_program_create();
    hs_function *a = fn(p, "a"), *b = fn(p, "b"), *x = fn(p, "x");
    hs_function *k = fn(p, "cold_fn"), *w = fn(p, "tree_walk"), *y = fn(p, "y");
    k->cold_attr = true;
    call(p, a, b, 1);
    call(p, b, a, 2);
    call(p, a, x, 3);
    call(p, k, x, 4);
    call(p, w, w, 5);
    call(p, w, y, 6);
    call(p, k, y, 7);
    hs_program_compute_hotness(p, NULL, 0);
    bool a_cold = a->cold_only, x_cold = x->cold_only, w_cold = w->cold_only, y_cold = y->cold_only;
    hs_program_delete(p);
    assert_false(a_cold);
    assert_false(w_cold);
    assert_false(x_cold);
    assert_false(y_cold);
}

static void test_hot_names_qualified_and_unqualified(void **state)
{
    (void)state;
    hs_program *p = hs_program_create();
    hs_function *method = hs_program_function(p, "c:@S@Server@F@handle#", "Server::handle");
    hs_function *free_fn = fn(p, "handle");
    hs_function *nested = hs_program_function(p, "c:@N@ns@S@Other@F@handle#", "ns::Other::handle");
    hs_function *longer = hs_program_function(p, "c:@S@Client@F@handle_request#", "Client::handle_request");
    hs_function *suffix = fn(p, "rehandle");

    hot(p, "handle"); /* unqualified: every function of that name */
    assert_true(method->hot_root);
    assert_true(free_fn->hot_root);
    assert_true(nested->hot_root);
    assert_false(longer->hot_root);
    assert_false(suffix->hot_root);

    hot(p, "Server::handle"); /* qualified: that one only; recomputing resets the rest */
    assert_true(method->hot_root);
    assert_int_equal(method->hot_depth, 0);
    assert_false(free_fn->hot_root);
    assert_int_equal(free_fn->hot_depth, -1);
    assert_false(nested->hot_root);
    assert_false(longer->hot_root);

    hot(p, "Other::handle"); /* the last components of ns::Other::handle */
    assert_true(nested->hot_root);
    assert_false(method->hot_root);

    hot(p, "::Other::handle"); /* a leading :: asks for the whole name */
    assert_false(nested->hot_root);

    hot(p, "::Server::handle");
    assert_true(method->hot_root);

    hot(p, "ther::handle"); /* components, not a suffix of the text */
    assert_false(nested->hot_root);

    char *two[] = {"ns::Other::handle", "rehandle"};
    hs_program_compute_hotness(p, two, 2);
    assert_true(nested->hot_root);
    assert_true(suffix->hot_root);
    assert_false(method->hot_root);
    hs_program_delete(p);
}

static void test_hot_attribute_roots(void **state)
{
    (void)state;
    hs_program *p = hs_program_create();
    hs_function *h = fn(p, "fast_path"), *callee = fn(p, "helper"), *both = fn(p, "confused");
    h->hot_attr = true;
    both->hot_attr = true;
    both->cold_attr = true; /* cold wins */
    hs_call_edge *e = call(p, h, callee, 1);
    hs_program_compute_hotness(p, NULL, 0);
    assert_true(h->hot_root);
    assert_int_equal(h->hot_depth, 0);
    assert_int_equal(callee->hot_depth, 1);
    hs_call_edge *want[] = {e};
    assert_path(callee, want, 1);
    assert_false(both->hot_root);
    assert_int_equal(both->hot_depth, -1);
    assert_true(both->cold_only);
    hs_program_delete(p);
}

static void test_cold_function_named_hot_is_not_root(void **state)
{
    (void)state;
    hs_program *p = hs_program_create();
    hs_function *k = fn(p, "cold_but_named"), *l = fn(p, "below");
    k->cold_attr = true;
    call(p, k, l, 1);
    hot(p, "cold_but_named");
    assert_false(k->hot_root);
    assert_int_equal(k->hot_depth, -1);
    assert_int_equal(l->hot_depth, -1);
    assert_true(k->cold_only);
    assert_true(l->cold_only);
    hs_program_delete(p);
}

/* ---- merge ---- */

static json_t *tu_facts(const char *main_usr, const char *main_name, const char *main_file,
                        unsigned call_line)
{
    json_t *facts = json_pack(
        "{s:[{s:s, s:s, s:s, s:i, s:i, s:b}, {s:s, s:s, s:s, s:i, s:i, s:b, s:b}],"
        " s:[{s:s, s:s, s:s, s:s, s:i, s:i, s:b}, {s:s, s:s, s:s, s:s, s:i, s:i, s:b}],"
        " s:[{s:s, s:i, s:i, s:i, s:s, s:i, s:s}]}",
        "functions",
        "usr", main_usr, "name", main_name, "file", main_file, "line", 1, "column", 5, "defined", 1,
        "usr", "c:@F@hdr_now", "name", "hdr_now", "file", "/p/include/now.h", "line", 3, "column", 19,
        "defined", 1, "hot", 0,
        "calls",
        "caller", main_usr, "callee", "c:@F@hdr_now", "callee_name", "hdr_now", "file", main_file,
        "line", (int)call_line, "column", 9, "in_loop", 1,
        "caller", "c:@F@hdr_now", "callee", "c:@F@clock", "callee_name", "clock", "file",
        "/p/include/now.h", "line", 5, "column", 12, "in_loop", 0,
        "clock_reads",
        "file", "/p/include/now.h", "offset", 77, "line", 5, "column", 12, "function", "c:@F@hdr_now",
        "ordinal", 0, "api", "clock");
    assert_non_null(facts);
    return facts;
}

static size_t count_usr(const hs_program *p, const char *usr)
{
    size_t n = 0;
    for (size_t i = 0; i < p->function_list.len; i++)
        n += strcmp(((hs_function *)p->function_list.items[i])->usr, usr) == 0;
    return n;
}

static void test_merge_counts_header_facts_once(void **state)
{
    (void)state;
    hs_program *p = hs_program_create();
    json_t *a = tu_facts("c:@F@main_a", "main_a", "/p/a.c", 10);
    json_t *b = tu_facts("c:@F@main_b", "main_b", "/p/b.c", 20);
    hs_program_merge(p, a);
    hs_program_merge(p, b);
    hs_program_merge(p, a); /* the same TU again changes nothing but the count */
    assert_int_equal(p->translation_units, 3);

    assert_int_equal(hs_timer_facts(p)->len, 1);
    assert_int_equal(count_usr(p, "c:@F@hdr_now"), 1);
    assert_int_equal(count_usr(p, "c:@F@clock"), 1);
    assert_int_equal(p->function_list.len, 4); /* main_a, hdr_now, clock, main_b */

    /* main_a -> hdr_now, hdr_now -> clock (once), main_b -> hdr_now */
    assert_int_equal(p->edges.len, 3);
    hs_function *hdr = hs_strmap_get(p->functions, "c:@F@hdr_now");
    assert_non_null(hdr);
    assert_int_equal(hdr->callees.len, 1);
    assert_int_equal(hdr->callers.len, 2);
    hs_call_edge *e = hdr->callers.items[0];
    assert_string_equal(e->caller->name, "main_a");
    assert_string_equal(e->file, "/p/a.c");
    assert_int_equal(e->line, 10);
    assert_int_equal(e->column, 9);
    assert_true(e->in_loop);
    assert_true(hdr->defined);
    assert_string_equal(hdr->file, "/p/include/now.h");
    assert_int_equal(hdr->line, 3);
    hs_function *clk = hs_strmap_get(p->functions, "c:@F@clock");
    assert_non_null(clk);
    assert_string_equal(clk->name, "clock"); /* named from callee_name */
    assert_false(clk->defined);
    assert_null(clk->file);

    /* the merged model answers hotness questions across TUs */
    hot(p, "main_b");
    assert_int_equal(hdr->hot_depth, 1);
    assert_string_equal(hdr->hot_via->caller->name, "main_b");
    json_decref(a);
    json_decref(b);
    hs_program_delete(p);
}

static void test_merge_distinct_reads_and_definitions(void **state)
{
    (void)state;
    hs_program *p = hs_program_create();
    /* TU 1 only declares f; TU 2 defines it (with the hot attribute) and reads the clock twice */
    json_t *decl = json_pack("{s:[{s:s, s:s, s:s, s:i, s:i, s:b}]}", "functions", "usr", "c:@F@f",
                             "name", "f", "file", "/p/f.h", "line", 2, "column", 6, "defined", 0);
    json_t *def = json_pack(
        "{s:[{s:s, s:s, s:s, s:i, s:i, s:b, s:b}],"
        " s:[{s:s, s:i, s:s, s:i}, {s:s, s:i, s:s, s:i}, {s:s, s:i, s:s, s:i}]}",
        "functions", "usr", "c:@F@f", "name", "f", "file", "/p/f.c", "line", 8, "column", 6,
        "defined", 1, "hot", 1,
        "clock_reads",
        "file", "/p/f.c", "offset", 100, "function", "c:@F@f", "ordinal", 0,
        "file", "/p/f.c", "offset", 140, "function", "c:@F@f", "ordinal", 1,
        /* the same offset under another ordinal: a second expansion of one macro use */
        "file", "/p/f.c", "offset", 100, "function", "c:@F@f", "ordinal", 2);
    assert_non_null(decl);
    assert_non_null(def);
    hs_program_merge(p, decl);
    hs_function *f = hs_strmap_get(p->functions, "c:@F@f");
    assert_non_null(f);
    assert_false(f->defined);
    assert_string_equal(f->file, "/p/f.h");
    hs_program_merge(p, def);
    hs_program_merge(p, decl); /* a later declaration does not move it back */
    assert_true(f->defined);
    assert_true(f->hot_attr);
    assert_string_equal(f->file, "/p/f.c");
    assert_int_equal(f->line, 8);
    assert_int_equal(hs_timer_facts(p)->len, 3);
    assert_int_equal(p->function_list.len, 1);
    json_decref(decl);
    json_decref(def);
    hs_program_delete(p);
}

/* Two TUs: one calls through a table's field and a global pointer, the other stores the
 * functions; the edges appear only after the whole program is merged. */
static void test_indirect_calls_resolve_over_the_program(void **state)
{
    (void)state;
    hs_program *p = hs_program_create();
    json_t *tu1 = json_pack(
        "{s:[{s:s, s:s, s:b}], s:[{s:s, s:s, s:s, s:s, s:i, s:i, s:b}, {s:s, s:s, s:s, s:s, s:i, s:i, s:b}]}",
        "functions", "usr", "c:@F@call", "name", "call", "defined", 1,
        "calls", "caller", "c:@F@call", "slot", "c:@S@cmd@FI@proc", "via", "c->cmd->proc", "file", "/p/a.c",
        "line", 10, "column", 5, "in_loop", 0,
        "caller", "c:@F@call", "slot", "c:@never_stored", "via", "never_stored", "file", "/p/a.c",
        "line", 11, "column", 5, "in_loop", 0);
    json_t *tu2 = json_pack(
        "{s:[{s:s, s:s, s:b}, {s:s, s:s, s:b}, {s:s, s:s, s:b}],"
        " s:[{s:s, s:s, s:s, s:s, s:i}, {s:s, s:s, s:s, s:s, s:i}, {s:s, s:s, s:s, s:s, s:i}]}",
        "functions", "usr", "c:@F@getCommand", "name", "getCommand", "defined", 1,
        "usr", "c:@F@setCommand", "name", "setCommand", "defined", 1,
        "usr", "c:@F@unstored", "name", "unstored", "defined", 1,
        "fn_stores", "slot", "c:@S@cmd@FI@proc", "function", "c:@F@getCommand", "function_name", "getCommand",
        "file", "/p/b.c", "line", 3,
        "slot", "c:@S@cmd@FI@proc", "function", "c:@F@setCommand", "function_name", "setCommand",
        "file", "/p/b.c", "line", 4,
        /* the same store seen again (a header's table in another TU) counts once */
        "slot", "c:@S@cmd@FI@proc", "function", "c:@F@getCommand", "function_name", "getCommand",
        "file", "/p/b.c", "line", 3);
    hs_program_merge(p, tu1);
    hs_program_merge(p, tu2);
    json_decref(tu1);
    json_decref(tu2);
    hot(p, "call");
    hs_function *get = hs_strmap_get(p->functions, "c:@F@getCommand");
    hs_function *set = hs_strmap_get(p->functions, "c:@F@setCommand");
    hs_function *unstored = hs_strmap_get(p->functions, "c:@F@unstored");
    assert_int_equal(get->hot_depth, 1);
    assert_int_equal(set->hot_depth, 1);
    assert_int_equal(unstored->hot_depth, -1);
    assert_true(get->hot_via->indirect);
    assert_false(get->hot_via->is_virtual);
    assert_string_equal(get->hot_via->via, "c->cmd->proc");
    assert_int_equal(get->hot_via->targets, 2);
    assert_int_equal(p->indirect_edges, 2);
    /* Resolving again (hotness re-run) adds nothing. */
    hot(p, "call");
    assert_int_equal(p->indirect_edges, 2);
    assert_int_equal(p->edges.len, 2);
    hs_program_delete(p);
}

/* A virtual call reaches every override, transitively; a plain call to the same method
 * does not. More targets than HS_WIDE_INDIRECT_TARGETS: reached, but not hot_narrow. */
static void test_virtual_calls_reach_overrides(void **state)
{
    (void)state;
    hs_program *p = hs_program_create();
    json_t *facts = json_pack(
        "{s:[{s:s, s:s, s:s, s:s, s:i, s:i, s:b, s:b}, {s:s, s:s, s:s, s:s, s:i, s:i, s:b}],"
        " s:[{s:s, s:s, s:s, s:s}, {s:s, s:s, s:s, s:s}]}",
        "calls", "caller", "c:@F@dispatch", "callee", "c:@S@handler@F@read#", "callee_name", "handler::read",
        "file", "/p/a.cc", "line", 5, "column", 3, "in_loop", 0, "virtual", 1,
        "caller", "c:@F@plain", "callee", "c:@S@handler@F@read#", "callee_name", "handler::read",
        "file", "/p/a.cc", "line", 9, "column", 3, "in_loop", 0,
        "overrides", "method", "c:@S@inno@F@read#", "method_name", "inno::read", "base", "c:@S@handler@F@read#",
        "base_name", "handler::read",
        "method", "c:@S@inno2@F@read#", "method_name", "inno2::read", "base", "c:@S@inno@F@read#",
        "base_name", "inno::read");
    fn(p, "dispatch");
    hs_program_merge(p, facts);
    json_decref(facts);
    hot(p, "dispatch");
    hs_function *inno = hs_strmap_get(p->functions, "c:@S@inno@F@read#");
    hs_function *inno2 = hs_strmap_get(p->functions, "c:@S@inno2@F@read#");
    hs_function *base = hs_strmap_get(p->functions, "c:@S@handler@F@read#");
    assert_int_equal(base->hot_depth, 1);
    assert_int_equal(inno->hot_depth, 1);
    assert_int_equal(inno2->hot_depth, 1);
    assert_true(inno2->hot_via->is_virtual);
    assert_string_equal(inno2->hot_via->via, "handler::read");
    assert_int_equal(inno2->hot_via->targets, 3);
    assert_true(inno2->hot_narrow);
    /* Only the virtual call site is widened: plain -> handler::read stays one edge. */
    hs_function *plain = hs_strmap_get(p->functions, "c:@F@plain");
    assert_int_equal(plain->callees.len, 1);
    hs_program_delete(p);

    /* A slot with more than HS_WIDE_INDIRECT_TARGETS functions stored in it. */
    p = hs_program_create();
    json_t *stores = json_array();
    for (int i = 0; i < HS_WIDE_INDIRECT_TARGETS + 1; i++) {
        char *usr = hs_printf("c:@F@cmd%d", i);
        json_array_append_new(stores, json_pack("{s:s, s:s, s:s, s:s, s:i}", "slot", "c:@S@cmd@FI@proc",
                                                "function", usr, "function_name", usr + 4, "file", "/p/b.c",
                                                "line", i + 1));
        free(usr);
    }
    facts = json_pack("{s:[{s:s, s:s, s:s, s:s, s:i, s:i, s:b}], s:o}", "calls", "caller", "c:@F@call",
                      "slot", "c:@S@cmd@FI@proc", "via", "c->cmd->proc", "file", "/p/a.c", "line", 3,
                      "column", 5, "in_loop", 0, "fn_stores", stores);
    fn(p, "call");
    hs_program_merge(p, facts);
    json_decref(facts);
    hs_function *cmd0 = hs_strmap_get(p->functions, "c:@F@cmd0");
    hs_function *helper = fn(p, "helper");
    call(p, fn(p, "call"), helper, 7);
    call(p, cmd0, helper, 20);
    hot(p, "call");
    assert_int_equal(cmd0->hot_depth, 1);
    assert_false(cmd0->hot_narrow);
    assert_true(helper->hot_narrow);   /* directly called too */
    hs_program_delete(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_function_lookup_by_usr),
        cmocka_unit_test(test_reachability_depth),
        cmocka_unit_test(test_no_roots_nothing_hot),
        cmocka_unit_test(test_shortest_path_chosen),
        cmocka_unit_test(test_nearest_of_two_roots),
        cmocka_unit_test(test_cycles_terminate),
        cmocka_unit_test(test_recursion),
        cmocka_unit_test(test_unreached_recursion_is_not_hot),
        cmocka_unit_test(test_cold_stops_propagation),
        cmocka_unit_test(test_cold_and_warm_callers_not_cold_only),
        cmocka_unit_test(test_unreached_cycles_not_cold_only),
        cmocka_unit_test(test_callee_of_unreached_cycle_not_cold_only),
        cmocka_unit_test(test_hot_names_qualified_and_unqualified),
        cmocka_unit_test(test_hot_attribute_roots),
        cmocka_unit_test(test_cold_function_named_hot_is_not_root),
        cmocka_unit_test(test_merge_counts_header_facts_once),
        cmocka_unit_test(test_merge_distinct_reads_and_definitions),
        cmocka_unit_test(test_indirect_calls_resolve_over_the_program),
        cmocka_unit_test(test_virtual_calls_reach_overrides),
    };
    return cmocka_run_group_tests(tests, 0, 0);
}
