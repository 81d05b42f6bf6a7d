/*
 * test_syntax.c - unit tests for the syntax stage (analyzer/syntax/syntax.c, include/hotscan/syntax.h):
 * tree-sitter's view of small C and C++ files: identifiers, function definitions with their
 * direct calls and taken addresses, #include lines, declarations, writing operators, loops.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hotscan/syntax.h"

static hs_syntax_file *parse(const char *name, const char *text, hs_syntax_lang lang)
{
    hs_syntax_parser *p = hs_syntax_parser_new();
    assert_non_null(p);
    char *err = NULL;
    hs_syntax_file *f = hs_syntax_parse_text(p, name, text, strlen(text), lang, &err);
    assert_null(err);
    assert_non_null(f);
    hs_syntax_parser_delete(p);
    return f;
}

static const hs_syntax_function *find_fn(const hs_syntax_file *f, const char *name)
{
    size_t n;
    const hs_syntax_function *fns = hs_syntax_functions(f, &n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(fns[i].name, name) == 0)
            return &fns[i];
    return NULL;
}

static bool in_list(const char *const *items, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(items[i], s) == 0)
            return true;
    return false;
}

static const char c_file[] =
    "#include \"server.h\"\n"                                      /* 1 */
    "#include <time.h>\n"                                          /* 2 */
    "#ifdef HAVE_X\n"                                              /* 3 */
    "#include \"x.h\"\n"                                           /* 4 */
    "#endif\n"                                                     /* 5 */
    "#define NOW() time(NULL)\n"                                   /* 6 */
    "static _Atomic long hits;\n"                                  /* 7 */
    "struct conn { int fd; atomic_int refs; void (*cb)(int); };\n" /* 8 */
    "static void handler(int fd) { (void)fd; }\n"                  /* 9 */
    "static int *helper(struct conn *c) {\n"                       /* 10 */
    "    for (int i = 0; i < 10; i++) {\n"                         /* 11 */
    "        hits++;\n"                                            /* 12 */
    "        c->cb = handler;\n"                                   /* 13 */
    "        register_cb(&other_fn, c->fd);\n"                     /* 14 */
    "    }\n"                                                      /* 15 */
    "    do { log_it(); } while (0);\n"                            /* 16 */
    "    if (c->fd < 0) { cleanup(c); abort(); }\n"                /* 17 */
    "    return 0;\n"                                              /* 18 */
    "}\n"                                                          /* 19 */
    "struct cmd { const char *n; void (*p)(int); } cmds[] = {{\"h\", handler}};\n";

static void test_c_file(void **state)
{
    (void)state;
    hs_syntax_file *f = parse("a.c", c_file, HS_SYNTAX_C);
    assert_int_equal(hs_syntax_error_count(f), 0);

    /* (a) identifiers, including a #define body's */
    assert_true(hs_syntax_has_identifier(f, "hits"));
    assert_true(hs_syntax_has_identifier(f, "register_cb"));
    assert_true(hs_syntax_has_identifier(f, "conn"));
    assert_true(hs_syntax_has_identifier(f, "time")); /* only in NOW()'s body */
    assert_false(hs_syntax_has_identifier(f, "server")); /* only in an #include path */
    assert_false(hs_syntax_has_identifier(f, "h"));      /* only in a string */
    size_t ni;
    const char *const *ids = hs_syntax_identifiers(f, &ni);
    for (size_t i = 1; i < ni; i++)
        assert_true(strcmp(ids[i - 1], ids[i]) < 0);

    /* (b) functions, calls, addresses */
    size_t nf;
    hs_syntax_functions(f, &nf);
    assert_int_equal(nf, 2);
    const hs_syntax_function *h = find_fn(f, "helper");
    assert_non_null(h);
    assert_true(h->is_static);
    assert_int_equal(h->span.line, 10);
    assert_int_equal(h->span.end_line, 19);
    assert_int_equal(h->ncallees, 4);
    assert_true(in_list(h->callees, h->ncallees, "register_cb"));
    assert_true(in_list(h->callees, h->ncallees, "log_it"));
    assert_true(in_list(h->callees, h->ncallees, "abort"));
    assert_true(in_list(h->callees, h->ncallees, "cleanup"));
    assert_true(in_list(h->address_taken, h->naddress_taken, "handler"));
    assert_true(in_list(h->address_taken, h->naddress_taken, "other_fn"));
    size_t nfa;
    const char *const *fa = hs_syntax_file_address_taken(f, &nfa);
    assert_true(in_list(fa, nfa, "handler"));

    size_t nc;
    const hs_syntax_call *calls = hs_syntax_calls(f, &nc);
    assert_int_equal(h->ncalls, 4);
    const hs_syntax_call *reg = &calls[h->first_call];
    assert_string_equal(reg->callee, "register_cb");
    assert_int_equal(reg->span.line, 14);
    assert_int_equal(reg->loop_depth, 1);
    assert_int_equal(reg->nargs, 2);
    size_t na;
    const hs_syntax_arg *args = hs_syntax_args(f, &na);
    assert_string_equal(args[reg->first_arg].text, "&other_fn");
    assert_true(args[reg->first_arg].address_of);
    assert_string_equal(args[reg->first_arg + 1].name, "fd");
    const hs_syntax_call *log = &calls[h->first_call + 1];
    assert_string_equal(log->callee, "log_it");
    assert_int_equal(log->loop_depth, 0); /* do { } while (0) is no loop */
    assert_false(log->result_used);
    const hs_syntax_call *cl = &calls[h->first_call + 2];
    assert_string_equal(cl->callee, "cleanup");
    assert_true(cl->error_path);
    assert_false(calls[h->first_call + 3].error_path); /* abort() itself */

    /* (c) includes */
    size_t ninc;
    const hs_syntax_include *inc = hs_syntax_includes(f, &ninc);
    assert_int_equal(ninc, 3);
    assert_string_equal(inc[0].path, "server.h");
    assert_int_equal(inc[0].kind, HS_SYNTAX_INCLUDE_QUOTED);
    assert_int_equal(inc[0].line, 1);
    assert_false(inc[0].conditional);
    assert_string_equal(inc[1].path, "time.h");
    assert_int_equal(inc[1].kind, HS_SYNTAX_INCLUDE_ANGLED);
    assert_string_equal(inc[2].path, "x.h");
    assert_true(inc[2].conditional);

    /* (d) declarations, updates, macros */
    size_t nd;
    const hs_syntax_decl *d = hs_syntax_decls(f, &nd);
    bool saw_hits = false, saw_refs = false, saw_fd = false;
    for (size_t i = 0; i < nd; i++) {
        if (strcmp(d[i].name, "hits") == 0) {
            saw_hits = true;
            assert_true(d[i].atomic);
            assert_true(d[i].is_static);
            assert_int_equal(d[i].scope, HS_SYNTAX_SCOPE_FILE);
        }
        if (strcmp(d[i].name, "refs") == 0) {
            saw_refs = true;
            assert_true(d[i].atomic);
            assert_string_equal(d[i].record, "conn");
            assert_int_equal(d[i].scope, HS_SYNTAX_SCOPE_FIELD);
        }
        if (strcmp(d[i].name, "fd") == 0 && d[i].scope == HS_SYNTAX_SCOPE_FIELD) {
            saw_fd = true;
            assert_false(d[i].atomic);
        }
    }
    assert_true(saw_hits && saw_refs && saw_fd);
    size_t nu;
    const hs_syntax_update *u = hs_syntax_updates(f, &nu);
    bool saw_inc = false;
    for (size_t i = 0; i < nu; i++)
        if (strcmp(u[i].target, "hits") == 0) {
            saw_inc = true;
            assert_int_equal(u[i].op, HS_SYNTAX_UPDATE_INC);
            assert_false(u[i].prefix);
            assert_false(u[i].result_used);
            assert_int_equal(u[i].loop_depth, 1);
            assert_int_equal(u[i].span.line, 12);
        }
    assert_true(saw_inc);
    size_t nm;
    const hs_syntax_macro *m = hs_syntax_macros(f, &nm);
    assert_int_equal(nm, 1);
    assert_string_equal(m[0].name, "NOW");
    assert_true(m[0].function_like);
    assert_string_equal(m[0].body, "time(NULL)");
    hs_syntax_file_delete(f);
}

static const char cpp_file[] =
    "#include <atomic>\n"
    "namespace db {\n"
    "class Stats {\n"
    "  std::atomic<long> n_{0};\n"
    " public:\n"
    "  void bump() { n_.fetch_add(1); n_++; }\n"
    "  long get() const;\n"
    "};\n"
    "long Stats::get() const { return n_.load(std::memory_order_relaxed); }\n"
    "template <typename T> T twice(T x) { return helper<T>(x) * 2; }\n"
    "}\n"
    "void run(db::Stats &s) { auto f = [&] { s.bump(); }; f(); }\n";

static void test_cpp_file(void **state)
{
    (void)state;
    hs_syntax_file *f = parse("a.cc", cpp_file, HS_SYNTAX_CPP);
    assert_int_equal(hs_syntax_error_count(f), 0);
    const hs_syntax_function *bump = find_fn(f, "db::Stats::bump");
    assert_non_null(bump);
    assert_string_equal(bump->base_name, "bump");
    assert_true(bump->is_method);
    assert_true(in_list(bump->callees, bump->ncallees, "fetch_add"));
    const hs_syntax_function *get = find_fn(f, "db::Stats::get");
    assert_non_null(get);
    assert_int_equal(get->span.line, 9);
    size_t nc;
    const hs_syntax_call *calls = hs_syntax_calls(f, &nc);
    const hs_syntax_call *load = &calls[get->first_call];
    assert_string_equal(load->callee, "load");
    assert_string_equal(load->object, "n_");
    assert_false(load->arrow);
    const hs_syntax_function *tw = find_fn(f, "db::twice");
    assert_non_null(tw);
    assert_true(in_list(tw->callees, tw->ncallees, "helper"));
    const hs_syntax_function *run = find_fn(f, "run");
    assert_non_null(run);
    assert_true(in_list(run->callees, run->ncallees, "bump")); /* inside the lambda */
    assert_true(calls[run->first_call].in_lambda);
    size_t nd;
    const hs_syntax_decl *d = hs_syntax_decls(f, &nd);
    bool saw = false;
    for (size_t i = 0; i < nd; i++)
        if (strcmp(d[i].name, "n_") == 0) {
            saw = true;
            assert_true(d[i].atomic);
            assert_string_equal(d[i].record, "Stats");
        }
    assert_true(saw);
    hs_syntax_file_delete(f);
}

static void test_language(void **state)
{
    (void)state;
    hs_syntax_lang l;
    assert_true(hs_syntax_lang_for_path("x/a.c", &l));
    assert_int_equal(l, HS_SYNTAX_C);
    assert_true(hs_syntax_lang_for_path("a.cpp", &l));
    assert_int_equal(l, HS_SYNTAX_CPP);
    assert_true(hs_syntax_lang_for_path("a.hh", &l));
    assert_int_equal(l, HS_SYNTAX_CPP);
    assert_false(hs_syntax_lang_for_path("Makefile", &l));
    assert_false(hs_syntax_lang_for_path("a.d/README", &l));
    const char *gxx[] = {"/usr/bin/g++-12", "-c", "a.c"};
    assert_int_equal(hs_syntax_lang_for_command("a.c", gxx, 3), HS_SYNTAX_CPP);
    const char *xc[] = {"clang", "-x", "c++", "a.c"};
    assert_int_equal(hs_syntax_lang_for_command("a.c", xc, 4), HS_SYNTAX_CPP);
    const char *cc[] = {"cc", "-c", "a.cc"};
    assert_int_equal(hs_syntax_lang_for_command("a.cc", cc, 3), HS_SYNTAX_CPP);
    const char *ccc[] = {"cc", "-c", "a.c"};
    assert_int_equal(hs_syntax_lang_for_command("a.c", ccc, 3), HS_SYNTAX_C);
}

static void test_broken_text(void **state)
{
    (void)state;
    /* unbalanced and garbage: still parses, still has identifiers */
    hs_syntax_file *f = parse("b.c", "int f( { g(1; }} }} @@ int h(void) { k(); }\n", HS_SYNTAX_C);
    assert_true(hs_syntax_error_count(f) > 0);
    assert_true(hs_syntax_has_identifier(f, "k"));
    hs_syntax_file_delete(f);
    hs_syntax_parser *p = hs_syntax_parser_new();
    char *err = NULL;
    assert_null(hs_syntax_parse_path(p, "/nonexistent/x.c", HS_SYNTAX_C, &err));
    assert_non_null(err);
    assert_non_null(strstr(err, "/nonexistent/x.c"));
    free(err);
    hs_syntax_parser_delete(p);
}

/* A definition inside a file-scope statement (error recovery makes `t e{}` one inside a
 * top-level `for`): the loop it sits in is still open after it, and nothing runs below zero
 * (the loop count once did, and the next call read loops[-2]). */
static void test_definition_inside_statement(void **state)
{
    (void)state;
    hs_syntax_file *f = parse("n.c", "for(;){t e{}}i=_", HS_SYNTAX_C);
    hs_syntax_file_delete(f);
    f = parse("n.c", "for (;;) { t e{} x(); }\nvoid g(void) { y(); }\n", HS_SYNTAX_C);
    size_t n;
    const hs_syntax_call *calls = hs_syntax_calls(f, &n);
    bool saw_x = false, saw_y = false;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(calls[i].callee ? calls[i].callee : "", "x") == 0) {
            saw_x = true;
            assert_int_equal(calls[i].loop_depth, 1);
        }
        if (strcmp(calls[i].callee ? calls[i].callee : "", "y") == 0) {
            saw_y = true;
            assert_int_equal(calls[i].loop_depth, 0);
        }
    }
    assert_true(saw_x);
    assert_true(saw_y);
    hs_syntax_file_delete(f);
}

static const char more_c[] =
    "#define BUMP(p, n) __atomic_add_fetch((p), (n), __ATOMIC_SEQ_CST)\n" /* 1 */
    "extern void (*hook)(int);\n"                                       /* 2 */
    "int f(struct s *x, int limit) {\n"                                 /* 3 */
    "    while (x->busy < limit)\n"                                     /* 4 */
    "        spin();\n"                                                 /* 5 */
    "    if (x->n > 0) { a(); return 1; } else { b(); }\n"              /* 6 */
    "    x->count = 7;\n"                                               /* 7 */
    "    g(&x->count);\n"                                               /* 8 */
    "    while (check(x) && ok())\n"                                    /* 9 */
    "        ;\n"                                                       /* 10 */
    "    return 0;\n"                                                   /* 11 */
    "}\n";

static void test_refs_branches_macros(void **state)
{
    (void)state;
    hs_syntax_file *f = parse("m.c", more_c, HS_SYNTAX_C);
    size_t nm;
    const hs_syntax_macro *m = hs_syntax_macros(f, &nm);
    assert_int_equal(nm, 1);
    assert_string_equal(m[0].params, "p,n");
    assert_false(m[0].conditional);

    size_t nd;
    const hs_syntax_decl *d = hs_syntax_decls(f, &nd);
    bool hook = false;
    for (size_t i = 0; i < nd; i++)
        hook |= strcmp(d[i].name, "hook") == 0; /* a function pointer is a variable */
    assert_true(hook);

    size_t nr;
    const hs_syntax_ref *r = hs_syntax_refs(f, &nr);
    bool busy = false, count_written = false, count_address = false, n_cond = false;
    for (size_t i = 0; i < nr; i++) {
        if (strcmp(r[i].name, "busy") == 0) {
            busy = true;
            assert_true(r[i].field);
            assert_true(r[i].in_loop_condition);
            assert_true(r[i].limit_test);
        }
        if (strcmp(r[i].name, "count") == 0 && r[i].span.line == 7)
            count_written = r[i].written;
        if (strcmp(r[i].name, "count") == 0 && r[i].span.line == 8)
            count_address = r[i].address_of;
        if (strcmp(r[i].name, "n") == 0) {
            n_cond = r[i].in_condition && !r[i].in_loop_condition;
            assert_false(r[i].limit_test); /* compared with 0 */
        }
    }
    assert_true(busy && count_written && count_address && n_cond);

    size_t nc, nb;
    const hs_syntax_call *c = hs_syntax_calls(f, &nc);
    const hs_syntax_branch *br = hs_syntax_branches(f, &nb);
    const hs_syntax_call *a = NULL, *b = NULL, *spin = NULL, *ok = NULL;
    for (size_t i = 0; i < nc; i++) {
        if (!c[i].callee)
            continue;
        if (strcmp(c[i].callee, "a") == 0)
            a = &c[i];
        if (strcmp(c[i].callee, "b") == 0)
            b = &c[i];
        if (strcmp(c[i].callee, "spin") == 0)
            spin = &c[i];
        if (strcmp(c[i].callee, "ok") == 0)
            ok = &c[i];
    }
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(a->nbranches, 1);
    assert_int_equal(b->nbranches, 1);
    const hs_syntax_branch *ba = &br[a->first_branch], *bb = &br[b->first_branch];
    assert_int_equal(ba->node, bb->node);      /* one if */
    assert_int_equal(ba->arm, 0);
    assert_int_equal(bb->arm, 1);
    assert_true(ba->exit_until > 0);           /* the then-arm returns */
    assert_int_equal(bb->exit_until, 0);
    assert_non_null(spin);
    assert_false(spin->in_loop_condition);
    assert_int_equal(spin->loop_depth, 1);
    assert_non_null(ok);
    assert_true(ok->in_loop_condition);
    assert_int_equal(ok->nbranches, 1);        /* the right side of && */
    assert_int_equal(br[ok->first_branch].arm, 1);
    hs_syntax_file_delete(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_c_file),
        cmocka_unit_test(test_cpp_file),
        cmocka_unit_test(test_language),
        cmocka_unit_test(test_broken_text),
        cmocka_unit_test(test_definition_inside_statement),
        cmocka_unit_test(test_refs_branches_macros),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
