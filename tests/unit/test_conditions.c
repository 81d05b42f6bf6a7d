/*
 * test_conditions.c - the branch-condition classifier (analyzer/extract/conditions.c): which
 * arms are rare (error checks, unlikely(), thresholds, error returns) and which a parameter
 * decides. Each case is a function with one `if`; the source is parsed with libclang.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <clang-c/Index.h>
#include <string.h>

#include "conditions.h"

static const char source[] =
    "#include <errno.h>\n"
    "#define unlikely(x) __builtin_expect(!!(x), 0)\n"
    "#define likely(x) __builtin_expect(!!(x), 1)\n"
    "struct cfg { long slow; } config;\n"
    "extern int g(void);\n"
    "void c_errno(int fd) { if (fd < 0 && errno == 24) g(); }\n"
    "void c_minus_one(int r) { if (r == -1) g(); }\n"
    "void c_negative(int r) { if (r < 0) g(); }\n"
    "void c_unlikely(int x) { if (unlikely(x)) g(); }\n"
    "void c_likely(int x) { if (likely(x)) g(); }\n"
    "void c_threshold(long d) { if (d >= config.slow) g(); }\n"
    "void c_local_compare(long d, long limit) { if (d >= limit) g(); }\n"
    "void c_constant_compare(int n) { if (n > 16) g(); }\n"
    "void c_or_both(int x, int r) { if (unlikely(x) || r == -1) g(); }\n"
    "void c_or_one(int x, int y) { if (unlikely(x) || y) g(); }\n"
    "void c_not_likely(int x) { if (!likely(x)) g(); }\n"
    "int c_error_return(int x) { if (x == 3) { g(); return -1; } return 0; }\n"
    "void c_param(int force) { if (force) g(); }\n"
    "void c_not_param(int fresh) { if (!fresh) g(); }\n"
    "void c_param_and(int force, int y) { if (force && y > 2) g(); }\n"
    "void c_param_or(int force, int y) { if (force || y > 2) g(); }\n"
    "void c_param_eq(int us) { if (us == 0) g(); }\n"
    "void c_errno_alone(void) { if (errno == 4) g(); }\n"
    "void c_errno_again(void) { if (errno == 11 || errno == 115) g(); }\n";

typedef struct {
    const char *function;
    const char *rare_then, *rare_else; /* expected reasons, NULL for not rare */
    int param;                         /* the then arm's guard parameter, -1 for none */
    int nonzero;                       /* and what it needs */
} expectation;

static const expectation cases[] = {
    {"c_errno", "error-check", NULL, -1, 0},
    {"c_minus_one", "error-check", NULL, -1, 0},
    {"c_negative", "error-check", NULL, -1, 0},
    {"c_unlikely", "unlikely", NULL, -1, 0},
    {"c_likely", NULL, "unlikely", -1, 0},
    {"c_threshold", "threshold", NULL, -1, 0},
    {"c_local_compare", NULL, NULL, -1, 0},
    {"c_constant_compare", NULL, NULL, -1, 0},
    {"c_or_both", "unlikely", NULL, -1, 0},
    {"c_or_one", NULL, NULL, -1, 0},
    {"c_not_likely", "unlikely", NULL, -1, 0},
    {"c_error_return", NULL, NULL, -1, 0},
    {"c_param", NULL, NULL, 0, 1},
    {"c_not_param", NULL, NULL, 0, 0},
    {"c_param_and", NULL, NULL, 0, 1},
    {"c_param_or", NULL, NULL, -1, 0},
    {"c_param_eq", NULL, NULL, 0, 0},
    {"c_errno_alone", "error-check", NULL, -1, 0},
    /* EAGAIN, EINPROGRESS: a non-blocking socket's usual answer, not a failure. */
    {"c_errno_again", NULL, NULL, -1, 0},
};

typedef struct {
    CXTranslationUnit tu;
    CXCursor fn, if_stmt;
    bool found;
} finder;

static enum CXChildVisitResult find_if(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    finder *f = data;
    if (clang_getCursorKind(c) == CXCursor_IfStmt) {
        f->if_stmt = c;
        f->found = true;
        return CXChildVisit_Break;
    }
    return CXChildVisit_Recurse;
}

static enum CXChildVisitResult find_function(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    void **args = data;
    finder *f = args[0];
    const char *name = args[1];
    if (clang_getCursorKind(c) == CXCursor_FunctionDecl && clang_isCursorDefinition(c)) {
        CXString s = clang_getCursorSpelling(c);
        bool hit = strcmp(clang_getCString(s), name) == 0;
        clang_disposeString(s);
        if (hit) {
            f->fn = c;
            clang_visitChildren(c, find_if, f);
            return CXChildVisit_Break;
        }
    }
    return CXChildVisit_Continue;
}

static void test_classification(void **state)
{
    (void)state;
    CXIndex index = clang_createIndex(0, 0);
    struct CXUnsavedFile file = {"conditions_case.c", source, sizeof source - 1};
    CXTranslationUnit tu = clang_parseTranslationUnit(index, "conditions_case.c", NULL, 0, &file, 1,
                                                      CXTranslationUnit_None);
    assert_non_null(tu);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const expectation *e = &cases[i];
        finder f = {.tu = tu};
        void *args[2] = {&f, (void *)e->function};
        clang_visitChildren(clang_getTranslationUnitCursor(tu), find_function, args);
        if (!f.found)
            fail_msg("%s: no if found", e->function);
        hs_cursor_list kids;
        hs_children(f.if_stmt, &kids);
        assert_true(kids.len >= 2);
        CXCursor cond = kids.items[0];
        CXCursor then_arm = kids.items[1];
        const char *rt = hs_condition_rare(tu, cond, true);
        const char *re = hs_condition_rare(tu, cond, false);
        if (!rt && hs_arm_returns_error(then_arm))
            rt = "error-return";
        const char *want_then = strcmp(e->function, "c_error_return") == 0 ? "error-return" : e->rare_then;
        if ((rt == NULL) != (want_then == NULL) || (rt && strcmp(rt, want_then) != 0))
            fail_msg("%s: then arm rare %s, expected %s", e->function, rt ? rt : "(none)",
                     want_then ? want_then : "(none)");
        if ((re == NULL) != (e->rare_else == NULL) || (re && strcmp(re, e->rare_else) != 0))
            fail_msg("%s: else arm rare %s, expected %s", e->function, re ? re : "(none)",
                     e->rare_else ? e->rare_else : "(none)");
        int param = -1;
        bool nonzero = false;
        bool guarded = hs_condition_param_guard(tu, f.fn, cond, true, &param, &nonzero);
        if (!guarded)
            param = -1;
        if (param != e->param || (guarded && (int)nonzero != e->nonzero))
            fail_msg("%s: guard param %d nonzero %d, expected %d %d", e->function, param, (int)nonzero,
                     e->param, e->nonzero);
        hs_cursor_list_free(&kids);
    }
    clang_disposeTranslationUnit(tu);
    clang_disposeIndex(index);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_classification),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
