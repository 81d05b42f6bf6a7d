/*
 * nobuild.c - the no-build mode (include/hotscan/nobuild.h): facts documents made from
 * tree-sitter's reading of each file (syntax.c), in the members the extractor writes, so the
 * merge and the four rules run unchanged on a tree that has no compile database.
 *
 * Why two passes: a file alone does not say which function a name calls, which struct a
 * field belongs to or whether a macro wraps an atomic builtin. Pass 1 parses every file and
 * indexes the tree: function definitions (by qualified and by last name, statics per file),
 * fields and globals (with whether their type is atomic), and function-like macros. Pass 2
 * writes each file's document from its parse and the index, and hands it to the merge.
 *
 * What stands in for clang:
 *  - identities: a non-static function is `ts:F@<qualified name>`, a static one
 *    `ts:<file>@F@<name>`; a field `ts:field:<struct>::<name>` (`?` for the struct when several
 *    declare that name), a global `ts:var:<name>`, a file's static `ts:<file>@<name>`.
 *  - calls: a name resolves to the file's static function, else the tree's function of that
 *    (qualified) name, else the enclosing class's or namespace's; a C call through a field
 *    (`c->cmd->proc(c)`) is a call through the slot `ts:field:proc`, which any function stored
 *    into a field of that name (`x.proc = f`, `{.proc = f}`, a positional initializer of a
 *    struct with such a field) fills; a C++ member call goes to the one method of that name,
 *    or through the slot `ts:method:<name>` that every method of that name fills.
 *  - macros: a call to a function-like macro whose expansion (arguments substituted,
 *    expanded again up to four levels) calls a clock, atomic or event API is that call, at
 *    the macro's use, "through the macro".
 *  - atomics: C11 atomic_* calls, __atomic_* and __sync_* builtins, the rule data's
 *    wrappers, std::atomic member calls, and ++/--/+=/-=/= on names declared atomic
 *    (`_Atomic`, `std::atomic<T>`, `atomic_int`, or an object-like macro expanding to
 *    `_Atomic`, such as redis' redisAtomic). Plain reads of _Atomic objects (seq_cst loads to
 *    clang) are not seen.
 * Not made: overrides, plain-use summaries, inactive-code mentions, sinks beyond a plain
 * assignment, rare arms, guards, constant arguments.
 */
#define _GNU_SOURCE
#include "hotscan/nobuild.h"
#include "hotscan/common.h"
#include "hotscan/facts.h"
#include "hotscan/strmap.h"
#include "hotscan/syntax.h"

#include <ctype.h>
#include <stdint.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- discovery ---- */

static bool c_or_cpp(const char *path)
{
    hs_syntax_lang l;
    return hs_syntax_lang_for_path(path, &l);
}

bool hs_nobuild_discover(char **paths, int npaths, const char *root, hs_discovery *out, char **err)
{
    memset(out, 0, sizeof *out);
    char *root_only[1] = {(char *)root};
    if (npaths == 0) {
        paths = root_only;
        npaths = 1;
    }
    hs_vec files = {0};
    hs_strmap *visited = hs_strmap_create();
    bool ok = true;
    for (int i = 0; i < npaths && ok; i++) {
        /* a FIFO, a device or a dangling link named like a source is a TU: reading it is
         * its error (source_file.h), the rest of the scan runs */
        char *real = hs_input_name(paths[i]);
        struct stat st;
        if (!real) {
            *err = hs_printf("%s: %s", paths[i], strerror(errno ? errno : ENOENT));
            ok = false;
        } else if (stat(real, &st) == 0 && S_ISDIR(st.st_mode)) {
            hs_walk_files(real, c_or_cpp, &files, visited);
        } else if (c_or_cpp(real) || c_or_cpp(paths[i])) {
            hs_vec_push(&files, hs_xstrdup(real));
        } else {
            *err = hs_printf("%s: not a C or C++ file", paths[i]);
            ok = false;
        }
        free(real);
    }
    hs_strmap_delete(visited);
    if (files.len)
        qsort(files.items, files.len, sizeof(void *), hs_compare_strings);
    hs_strmap *queued = hs_strmap_create();
    for (size_t i = 0; i < files.len; i++) {
        char *real = hs_input_name(files.items[i]);
        const char *name = real ? real : files.items[i];
        if (ok && !hs_strmap_has(queued, name)) {
            hs_strmap_put(queued, name, (void *)1);
            hs_tu_input *in = hs_xcalloc(1, sizeof *in);
            in->file = hs_xstrdup(name);
            in->directory = hs_dirname(name);
            in->default_flags = true;
            in->argv = hs_xcalloc(1, sizeof(char *));
            hs_vec_push(&out->tus, in);
        }
        free(real);
        free(files.items[i]);
    }
    hs_vec_free(&files);
    hs_strmap_delete(queued);
    return ok;
}

/* ---- the index ---- */

typedef struct {
    const hs_syntax_file *file;
    const hs_syntax_macro *m;
} macro_def;

typedef struct {
    const hs_ruledata *rd;
    const char *root;
    hs_syntax_parser *parser;
    hs_syntax_file **files;    /* per TU, NULL when it could not be read */
    char **rel;                /* per TU: path relative to the root, for identities */
    size_t n;
    hs_strmap *global_fns;     /* qualified name -> USR (char*, owned by `owned`) */
    hs_strmap *static_fns;     /* "<tu>\x1f<name>" -> USR */
    hs_strmap *by_base;        /* last name -> hs_vec of USRs of methods / C++ functions */
    hs_strmap *field_record;   /* field name -> record ("" when several records declare it) */
    hs_strmap *field_decl;     /* field name -> first hs_syntax_decl* */
    hs_strmap *field_atomic;   /* field name -> 1: some declaration of it is atomic */
    hs_strmap *field_tu;       /* field name -> TU index + 1 of its first declaration */
    hs_strmap *record_fields;  /* record -> hs_vec of hs_syntax_decl* in order */
    hs_strmap *globals;        /* global name -> hs_syntax_decl* (first, non-static) */
    hs_strmap *global_tu;      /* global name -> TU index + 1 */
    hs_strmap *atomic_words;   /* object-like macros meaning `_Atomic` */
    hs_strmap *macros;         /* function-like macro -> hs_vec of macro_def* */
    hs_strmap *macro_choice;   /* macro -> the macro_def* its expansion uses, or (void*)1: not interesting */
    hs_strmap *fn_names;       /* every defined function's last name -> 1 */
    hs_strmap *macro_calls;    /* function-like macro -> hs_vec of the names its expansion calls */
    hs_strmap *atomic_names;   /* root names passed to atomic APIs somewhere */
    hs_strmap *atomic_decl_names; /* names some declaration gives an atomic type */
    hs_strmap *object_macros;  /* object-like macro whose body is one name -> that name */
    hs_strmap *header_statics; /* static (inline) function defined in a header -> USR */
    hs_vec *attached;          /* per TU: hs_syntax_file* of the non-C files it #includes ("x.def") */
    hs_vec owned;              /* strings and vectors the maps point to */
} nb_index;

static char *keep(nb_index *x, char *s)
{
    hs_vec_push(&x->owned, s);
    return s;
}

static bool is_ident(int c)
{
    return isalnum(c) || c == '_';
}

/* Is w a whole word of s? An empty w never is (error recovery names things ""; the search
 * for it once ran past the end of s). */
static bool has_word(const char *s, const char *w)
{
    size_t n = strlen(w);
    if (n == 0)
        return false;
    for (const char *p = strstr(s, w); p; p = strstr(p + 1, w))
        if ((p == s || !is_ident((unsigned char)p[-1])) && !is_ident((unsigned char)p[n]))
            return true;
    return false;
}

/* A copy of the code s[0, n) (NUL-terminated, the same length, so offsets still hold) with
 * the text of comments and of string and character literals blanked: a `-` or a name in
 * `// NOLINT(timer-hot-path)` or in "a - b" is no operator and no use. Newlines stay. */
static char *code_only(const char *s, size_t n)
{
    char *c = hs_xstrndup(s, n);
    size_t i = 0;
    while (i < n) {
        if (s[i] == '/' && i + 1 < n && (s[i + 1] == '/' || s[i + 1] == '*')) {
            bool line = s[i + 1] == '/';
            size_t j = i + 2;
            while (j < n && !(line ? s[j] == '\n' && s[j - 1] != '\\'
                                   : s[j] == '/' && j > i + 2 && s[j - 1] == '*'))
                j++;
            if (!line && j < n)
                j++; /* the closing slash */
            for (; i < j; i++)
                if (c[i] != '\n')
                    c[i] = ' ';
        } else if (isdigit((unsigned char)s[i]) && (i == 0 || !is_ident((unsigned char)s[i - 1]))) {
            /* a number, with C++14's digit separators (1'000'000), is no character literal */
            while (i < n && (is_ident((unsigned char)s[i]) || s[i] == '.' ||
                             (s[i] == '\'' && i + 1 < n && isalnum((unsigned char)s[i + 1]))))
                i++;
        } else if (s[i] == 'R' && i + 1 < n && s[i + 1] == '"' &&
                   (i == 0 || !is_ident((unsigned char)s[i - 1]) || s[i - 1] == '8' || s[i - 1] == 'u' ||
                    s[i - 1] == 'U' || s[i - 1] == 'L')) {
            /* a raw string R"delim( ... )delim" */
            size_t open = i + 2;
            while (open < n && open - (i + 2) <= 16 && s[open] != '(' && s[open] != '"' && s[open] != '\n')
                open++;
            if (open >= n || s[open] != '(') {
                i += 2;
                continue;
            }
            size_t dl = open - (i + 2), j = open + 1;
            while (j < n && !(s[j] == ')' && j + dl + 1 < n && strncmp(s + j + 1, s + i + 2, dl) == 0 &&
                              s[j + dl + 1] == '"'))
                j++;
            size_t end = j < n ? j + dl + 2 : n;
            for (size_t k = open + 1; k < (j < n ? j : n); k++)
                if (c[k] != '\n')
                    c[k] = ' ';
            i = end;
        } else if (s[i] == '"' || s[i] == '\'') {
            char q = s[i++];
            while (i < n && s[i] != q && s[i] != '\n') {
                if (s[i] == '\\' && i + 1 < n)
                    c[i++] = ' ';
                if (c[i] != '\n')
                    c[i] = ' ';
                i++;
            }
            if (i < n)
                i++; /* the closing quote */
        } else {
            i++;
        }
    }
    return c;
}

static bool decl_atomic(const nb_index *x, const hs_syntax_decl *d)
{
    if (d->atomic)
        return true;
    /* a word of the type that is a macro for _Atomic */
    const char *s = d->type;
    while (*s) {
        while (*s && !is_ident((unsigned char)*s))
            s++;
        const char *a = s;
        while (*s && is_ident((unsigned char)*s))
            s++;
        if (s > a) {
            char w[128];
            size_t n = (size_t)(s - a) < sizeof w - 1 ? (size_t)(s - a) : sizeof w - 1;
            memcpy(w, a, n);
            w[n] = 0;
            if (hs_strmap_has(x->atomic_words, w))
                return true;
        }
    }
    return false;
}

static char *static_key(size_t tu, const char *name)
{
    return hs_printf("%zu\x1f%s", tu, name);
}

static void index_file(nb_index *x, size_t tu, const hs_syntax_file *f)
{
    size_t n;
    const hs_syntax_function *fns = hs_syntax_functions(f, &n);
    for (size_t i = 0; i < n; i++) {
        const hs_syntax_function *fn = &fns[i];
        if (!fn->name[0])
            continue;
        hs_strmap_put(x->fn_names, fn->base_name, (void *)1);
        if (fn->is_static && !fn->is_method) {
            char *k = static_key(tu, fn->name);
            if (!hs_strmap_has(x->static_fns, k)) {
                char *usr = keep(x, hs_printf("ts:%s@F@%s", x->rel[tu], fn->name));
                hs_strmap_put(x->static_fns, k, usr);
                /* a header's static inline function serves every file that includes it */
                hs_syntax_lang hl;
                const char *dot = strrchr(x->rel[tu], '.');
                if (dot && dot[1] == 'h' && hs_syntax_lang_for_path(x->rel[tu], &hl) &&
                    !hs_strmap_has(x->header_statics, fn->name))
                    hs_strmap_put(x->header_statics, fn->name, usr);
            }
            free(k);
            continue;
        }
        char *usr = hs_printf("ts:F@%s", fn->name);
        if (!hs_strmap_has(x->global_fns, fn->name)) {
            hs_strmap_put(x->global_fns, fn->name, keep(x, usr));
            if (fn->is_method || hs_syntax_file_lang(f) == HS_SYNTAX_CPP)
                hs_strmap_push(x->by_base, fn->base_name, usr);
        } else {
            free(usr);
        }
    }
    const hs_syntax_decl *d = hs_syntax_decls(f, &n);
    for (size_t i = 0; i < n; i++) {
        if (d[i].scope == HS_SYNTAX_SCOPE_FIELD) {
            const char *prev = hs_strmap_get(x->field_record, d[i].name);
            if (!prev) {
                hs_strmap_put(x->field_record, d[i].name, (void *)d[i].record);
                hs_strmap_put(x->field_decl, d[i].name, (void *)&d[i]);
                hs_strmap_put(x->field_tu, d[i].name, (void *)(tu + 1));
            } else if (strcmp(prev, d[i].record) != 0) {
                hs_strmap_put(x->field_record, d[i].name, (void *)"");
            }
            if (d[i].atomic)
                hs_strmap_put(x->field_atomic, d[i].name, (void *)1);
            if (d[i].record[0])
                hs_strmap_push(x->record_fields, d[i].record, (void *)&d[i]);
        } else if (d[i].scope == HS_SYNTAX_SCOPE_FILE && !d[i].is_static && !hs_strmap_has(x->globals, d[i].name)) {
            hs_strmap_put(x->globals, d[i].name, (void *)&d[i]);
            hs_strmap_put(x->global_tu, d[i].name, (void *)(tu + 1));
        }
    }
    const hs_syntax_macro *m = hs_syntax_macros(f, &n);
    for (size_t i = 0; i < n; i++) {
        if (!m[i].function_like) {
            if (has_word(m[i].body, "_Atomic") || strstr(m[i].body, "std::atomic"))
                hs_strmap_put(x->atomic_words, m[i].name, (void *)1);
            /* `#define COMMAND_STRUCT redisCommand`: a type spelled through a macro */
            const char *b = strncmp(m[i].body, "struct ", 7) == 0 ? m[i].body + 7 : m[i].body;
            bool ident = *b != 0;
            for (const char *p = b; *p && ident; p++)
                ident = is_ident((unsigned char)*p);
            if (ident && !hs_strmap_has(x->object_macros, m[i].name))
                hs_strmap_put(x->object_macros, m[i].name, (void *)b);
            continue;
        }
        macro_def *md = hs_xcalloc(1, sizeof *md);
        md->file = f;
        md->m = &m[i];
        hs_strmap_push(x->macros, m[i].name, md);
    }
}

/* Atomic-ness of fields once every file is indexed (a field declared with a macro type). */
static void index_atomic_fields(nb_index *x)
{
    for (size_t tu = 0; tu < x->n; tu++) {
        if (!x->files[tu])
            continue;
        size_t n;
        const hs_syntax_decl *d = hs_syntax_decls(x->files[tu], &n);
        for (size_t i = 0; i < n; i++) {
            bool atomic = decl_atomic(x, &d[i]);
            if (d[i].scope == HS_SYNTAX_SCOPE_FIELD && atomic)
                hs_strmap_put(x->field_atomic, d[i].name, (void *)1);
            if (atomic && d[i].scope != HS_SYNTAX_SCOPE_PARAM)
                hs_strmap_put(x->atomic_decl_names, d[i].name, (void *)1);
        }
    }
}

/* ---- what a call is ---- */

typedef enum { K_NONE, K_TIMER, K_ATOMIC, K_EVENT } call_kind;

typedef struct {
    const char *name;   /* as called */
    int op;             /* index into op_names */
    const char *form;
    int order_arg;      /* -1: fixed */
    const char *order;  /* when fixed */
    int object_arg, value_arg;
} atomic_api;

static const char *c11_op(const char *name, bool *is_explicit)
{
    /* atomic_fetch_add[_explicit], atomic_load[_explicit], ... */
    static const char *const ops[][2] = {
        {"atomic_fetch_add", "fetch_add"}, {"atomic_fetch_sub", "fetch_sub"}, {"atomic_fetch_or", "bitwise"},
        {"atomic_fetch_and", "bitwise"}, {"atomic_fetch_xor", "bitwise"},   {"atomic_load", "load"},
        {"atomic_store", "store"},         {"atomic_exchange", "exchange"},  {"atomic_compare_exchange_strong", "cas"},
        {"atomic_compare_exchange_weak", "cas"}, {"atomic_flag_test_and_set", "exchange"},
        {"atomic_flag_clear", "store"},
    };
    const char *n = strncmp(name, "std::", 5) == 0 ? name + 5 : name;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        size_t l = strlen(ops[i][0]);
        if (strncmp(n, ops[i][0], l) == 0 && (n[l] == 0 || strcmp(n + l, "_explicit") == 0)) {
            *is_explicit = n[l] != 0;
            return ops[i][1];
        }
    }
    return NULL;
}

static const char *gnu_op(const char *name)
{
    static const char *const ops[][2] = {
        {"__atomic_fetch_add", "fetch_add"}, {"__atomic_add_fetch", "add_fetch"}, {"__atomic_fetch_sub", "fetch_sub"},
        {"__atomic_sub_fetch", "sub_fetch"}, {"__atomic_load_n", "load"},        {"__atomic_load", "load"},
        {"__atomic_store_n", "store"},       {"__atomic_store", "store"},        {"__atomic_exchange_n", "exchange"},
        {"__atomic_exchange", "exchange"},   {"__atomic_compare_exchange_n", "cas"}, {"__atomic_compare_exchange", "cas"},
        {"__atomic_fetch_and", "bitwise"},   {"__atomic_fetch_or", "bitwise"},   {"__atomic_fetch_xor", "bitwise"},
        {"__atomic_fetch_nand", "bitwise"},  {"__atomic_and_fetch", "bitwise"},  {"__atomic_or_fetch", "bitwise"},
        {"__atomic_xor_fetch", "bitwise"},   {"__atomic_nand_fetch", "bitwise"}, {"__atomic_test_and_set", "exchange"},
        {"__atomic_clear", "store"},
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(name, ops[i][0]) == 0)
            return ops[i][1];
    return NULL;
}

static const char *sync_op(const char *name)
{
    static const char *const ops[][2] = {
        {"__sync_fetch_and_add", "fetch_add"}, {"__sync_add_and_fetch", "add_fetch"},
        {"__sync_fetch_and_sub", "fetch_sub"}, {"__sync_sub_and_fetch", "sub_fetch"},
        {"__sync_fetch_and_or", "bitwise"},    {"__sync_fetch_and_and", "bitwise"},
        {"__sync_fetch_and_xor", "bitwise"},   {"__sync_fetch_and_nand", "bitwise"},
        {"__sync_or_and_fetch", "bitwise"},    {"__sync_and_and_fetch", "bitwise"},
        {"__sync_xor_and_fetch", "bitwise"},   {"__sync_nand_and_fetch", "bitwise"},
        {"__sync_bool_compare_and_swap", "cas"}, {"__sync_val_compare_and_swap", "cas"},
        {"__sync_lock_test_and_set", "exchange"}, {"__sync_lock_release", "store"},
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(name, ops[i][0]) == 0)
            return ops[i][1];
    return NULL;
}

static const char *member_op(const char *name)
{
    static const char *const ops[][2] = {
        {"fetch_add", "fetch_add"}, {"fetch_sub", "fetch_sub"}, {"load", "load"}, {"store", "store"},
        {"exchange", "exchange"}, {"compare_exchange_strong", "cas"}, {"compare_exchange_weak", "cas"},
        {"fetch_or", "bitwise"}, {"fetch_and", "bitwise"}, {"fetch_xor", "bitwise"}, {"wait", "wait"},
        {"notify_one", "wait"}, {"notify_all", "wait"}, {"test_and_set", "exchange"}, {"clear", "store"},
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(name, ops[i][0]) == 0)
            return ops[i][1];
    return NULL;
}

static json_t *find_wrapper(const hs_ruledata *rd, const char *name)
{
    for (size_t i = 0; i < rd->atomic_wrappers.len; i++) {
        json_t *w = rd->atomic_wrappers.items[i];
        const char *wn = json_string_value(json_object_get(w, "name"));
        if (!wn)
            continue;
        size_t l = strlen(wn);
        if (l && wn[l - 1] == '*' ? strncmp(name, wn, l - 1) == 0 : strcmp(name, wn) == 0)
            return w;
    }
    return NULL;
}

static const hs_timer_api *find_timer(const hs_ruledata *rd, const char *name)
{
    const hs_timer_api *t = hs_ruledata_find_timer(rd, name);
    if (!t && strncmp(name, "chrono::", 8) == 0) {
        char *q = hs_printf("std::%s", name);
        t = hs_ruledata_find_timer(rd, q);
        free(q);
    }
    return t;
}

/* Is a callee name (no member call) one of the APIs the families look for? */
static call_kind api_kind(const nb_index *x, const char *name)
{
    bool ex;
    if (find_timer(x->rd, name))
        return K_TIMER;
    if (c11_op(name, &ex) || gnu_op(name) || sync_op(name) || find_wrapper(x->rd, name))
        return K_ATOMIC;
    if (hs_ruledata_find_event(x->rd, name))
        return K_EVENT;
    return K_NONE;
}

/* ---- macros ---- */

static void split_list(const char *s, hs_vec *out)
{
    const char *a = s;
    for (const char *p = s;; p++) {
        if (*p == ',' || *p == 0) {
            const char *b = p;
            while (a < b && isspace((unsigned char)*a))
                a++;
            while (b > a && isspace((unsigned char)b[-1]))
                b--;
            if (b > a)
                hs_vec_push(out, hs_xstrndup(a, (size_t)(b - a)));
            if (*p == 0)
                break;
            a = p + 1;
        }
    }
}

/* The macro's body with its parameters replaced by the arguments (`#x` and `##` dropped to
 * the argument's text and nothing). */
static char *substitute(const hs_syntax_macro *m, const char *const *args, size_t nargs)
{
    hs_vec params = {0};
    split_list(m->params, &params);
    hs_buf b;
    hs_buf_init(&b);
    const char *s = m->body;
    while (*s) {
        if (s[0] == '#' && s[1] == '#') {
            s += 2;
            continue;
        }
        if (*s == '#') {
            s++;
            continue;
        }
        if (*s == '"' || *s == '\'') {
            char q = *s;
            const char *a = s++;
            while (*s && *s != q) {
                if (*s == '\\' && s[1])
                    s++;
                s++;
            }
            if (*s)
                s++;
            hs_buf_append(&b, a, (size_t)(s - a));
            continue;
        }
        if (is_ident((unsigned char)*s) && !isdigit((unsigned char)*s)) {
            const char *a = s;
            while (is_ident((unsigned char)*s))
                s++;
            size_t l = (size_t)(s - a);
            bool done = false;
            for (size_t i = 0; i < params.len && !done; i++) {
                const char *p = params.items[i];
                if (strlen(p) == l && strncmp(p, a, l) == 0) {
                    if (i < nargs)
                        hs_buf_puts(&b, args[i]);
                    done = true;
                }
            }
            if (!done && l == 11 && strncmp(a, "__VA_ARGS__", 11) == 0) {
                size_t first = params.len && strcmp(params.items[params.len - 1], "...") == 0 ? params.len - 1 : params.len;
                for (size_t i = first; i < nargs; i++) {
                    if (i > first)
                        hs_buf_puts(&b, ", ");
                    hs_buf_puts(&b, args[i]);
                }
                done = true;
            }
            if (!done)
                hs_buf_append(&b, a, l);
            continue;
        }
        hs_buf_append(&b, s, 1);
        s++;
    }
    for (size_t i = 0; i < params.len; i++)
        free(params.items[i]);
    hs_vec_free(&params);
    if (!b.data)
        hs_buf_append(&b, "", 0);
    return hs_buf_take(&b);
}

/* One API call found in a macro's expansion: its name and argument texts. */
typedef struct {
    char *callee;
    char *object;   /* a member call's object */
    hs_vec args;    /* char* */
} expanded_call;

static void expanded_free(hs_vec *calls)
{
    for (size_t i = 0; i < calls->len; i++) {
        expanded_call *c = calls->items[i];
        free(c->callee);
        free(c->object);
        for (size_t j = 0; j < c->args.len; j++)
            free(c->args.items[j]);
        hs_vec_free(&c->args);
        free(c);
    }
    hs_vec_free(calls);
}

static const macro_def *choose_macro(nb_index *x, const char *name, int depth);
static char *object_root(const char *text, bool *is_field);

/* The API calls TEXT (an expression or statements) makes, macros expanded. */
static void calls_in_text(nb_index *x, hs_syntax_lang lang, const char *text, int depth, hs_vec *out, bool all)
{
    char *src = hs_printf("void __hs_expansion(void) {\n%s\n;}\n", text);
    hs_syntax_file *f = hs_syntax_parse_text(x->parser, "<macro>", src, strlen(src), lang, NULL);
    free(src);
    if (!f)
        return;
    size_t nc, na;
    const hs_syntax_call *calls = hs_syntax_calls(f, &nc);
    const hs_syntax_arg *args = hs_syntax_args(f, &na);
    for (size_t i = 0; i < nc; i++) {
        const hs_syntax_call *c = &calls[i];
        if (!c->callee)
            continue;
        const macro_def *md = c->object ? NULL : choose_macro(x, c->callee, depth + 1);
        if (md && depth < 4) {
            const char **av = hs_xcalloc(c->nargs + 1, sizeof *av);
            for (size_t j = 0; j < c->nargs; j++)
                av[j] = args[c->first_arg + j].text;
            char *body = substitute(md->m, av, c->nargs);
            free(av);
            calls_in_text(x, lang, body, depth + 1, out, all);
            free(body);
            continue;
        }
        bool member = c->object != NULL;
        if (all) {
            /* every function the expansion calls; macros among them expanded too */
            hs_vec *defs = member ? NULL : hs_strmap_get(x->macros, c->callee);
            if (member)
                continue;
            if (defs && depth < 4 && !hs_strmap_has(x->global_fns, c->callee)) {
                const macro_def *any = defs->items[defs->len - 1];
                const char **av = hs_xcalloc(c->nargs + 1, sizeof *av);
                for (size_t j = 0; j < c->nargs; j++)
                    av[j] = args[c->first_arg + j].text;
                char *body = substitute(any->m, av, c->nargs);
                free(av);
                calls_in_text(x, lang, body, depth + 1, out, all);
                free(body);
                continue;
            }
        } else if (!member && api_kind(x, c->callee) == K_NONE) {
            continue;
        } else if (member && !member_op(c->callee)) {
            continue;
        }
        expanded_call *e = hs_xcalloc(1, sizeof *e);
        e->callee = hs_xstrdup(c->callee);
        e->object = c->object ? hs_xstrdup(c->object) : NULL;
        for (size_t j = 0; j < c->nargs; j++)
            hs_vec_push(&e->args, hs_xstrdup(args[c->first_arg + j].text));
        hs_vec_push(out, e);
    }
    hs_syntax_file_delete(f);
}

/* The definition of macro NAME whose expansion calls an API (several definitions under
 * #if: the one that does), or NULL when none does or NAME is no function-like macro. */
static const macro_def *choose_macro(nb_index *x, const char *name, int depth)
{
    void *c = hs_strmap_get(x->macro_choice, name);
    if (c)
        return c == (void *)1 ? NULL : c;
    hs_vec *defs = hs_strmap_get(x->macros, name);
    if (!defs || depth > 4)
        return NULL;
    hs_strmap_put(x->macro_choice, name, (void *)1); /* while looking: not interesting (recursion) */
    const macro_def *best = NULL;
    for (size_t i = 0; i < defs->len && !best; i++) {
        const macro_def *md = defs->items[i];
        hs_vec params = {0};
        split_list(md->m->params, &params);
        char *body = substitute(md->m, (const char *const *)params.items, params.len);
        hs_vec found = {0};
        calls_in_text(x, hs_syntax_file_lang(md->file), body, depth, &found, false);
        if (found.len > 0)
            best = md;
        expanded_free(&found);
        free(body);
        for (size_t j = 0; j < params.len; j++)
            free(params.items[j]);
        hs_vec_free(&params);
    }
    hs_strmap_put(x->macro_choice, name, best ? (void *)best : (void *)1);
    return best;
}

/* The functions a function-like macro's expansion calls (its last definition; macros in it
 * expanded, four levels), each once; NULL when NAME is no such macro. Cached. */
static const hs_vec *macro_callees(nb_index *x, hs_syntax_lang lang, const char *name)
{
    hs_vec *cached = hs_strmap_get(x->macro_calls, name);
    if (cached)
        return cached;
    hs_vec *defs = hs_strmap_get(x->macros, name);
    if (!defs)
        return NULL;
    hs_vec *names = hs_xcalloc(1, sizeof *names);
    hs_strmap_put(x->macro_calls, name, names); /* empty while expanding: a recursive macro ends */
    const macro_def *md = defs->items[defs->len - 1];
    hs_vec params = {0};
    split_list(md->m->params, &params);
    char *body = substitute(md->m, (const char *const *)params.items, params.len);
    hs_vec found = {0};
    calls_in_text(x, lang, body, 0, &found, true);
    hs_strmap *seen = hs_strmap_create();
    for (size_t i = 0; i < found.len; i++) {
        expanded_call *e = found.items[i];
        bool param = false;
        for (size_t j = 0; j < params.len && !param; j++)
            param = strcmp(params.items[j], e->callee) == 0;
        if (!param && !hs_strmap_has(seen, e->callee)) {
            hs_strmap_put(seen, e->callee, (void *)1);
            hs_vec_push(names, keep(x, hs_xstrdup(e->callee)));
        }
    }
    hs_strmap_delete(seen);
    expanded_free(&found);
    free(body);
    for (size_t j = 0; j < params.len; j++)
        free(params.items[j]);
    hs_vec_free(&params);
    return names;
}

/* Root names passed to atomic APIs anywhere in the tree (directly or through a macro): the
 * integers whose plain uses each file summarizes, as the extractor does for integers it saw
 * used atomically. */
static void collect_atomic_names(nb_index *x)
{
    for (size_t tu = 0; tu < x->n; tu++) {
        const hs_syntax_file *f = x->files[tu];
        if (!f)
            continue;
        size_t nc, na;
        const hs_syntax_call *calls = hs_syntax_calls(f, &nc);
        const hs_syntax_arg *args = hs_syntax_args(f, &na);
        for (size_t i = 0; i < nc; i++) {
            const hs_syntax_call *c = &calls[i];
            if (!c->callee)
                continue;
            if (c->object) {
                if (member_op(c->callee)) {
                    bool field;
                    char *root = object_root(c->object, &field);
                    if (root) {
                        hs_strmap_put(x->atomic_names, root, (void *)1);
                        free(root);
                    }
                }
                continue;
            }
            bool api = api_kind(x, c->callee) == K_ATOMIC;
            const macro_def *md = api ? NULL : choose_macro(x, c->callee, 0);
            if (!api && !md)
                continue;
            for (size_t j = 0; j < c->nargs; j++) {
                const char *name = args[c->first_arg + j].name;
                if (name)
                    hs_strmap_put(x->atomic_names, name, (void *)1);
            }
        }
    }
}

/* ---- the facts of one file ---- */

typedef struct {
    nb_index *x;
    size_t tu;
    const hs_syntax_file *f;
    const char *path;
    json_t *functions, *calls, *fn_stores, *clock_reads, *atomics, *events, *event_objects;
    hs_strmap *stored;      /* "slot\x1ffunction" made once */
    hs_vec *atomic_spans;   /* offsets of the operations made atomic facts (their refs are not plain) */
} nb_doc;

static const char *fn_usr(nb_doc *d, size_t fi)
{
    size_t n;
    const hs_syntax_function *fns = hs_syntax_functions(d->f, &n);
    const hs_syntax_function *fn = &fns[fi];
    if (fn->is_static && !fn->is_method) {
        char *k = static_key(d->tu, fn->name);
        const char *u = hs_strmap_get(d->x->static_fns, k);
        free(k);
        if (u)
            return u;
    }
    const char *u = hs_strmap_get(d->x->global_fns, fn->name);
    return u ? u : "";
}

/* The USR a called name resolves to, or NULL (then `ts:F@<name>`, a function the tree does not define). */
static const char *resolve_name(nb_doc *d, const char *name, const char *caller_name)
{
    char *k = static_key(d->tu, name);
    const char *u = hs_strmap_get(d->x->static_fns, k);
    free(k);
    if (u)
        return u;
    /* the caller's scopes, innermost first: ns::C::f calling g tries ns::C::g, ns::g */
    if (caller_name && strstr(caller_name, "::")) {
        char *scope = hs_xstrdup(caller_name);
        for (;;) {
            char *cut = NULL;
            for (char *p = scope; *p; p++)
                if (p[0] == ':' && p[1] == ':')
                    cut = p;
            if (!cut)
                break;
            *cut = 0;
            char *q = hs_printf("%s::%s", scope, name);
            u = hs_strmap_get(d->x->global_fns, q);
            free(q);
            if (u) {
                free(scope);
                return u;
            }
        }
        free(scope);
    }
    u = hs_strmap_get(d->x->global_fns, name);
    return u ? u : hs_strmap_get(d->x->header_statics, name);
}

/* Is NAME a variable (a function pointer, called as `name(x)`) this file or the tree declares? */
static bool is_pointer_variable(nb_doc *d, const char *name)
{
    size_t n;
    const hs_syntax_decl *decls = hs_syntax_decls(d->f, &n);
    for (size_t i = 0; i < n; i++)
        if (decls[i].scope == HS_SYNTAX_SCOPE_FILE && strcmp(decls[i].name, name) == 0)
            return true;
    return hs_strmap_has(d->x->globals, name);
}

static void add_site(json_t *o, const char *file, const hs_syntax_span *s)
{
    json_object_set_new(o, "file", json_string(file));
    json_object_set_new(o, "line", json_integer(s->line));
    json_object_set_new(o, "column", json_integer(s->column));
    json_object_set_new(o, "offset", json_integer((json_int_t)s->offset));
    json_object_set_new(o, "end_line", json_integer(s->end_line));
    json_object_set_new(o, "end_column", json_integer(s->end_column));
    json_object_set_new(o, "length", json_integer((json_int_t)s->length));
}

static json_t *text_or_null(const char *s)
{
    json_t *j = s ? json_string(s) : NULL;
    return j ? j : json_null();
}

static void add_store(nb_doc *d, const char *slot, const char *fn_name, const hs_syntax_span *at)
{
    const char *usr = resolve_name(d, fn_name, NULL);
    if (!usr)
        return; /* not a function of the tree */
    char *k = hs_printf("%s\x1f%s", slot, usr);
    if (!hs_strmap_has(d->stored, k)) {
        hs_strmap_put(d->stored, k, (void *)1);
        json_array_append_new(d->fn_stores, json_pack("{s:s, s:s, s:s, s:s, s:i}", "slot", slot, "function", usr,
                                                      "function_name", fn_name, "file", d->path, "line",
                                                      (json_int_t)at->line));
    }
    free(k);
}

/* The variable an atomic operation works on: its identity, name and declaration. */
typedef struct {
    char *var, *var_name;
    const hs_syntax_decl *decl;
    size_t decl_tu;
    bool atomic_decl;   /* declared with an atomic type */
} var_id;

static void var_free(var_id *v)
{
    free(v->var);
    free(v->var_name);
}

static const char *strip_address(const char *s)
{
    while (*s == '&' || *s == '(' || isspace((unsigned char)*s))
        s++;
    return s;
}

/* An object as written: names joined by `.` and `->`, subscripts, leading `&` `*` and
 * parentheses; not arithmetic (`b_orig(buf) + ofs`) or a call. */
static bool lvalue_like(const char *s)
{
    int depth = 0;
    for (const char *p = s; *p; p++) {
        if (*p == '[')
            depth++;
        else if (*p == ']')
            depth--;
        else if (depth > 0)
            continue;
        else if (is_ident((unsigned char)*p) || *p == '.' || *p == '&' || *p == '*' || *p == ')' || *p == ' ')
            continue;
        else if (*p == '-' && p[1] == '>')
            p++;
        else if (*p == '(' && (p == s || !is_ident((unsigned char)p[-1])))
            continue;
        else
            return false;
    }
    return depth == 0;
}

/* Root name of an object text: the last field (`a->b.c` -> c) or the variable. */
static char *object_root(const char *text, bool *is_field)
{
    *is_field = false;
    if (!lvalue_like(text))
        return NULL;
    const char *s = strip_address(text);
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ')' || isspace((unsigned char)s[n - 1])))
        n--;
    /* drop a trailing subscript */
    while (n > 0 && s[n - 1] == ']') {
        int depth = 0;
        size_t i = n;
        while (i > 0) {
            i--;
            if (s[i] == ']')
                depth++;
            else if (s[i] == '[' && --depth == 0)
                break;
        }
        n = i;
    }
    size_t e = n;
    while (e > 0 && is_ident((unsigned char)s[e - 1]))
        e--;
    *is_field = e > 0 && (s[e - 1] == '.' || (e >= 2 && s[e - 1] == '>' && s[e - 2] == '-'));
    if (e == n)
        return NULL;
    return hs_xstrndup(s + e, n - e);
}

static var_id resolve_var(nb_doc *d, const char *object_text, size_t fn)
{
    var_id v = {0};
    bool is_field = false;
    char *name = object_root(object_text, &is_field);
    if (!name)
        return v;
    nb_index *x = d->x;
    if (is_field) {
        const char *rec = hs_strmap_get(x->field_record, name);
        v.var = hs_printf("ts:field:%s::%s", rec && rec[0] ? rec : "?", name);
        v.var_name = rec && rec[0] ? hs_printf("%s::%s", rec, name) : hs_xstrdup(name);
        v.decl = hs_strmap_get(x->field_decl, name);
        v.decl_tu = (size_t)hs_strmap_get(x->field_tu, name);
        v.atomic_decl = hs_strmap_has(x->field_atomic, name);
        free(name);
        return v;
    }
    /* a local or parameter, a static of this file, a global */
    size_t n;
    const hs_syntax_decl *decls = hs_syntax_decls(d->f, &n);
    const hs_syntax_decl *local = NULL, *file_static = NULL;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(decls[i].name, name) != 0)
            continue;
        if ((decls[i].scope == HS_SYNTAX_SCOPE_LOCAL || decls[i].scope == HS_SYNTAX_SCOPE_PARAM) &&
            decls[i].function == fn)
            local = &decls[i];
        else if (decls[i].scope == HS_SYNTAX_SCOPE_FILE && (decls[i].is_static || !file_static))
            file_static = &decls[i];
    }
    if (local && !local->is_static) {
        /* a plain local is no shared counter */
        v.var = hs_printf("ts:%s@local@%zu@%s", x->rel[d->tu], fn, name);
        v.var_name = hs_xstrdup(name);
        v.decl = local;
        v.decl_tu = d->tu + 1;
        v.atomic_decl = decl_atomic(x, local);
    } else if (local || (file_static && file_static->is_static)) {
        const hs_syntax_decl *s = local ? local : file_static;
        v.var = hs_printf("ts:%s@%s", x->rel[d->tu], name);
        v.var_name = hs_xstrdup(name);
        v.decl = s;
        v.decl_tu = d->tu + 1;
        v.atomic_decl = decl_atomic(x, s);
    } else {
        v.var = hs_printf("ts:var:%s", name);
        v.var_name = hs_xstrdup(name);
        v.decl = file_static ? file_static : hs_strmap_get(x->globals, name);
        v.decl_tu = file_static ? d->tu + 1 : (size_t)hs_strmap_get(x->global_tu, name);
        v.atomic_decl = v.decl && decl_atomic(x, v.decl);
    }
    free(name);
    return v;
}

static const char *order_of(const char *arg)
{
    if (!arg)
        return "seq_cst";
    static const char *const names[][2] = {
        {"relaxed", "relaxed"}, {"RELAXED", "relaxed"}, {"consume", "consume"}, {"CONSUME", "consume"},
        {"acq_rel", "acq_rel"}, {"ACQ_REL", "acq_rel"}, {"acquire", "acquire"}, {"ACQUIRE", "acquire"},
        {"release", "release"}, {"RELEASE", "release"}, {"seq_cst", "seq_cst"}, {"SEQ_CST", "seq_cst"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strstr(arg, names[i][0]))
            return names[i][1];
    return "unknown";
}

static bool constant_text(const char *s, long long *value)
{
    char *end;
    while (*s == '(')
        s++;
    errno = 0;
    long long v = strtoll(s, &end, 0);
    if (end == s || errno)
        return false;
    while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L' || *end == ')')
        end++;
    if (*end)
        return false;
    *value = v;
    return true;
}

/* The context of one operation: where, in which function, how its result is used. */
typedef struct {
    const hs_syntax_span *site;
    size_t fn;                  /* HS_SYNTAX_NONE at file scope */
    const char *fn_usr, *fn_name;
    bool macro;
    const char *macro_name;
    const char *text;           /* as written (the macro's name through a macro) */
    const char *span_text;      /* the whole code */
    bool result_used, in_condition, in_loop_condition, returned;
    bool limit_test;            /* an operand of < > <= >= against a limit */
    long long ordinal;
} op_ctx;

static const char *use_of(const op_ctx *c)
{
    if (!c->result_used)
        return "discarded";
    if (c->in_loop_condition)
        return "loop_condition";
    if (c->in_condition)
        return "condition";
    if (c->returned)
        return "returned";
    return "value";
}

static void add_atomic(nb_doc *d, const op_ctx *c, const char *op, const char *order, const char *form,
                       const char *api, const char *object_text, const char *value_text, bool store)
{
    var_id v = resolve_var(d, object_text ? object_text : "", c->fn);
    if (!v.var) {
        /* an object the text cannot name (`base + off`): clang would know it, the syntax does not */
        return;
    }
    if (d->atomic_spans && object_text)
        hs_vec_push(d->atomic_spans, (void *)(uintptr_t)c->site->offset);
    json_t *o = json_object();
    json_object_set_new(o, "op", json_string(op));
    json_object_set_new(o, "order", json_string(order));
    json_object_set_new(o, "form", json_string(form));
    json_object_set_new(o, "api", json_string(api));
    json_object_set_new(o, "use", json_string(use_of(c)));
    if (c->limit_test && (c->in_condition || c->in_loop_condition))
        json_object_set_new(o, "limit_test", json_true());
    json_object_set_new(o, "function", json_string(c->fn_usr));
    json_object_set_new(o, "function_name", json_string(c->fn_name));
    add_site(o, d->path, c->site);
    json_object_set_new(o, "macro", json_boolean(c->macro));
    json_object_set_new(o, "text", text_or_null(c->text));
    json_object_set_new(o, "span", json_pack("{s:i, s:i, s:o}", "offset", (json_int_t)c->site->offset, "length",
                                             (json_int_t)c->site->length, "text", text_or_null(c->span_text)));
    if (c->macro_name)
        json_object_set_new(o, "macro_name", json_string(c->macro_name));
    if (object_text)
        json_object_set_new(o, "object_text", text_or_null(strip_address(object_text)));
    if (value_text) {
        json_object_set_new(o, "value_operand", json_true());
        json_object_set_new(o, "value_text", text_or_null(value_text));
        long long value;
        if (store && constant_text(value_text, &value)) {
            json_object_set_new(o, "value_constant", json_true());
            json_object_set_new(o, "value", json_integer(value));
        }
    }
    json_object_set_new(o, "ordinal", json_integer(c->ordinal));
    json_object_set_new(o, "var", json_string(v.var ? v.var : ""));
    json_object_set_new(o, "var_name", json_string(v.var_name ? v.var_name : ""));
    json_object_set_new(o, "var_visible", json_boolean(v.decl != NULL));
    if (v.decl && v.decl_tu > 0)
        json_object_set_new(o, "var_decl", json_pack("{s:s, s:i, s:i}", "file", d->x->files[v.decl_tu - 1] ?
                                                     hs_syntax_file_path(d->x->files[v.decl_tu - 1]) : "",
                                                     "line", (json_int_t)v.decl->span.line, "column",
                                                     (json_int_t)v.decl->span.column));
    json_array_append_new(d->atomics, o);
    var_free(&v);
}

/* An atomic API call (name, object, arguments), from the code or a macro's expansion. */
static bool atomic_call(nb_doc *d, const op_ctx *c, const char *callee, const char *object, char *const *args,
                        size_t nargs)
{
    bool ex = false;
    const char *op;
    if (object) {
        op = member_op(callee);
        if (!op)
            return false;
        /* only on objects declared atomic: `v.load()` on anything else is no atomic */
        var_id v = resolve_var(d, object, c->fn);
        bool atomic = v.atomic_decl;
        var_free(&v);
        if (!atomic)
            return false;
        bool has_value = strcmp(op, "load") != 0 && strcmp(op, "wait") != 0 && nargs > 0;
        const char *order = nargs > (size_t)(has_value ? 1 : 0) ? order_of(args[has_value ? 1 : 0]) : "seq_cst";
        if (strcmp(op, "cas") == 0)
            order = nargs > 2 ? order_of(args[2]) : "seq_cst";
        add_atomic(d, c, op, order, "member", callee, object, has_value ? args[0] : NULL, strcmp(op, "store") == 0);
        return true;
    }
    if ((op = c11_op(callee, &ex))) {
        if (nargs == 0)
            return false;
        bool has_value = strcmp(op, "load") != 0 && nargs > 1;
        size_t order_at = strcmp(op, "cas") == 0 ? 3 : has_value ? 2 : 1;
        const char *order = ex ? (nargs > order_at ? order_of(args[order_at]) : "unknown") : "seq_cst";
        add_atomic(d, c, op, order, "c11", callee, args[0], has_value ? args[1] : NULL, strcmp(op, "store") == 0);
        return true;
    }
    if ((op = gnu_op(callee))) {
        if (nargs == 0)
            return false;
        bool has_value = strcmp(op, "load") != 0 && nargs > 1;
        size_t order_at = strcmp(op, "cas") == 0 ? 4 : has_value ? 2 : 1;
        if (strcmp(callee, "__atomic_load") == 0)
            order_at = 2;
        const char *order = nargs > order_at ? order_of(args[order_at]) : "unknown";
        add_atomic(d, c, op, order, "gnu", callee, args[0], has_value ? args[1] : NULL, strcmp(op, "store") == 0);
        return true;
    }
    if ((op = sync_op(callee))) {
        if (nargs == 0)
            return false;
        bool release = strcmp(callee, "__sync_lock_release") == 0 || strcmp(callee, "__sync_lock_test_and_set") == 0;
        add_atomic(d, c, op, release ? "acquire" : "seq_cst", "sync", callee, args[0], nargs > 1 ? args[1] : NULL,
                   false);
        return true;
    }
    json_t *w = find_wrapper(d->x->rd, callee);
    if (w) {
        const char *wop = json_string_value(json_object_get(w, "op"));
        int oa = json_object_get(w, "object_arg") ? (int)json_integer_value(json_object_get(w, "object_arg")) : 0;
        json_t *va = json_object_get(w, "value_arg");
        json_t *ordarg = json_object_get(w, "order_arg");
        const char *order = json_string_value(json_object_get(w, "order"));
        if (ordarg)
            order = (size_t)json_integer_value(ordarg) < nargs ? order_of(args[json_integer_value(ordarg)]) : "unknown";
        if ((size_t)oa >= nargs)
            return false;
        const char *value = va && (size_t)json_integer_value(va) < nargs ? args[json_integer_value(va)] : NULL;
        add_atomic(d, c, wop ? wop : "other", order ? order : "seq_cst", "wrapper", callee, args[oa], value,
                   wop && strcmp(wop, "store") == 0);
        return true;
    }
    return false;
}

typedef struct {
    json_t *read;      /* borrowed: the document's clock_reads array owns it */
    long long ordinal; /* the read's "ordinal" */
    const char *sink;  /* the name the reading goes to, or NULL */
    size_t fn;
    size_t stmt, end;  /* the statement holding the read: from its start to the end of the call */
} pending_read;

static char *sink_of(const hs_syntax_file *f, const hs_syntax_call *c, const hs_timer_api *t, char *const *args,
                     size_t nargs, bool *out_param)
{
    *out_param = false;
    if (t->out_arg >= 0 && (size_t)t->out_arg < nargs && args[t->out_arg][0] == '&') {
        *out_param = true;
        bool field;
        return object_root(args[t->out_arg], &field);
    }
    /* `x = call` or `T x = call` in the statement, right before the call */
    size_t len;
    const char *text = hs_syntax_file_text(f, &len);
    if (c->statement_offset >= c->span.offset)
        return NULL;
    size_t e = c->span.offset;
    while (e > c->statement_offset && isspace((unsigned char)text[e - 1]))
        e--;
    while (e > c->statement_offset && text[e - 1] == '(')
        e--;
    if (e == c->statement_offset || text[e - 1] != '=' || (e >= 2 && strchr("=!<>", text[e - 2])))
        return NULL;
    e--;
    if (e > c->statement_offset && strchr("+-*/|&^%", text[e - 1]))
        e--;
    while (e > c->statement_offset && isspace((unsigned char)text[e - 1]))
        e--;
    size_t a = e;
    while (a > c->statement_offset && (is_ident((unsigned char)text[a - 1]) || text[a - 1] == '.' ||
                                       text[a - 1] == '>' || text[a - 1] == '-'))
        a--;
    if (a == e)
        return NULL;
    char *lhs = hs_xstrndup(text + a, e - a);
    bool field;
    char *root = object_root(lhs, &field);
    free(lhs);
    return root;
}

/* Do two names appear in one statement of the body with `-` or a comparison: an interval? */
static bool combined_in(const char *body, size_t n, const char *a, const char *b)
{
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || body[i] == ';' || body[i] == '{' || body[i] == '}') {
            if (i > start) {
                char *stmt = hs_xstrndup(body + start, i - start);
                bool op = strchr(stmt, '-') || strchr(stmt, '<') || strchr(stmt, '>');
                if (op && has_word(stmt, a) && has_word(stmt, b)) {
                    free(stmt);
                    return true;
                }
                free(stmt);
            }
            start = i + 1;
        }
    }
    return false;
}

static void add_clock_read(nb_doc *d, const op_ctx *c, const hs_syntax_call *call, const hs_timer_api *t,
                           char *const *args, size_t nargs, long long seq, long long blocking_seq,
                           bool function_blocks, long long ordinal, hs_vec *pending)
{
    const hs_ruledata *rd = d->x->rd;
    json_t *o = json_object();
    hs_cost cost = t->cost;
    const char *clock_id = NULL;
    if (t->clock_id_arg >= 0 && (size_t)t->clock_id_arg < nargs) {
        clock_id = args[t->clock_id_arg];
        hs_cost cc;
        if (hs_ruledata_clock_id_cost(rd, clock_id, &cc))
            cost = cc;
    }
    json_object_set_new(o, "api", json_string(t->name));
    json_object_set_new(o, "clock", json_string(t->clock ? t->clock : ""));
    json_object_set_new(o, "cost", json_string(hs_cost_name(cost)));
    json_object_set_new(o, "clock_id", text_or_null(clock_id));
    json_object_set_new(o, "function", json_string(c->fn_usr));
    json_object_set_new(o, "function_name", json_string(c->fn_name));
    add_site(o, d->path, c->site);
    json_object_set_new(o, "macro", json_boolean(c->macro));
    json_object_set_new(o, "text", text_or_null(c->text));
    if (c->macro_name)
        json_object_set_new(o, "macro_name", json_string(c->macro_name));
    json_object_set_new(o, "in_loop", json_boolean(call->loop_depth > 0));
    json_object_set_new(o, "loop_path", json_string(call->loop_path));
    size_t nb;
    const hs_syntax_branch *br = hs_syntax_branches(d->f, &nb);
    json_t *branches = json_array();
    for (size_t i = 0; i < call->nbranches; i++) {
        const hs_syntax_branch *b = &br[call->first_branch + i];
        json_array_append_new(branches, json_pack("[I, I, I, I, b]", (json_int_t)b->node, (json_int_t)b->node_end,
                                                  (json_int_t)b->arm, (json_int_t)b->exit_until, b->sampled));
    }
    json_object_set_new(o, "branches", branches);
    json_object_set_new(o, "error_path", json_boolean(call->error_path));
    /* as the extractor writes it (docs/facts.md: currently always true) */
    json_object_set_new(o, "result_used", json_true());
    json_object_set_new(o, "returned", json_boolean(c->returned));
    json_object_set_new(o, "seq", json_integer(seq));
    json_object_set_new(o, "blocking_seq", json_integer(blocking_seq));
    json_object_set_new(o, "function_blocks", json_boolean(function_blocks));
    json_object_set_new(o, "lambda", json_integer((json_int_t)call->lambda_offset));
    json_object_set_new(o, "ordinal", json_integer(ordinal));
    bool out_param;
    char *sink = sink_of(d->f, call, t, args, nargs, &out_param);
    json_object_set_new(o, "out_param", json_boolean(out_param));
    if (sink) {
        char *key = hs_printf("n:%s", sink);
        json_object_set_new(o, "sink", json_string(key));
        free(key);
    }
    json_array_append_new(d->clock_reads, o);
    pending_read *p = hs_xcalloc(1, sizeof *p);
    p->read = o;
    p->ordinal = ordinal;
    p->sink = sink;
    p->fn = c->fn;
    p->stmt = call->statement_offset;
    p->end = call->span.offset + call->span.length;
    hs_vec_push(pending, p);
}

/* Does the statement code[stmt, end) compare or subtract NAME (`time(NULL) != last`)? */
static bool compared_in(const char *code, size_t n, size_t stmt, size_t end, const char *name)
{
    if (end <= stmt || end > n)
        return false;
    /* on to the statement's end, or an arm's opening brace (`if (time(NULL) != last) {`) */
    while (end < n && code[end] != ';' && code[end] != '{' && code[end] != '}')
        end++;
    char *t = hs_xstrndup(code + stmt, end - stmt);
    bool op = strstr(t, "!=") || strstr(t, "==") || strchr(t, '<') || strchr(t, '>') || strchr(t, '-');
    bool r = op && has_word(t, name);
    free(t);
    return r;
}

/* elapsed_with for one function's reads: two readings whose sinks one statement combines. */
static void finish_reads(nb_doc *d, const hs_syntax_function *fn, hs_vec *pending)
{
    size_t len;
    const char *text = hs_syntax_file_text(d->f, &len);
    size_t at = fn->body.offset < len ? fn->body.offset : len;
    size_t blen = fn->body.length < len - at ? fn->body.length : len - at;
    /* the body's code: what its comments and literals say is no operator and no use */
    char *body = code_only(text + at, blen);
    for (size_t i = 0; i < pending->len; i++) {
        pending_read *a = pending->items[i];
        json_t *with = json_array();
        for (size_t j = 0; j < pending->len; j++) {
            pending_read *b = pending->items[j];
            if (i == j)
                continue;
            /* `if (time(NULL) != last) last = time(NULL);`: one read compared with what the other is stored in */
            if ((b->sink && a->stmt >= at && compared_in(body, blen, a->stmt - at, a->end - at, b->sink)) ||
                (a->sink && b->stmt >= at && compared_in(body, blen, b->stmt - at, b->end - at, a->sink))) {
                json_array_append_new(with, json_integer(b->ordinal));
                continue;
            }
            if (!a->sink || !b->sink)
                continue;
            if (strcmp(a->sink, b->sink) == 0 || combined_in(body, blen, a->sink, b->sink))
                json_array_append_new(with, json_integer(b->ordinal));
        }
        /* a reading subtracted from anything (`now - start`, `deadline < now`) is half of an interval */
        if (json_array_size(with) == 0 && a->sink) {
            const char *s = body;
            size_t n = blen;
            for (size_t k = 0; k + strlen(a->sink) <= n; k++) {
                if (strncmp(s + k, a->sink, strlen(a->sink)) != 0 || (k > 0 && is_ident((unsigned char)s[k - 1])) ||
                    is_ident((unsigned char)s[k + strlen(a->sink)]))
                    continue;
                size_t e = k + strlen(a->sink);
                while (e < n && s[e] == ' ')
                    e++;
                size_t b0 = k;
                while (b0 > 0 && s[b0 - 1] == ' ')
                    b0--;
                bool minus = (e < n && s[e] == '-' && (e + 1 >= n || (s[e + 1] != '>' && s[e + 1] != '-' && s[e + 1] != '='))) ||
                             (b0 > 0 && s[b0 - 1] == '-' && (b0 < 2 || s[b0 - 2] != '-'));
                if (minus) {
                    json_array_append_new(with, json_integer(-1));
                    break;
                }
            }
        }
        json_object_set_new(a->read, "elapsed_with", with);
    }
    free(body);
    for (size_t i = 0; i < pending->len; i++) {
        pending_read *p = pending->items[i];
        free((char *)p->sink);
        free(p);
    }
    pending->len = 0;
}

static bool starts_with_word(const char *text, size_t len, size_t at, const char *w)
{
    size_t n = strlen(w);
    return at + n <= len && strncmp(text + at, w, n) == 0 && (at + n == len || !is_ident((unsigned char)text[at + n]));
}

static void add_event(nb_doc *d, const op_ctx *c, const hs_event_api *e, char *const *args, size_t nargs)
{
    json_t *o = json_object();
    json_object_set_new(o, "api", json_string(e->name));
    json_object_set_new(o, "kind", json_string(e->kind));
    add_site(o, d->path, c->site);
    json_object_set_new(o, "text", text_or_null(c->text));
    json_object_set_new(o, "macro", json_boolean(c->macro));
    json_object_set_new(o, "ordinal", json_integer(c->ordinal));
    json_object_set_new(o, "function", json_string(c->fn_usr));
    json_object_set_new(o, "function_name", json_string(c->fn_name));
    if (e->object_arg >= 0 && (size_t)e->object_arg < nargs) {
        var_id v = resolve_var(d, args[e->object_arg], c->fn);
        json_object_set_new(o, "object", json_string(v.var ? v.var : ""));
        json_object_set_new(o, "object_name", json_string(v.var_name ? v.var_name : ""));
        json_object_set_new(o, "object_text", json_string(args[e->object_arg]));
        if (v.decl && v.decl_tu > 0 && d->x->files[v.decl_tu - 1])
            json_object_set_new(o, "object_declaration",
                                json_pack("{s:s, s:i, s:i}", "file", hs_syntax_file_path(d->x->files[v.decl_tu - 1]),
                                          "line", (json_int_t)v.decl->span.line, "column",
                                          (json_int_t)v.decl->span.column));
        var_free(&v);
    }
    json_array_append_new(d->events, o);
}

/* The type's name as event_types lists them: pointers, const, struct/class keywords dropped. */
static bool event_type(const hs_ruledata *rd, const char *type)
{
    char *t = hs_xstrdup(type);
    char *w = t, *best = NULL;
    for (char *tok = strtok(w, " *&"); tok; tok = strtok(NULL, " *&")) {
        if (strcmp(tok, "const") == 0 || strcmp(tok, "struct") == 0 || strcmp(tok, "class") == 0 ||
            strcmp(tok, "static") == 0 || strcmp(tok, "volatile") == 0 || strcmp(tok, "extern") == 0)
            continue;
        best = tok;
    }
    bool r = best && hs_strmap_has(rd->event_types, best);
    free(t);
    return r;
}

/* One resolved API call at a site: clock, atomic or event facts. */
static void api_call(nb_doc *d, op_ctx *c, const hs_syntax_call *call, const char *callee, const char *object,
                     char *const *args, size_t nargs, long long *seq, long long blocking_seq, bool fn_blocks,
                     long long *nreads, hs_vec *pending)
{
    if (!object) {
        const hs_timer_api *t = find_timer(d->x->rd, callee);
        if (t) {
            add_clock_read(d, c, call, t, args, nargs, *seq, blocking_seq, fn_blocks, (*nreads)++, pending);
            return;
        }
        const hs_event_api *e = hs_ruledata_find_event(d->x->rd, callee);
        if (e) {
            add_event(d, c, e, args, nargs);
            return;
        }
    }
    atomic_call(d, c, callee, object, args, nargs);
}

static const char *update_api(hs_syntax_update_op op, bool prefix)
{
    switch (op) {
    case HS_SYNTAX_UPDATE_INC: return prefix ? "++" : "++";
    case HS_SYNTAX_UPDATE_DEC: return "--";
    case HS_SYNTAX_UPDATE_ADD: return "+=";
    case HS_SYNTAX_UPDATE_SUB: return "-=";
    case HS_SYNTAX_UPDATE_BITWISE: return "|=";
    case HS_SYNTAX_UPDATE_ASSIGN: return "=";
    default: return "op=";
    }
}

static void count_plain(json_t *counts, const char *what, const char *file, const hs_syntax_span *at)
{
    json_t *n = json_object_get(counts, what);
    json_object_set_new(counts, what, json_integer(n ? json_integer_value(n) + 1 : 1));
    char *where = hs_printf("%s_at", what);
    if (!json_object_get(counts, where))
        json_object_set_new(counts, where, json_pack("{s:s, s:i, s:i}", "file", file, "line", (json_int_t)at->line,
                                                     "column", (json_int_t)at->column));
    free(where);
}

/* Was the `&` in front of this reference passed or stored (`f(&x)`, `p = &x`), rather than
 * used in an offset computation (`(char *)&c->x - (char *)c`)? */
static bool address_escapes(const char *text, const hs_syntax_ref *r)
{
    size_t b = r->span.offset;
    while (b > 0 && text[b - 1] != '&')
        b--;
    if (b > 0)
        b--;
    while (b > 0 && isspace((unsigned char)text[b - 1]))
        b--;
    char prev = b > 0 ? text[b - 1] : 0;
    return prev == '(' || prev == ',' || prev == '=';
}

static void atomic_ref(nb_doc *d, const hs_syntax_ref *r, const char *text, size_t tlen, const var_id *v)
{
    (void)tlen;
    if (r->written || r->function == HS_SYNTAX_NONE)
        return;
    size_t nfn;
    const hs_syntax_function *fns = hs_syntax_functions(d->f, &nfn);
    char *t = hs_xstrndup(text + r->span.offset, r->span.length);
    op_ctx ctx = {.site = &r->span, .fn = r->function, .fn_usr = fn_usr(d, r->function),
                  .fn_name = fns[r->function].name, .text = t, .span_text = t, .result_used = true,
                  .in_condition = r->in_condition, .in_loop_condition = r->in_loop_condition,
                  .limit_test = r->limit_test};
    bool cpp = strstr(v->decl->type, "atomic<") != NULL;
    if (r->address_of) {
        if (address_escapes(text, r))
            add_atomic(d, &ctx, "escape", "n/a", "escape", "&", t, NULL, false);
    } else {
        add_atomic(d, &ctx, "load", "seq_cst", cpp ? "operator" : "c11_operator", "read", t, NULL, false);
    }
    free(t);
}

/* One "plain" summary per variable of atomic_names this file uses without an atomic API:
 * reads (in conditions, loop conditions, against limits), writes (constant or computed),
 * addresses taken. */
static void plain_uses(nb_doc *d, const hs_syntax_span *spans, size_t nspans)
{
    size_t nr, tlen;
    const hs_syntax_ref *refs = hs_syntax_refs(d->f, &nr);
    const char *text = hs_syntax_file_text(d->f, &tlen);
    hs_strmap *sums = hs_strmap_create();
    hs_vec order = {0};
    for (size_t i = 0; i < nr; i++) {
        const hs_syntax_ref *r = &refs[i];
        bool named = hs_strmap_has(d->x->atomic_names, r->name);
        if (!named && !hs_strmap_has(d->x->atomic_decl_names, r->name))
            continue;
        bool inside = false;
        for (size_t k = 0; k < nspans && !inside; k++)
            inside = r->span.offset >= spans[k].offset && r->span.offset < spans[k].offset + spans[k].length;
        if (inside)
            continue;
        /* A field name several structs declare counts every struct's plain uses: the text
         * cannot tell whose field `p->bytes_in` is. Counting them costs recall on haproxy
         * (93% -> 87%) and buys precision (60% -> 75%): a syntax finding should be right. */
        char *obj = r->field ? hs_printf("x->%s", r->name) : hs_xstrdup(r->name);
        var_id v = resolve_var(d, obj, r->function);
        free(obj);
        if (v.var && v.atomic_decl && !strstr(v.var, "@local@")) {
            /* an object declared atomic: a read is a seq_cst load (clang's implicit operator T),
             * its address passed on an escape; writes are the operators' facts */
            atomic_ref(d, r, text, tlen, &v);
            var_free(&v);
            continue;
        }
        if (!named || !v.var || v.atomic_decl || strstr(v.var, "@local@")) {
            var_free(&v);
            continue;
        }
        json_t *sum = hs_strmap_get(sums, v.var);
        if (!sum) {
            sum = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:i, s:{}}", "var", v.var, "var_name", v.var_name,
                            "op", "plain", "order", "n/a", "function", "", "file", d->path, "offset", 0,
                            "ordinal", 0, "plain");
            hs_strmap_put(sums, v.var, sum);
            hs_vec_push(&order, sum);
        }
        json_t *counts = json_object_get(sum, "plain");
        if (r->written) {
            size_t e = r->span.offset + r->span.length;
            while (e < tlen && isspace((unsigned char)text[e]))
                e++;
            bool constant = false;
            if (e + 1 < tlen && text[e] == '=' && text[e + 1] != '=') {
                size_t a = e + 1, b;
                while (a < tlen && isspace((unsigned char)text[a]))
                    a++;
                b = a;
                while (b < tlen && text[b] != ';' && text[b] != ',' && text[b] != ')')
                    b++;
                char *v2 = hs_xstrndup(text + a, b - a);
                long long value;
                char *end = v2 + strlen(v2);
                while (end > v2 && isspace((unsigned char)end[-1]))
                    *--end = 0;
                constant = constant_text(v2, &value);
                free(v2);
            }
            count_plain(counts, constant ? "writes_constant" : "writes_computed", d->path, &r->span);
        } else if (r->address_of) {
            if (address_escapes(text, r))
                count_plain(counts, "address_taken", d->path, &r->span);
        } else {
            count_plain(counts, "reads", d->path, &r->span);
            if (r->in_loop_condition)
                count_plain(counts, "loads_loop_condition", d->path, &r->span);
            else if (r->in_condition) {
                count_plain(counts, "loads_condition", d->path, &r->span);
                if (r->limit_test)
                    count_plain(counts, "loads_limit", d->path, &r->span);
            }
        }
        var_free(&v);
    }
    for (size_t i = 0; i < order.len; i++)
        json_array_append_new(d->atomics, order.items[i]);
    hs_vec_free(&order);
    hs_strmap_delete(sums);
}

static void file_facts(nb_doc *d)
{
    nb_index *x = d->x;
    const hs_syntax_file *f = d->f;
    size_t nfn, nc, na, nu;
    const hs_syntax_function *fns = hs_syntax_functions(f, &nfn);
    const hs_syntax_call *calls = hs_syntax_calls(f, &nc);
    const hs_syntax_arg *args = hs_syntax_args(f, &na);
    const hs_syntax_update *upds = hs_syntax_updates(f, &nu);
    size_t tlen;
    const char *text = hs_syntax_file_text(f, &tlen);
    bool cpp = hs_syntax_file_lang(f) == HS_SYNTAX_CPP;

    for (size_t i = 0; i < nfn; i++) {
        const hs_syntax_function *fn = &fns[i];
        if (!fn->name[0])
            continue;
        size_t head = fn->body.offset > fn->span.offset ? fn->body.offset - fn->span.offset : 0;
        char *h = hs_xstrndup(text + fn->span.offset, head);
        bool attr = strstr(h, "__attribute__") || strstr(h, "[[");
        bool cold = attr && has_word(h, "cold");
        bool hot = attr && has_word(h, "hot");
        bool noreturn = (attr && has_word(h, "noreturn")) || has_word(h, "_Noreturn");
        free(h);
        json_t *o = json_pack("{s:s, s:s, s:b, s:b, s:b, s:b, s:s, s:i, s:i, s:i}", "usr", fn_usr(d, i), "name",
                              fn->name, "defined", true, "hot", hot, "cold", cold, "noreturn", noreturn, "file",
                              d->path, "line", (json_int_t)fn->span.line, "column", (json_int_t)fn->span.column,
                              "offset", (json_int_t)fn->span.offset);
        json_array_append_new(d->functions, o);
        /* every method fills the slot a member call of its name goes through */
        if (fn->is_method || cpp) {
            char *slot = hs_printf("ts:method:%s", fn->base_name);
            char *k = hs_printf("%s\x1f%s", slot, fn_usr(d, i));
            if (!hs_strmap_has(d->stored, k)) {
                hs_strmap_put(d->stored, k, (void *)1);
                json_array_append_new(d->fn_stores, json_pack("{s:s, s:s, s:s, s:s, s:i}", "slot", slot, "function",
                                                              fn_usr(d, i), "function_name", fn->name, "file",
                                                              d->path, "line", (json_int_t)fn->span.line));
            }
            free(k);
            free(slot);
        }
    }

    /* calls, clock reads, atomics and events, function by function */
    hs_vec pending = {0};
    hs_syntax_span *spans = NULL; /* calls that made atomic facts: their operands are no plain uses */
    size_t nspans = 0, cap_spans = 0;
    for (size_t fi = 0; fi < nfn; fi++) {
        const hs_syntax_function *fn = &fns[fi];
        const char *caller = fn_usr(d, fi);
        bool fn_blocks = false;
        for (size_t k = 0; k < fn->ncalls; k++) {
            const hs_syntax_call *c = &calls[fn->first_call + k];
            if (c->callee && !c->object && hs_ruledata_is_blocking(x->rd, c->callee) && !c->error_path)
                fn_blocks = true;
        }
        long long seq = 0, blocking_seq = 0, nreads = 0, ordinal_at = 0;
        size_t last_offset = (size_t)-1;
        /* the function-like macros whose arguments the call is written in: clang places what
         * a macro's arguments do at the macro's use (`FMTARGS(..., time(NULL))`) */
        const hs_syntax_call *macro_stack[32];
        size_t macro_depth = 0;
        long long in_macro_ordinal = 0;
        for (size_t k = 0; k < fn->ncalls; k++) {
            const hs_syntax_call *c = &calls[fn->first_call + k];
            while (macro_depth > 0 &&
                   c->span.offset >= macro_stack[macro_depth - 1]->span.offset + macro_stack[macro_depth - 1]->span.length)
                macro_depth--;
            const hs_syntax_call *outer_macro = macro_depth > 0 ? macro_stack[0] : NULL;
            if (macro_depth == 0)
                in_macro_ordinal = 0;
            if (c->callee && !c->object && macro_depth < 32 && hs_strmap_has(x->macros, c->callee) &&
                !resolve_name(d, c->callee, fn->name))
                macro_stack[macro_depth++] = c;
            if (c->span.offset == last_offset)
                ordinal_at++;
            else
                ordinal_at = 0;
            last_offset = c->span.offset;
            char **av = hs_xcalloc(c->nargs + 1, sizeof *av);
            for (size_t j = 0; j < c->nargs; j++)
                av[j] = (char *)args[c->first_arg + j].text;
            op_ctx ctx = {.site = &c->span, .fn = fi, .fn_usr = caller, .fn_name = fn->name, .text = NULL,
                          .result_used = c->result_used, .in_condition = c->in_condition,
                          .in_loop_condition = c->in_loop_condition, .ordinal = 0};
            ctx.returned = starts_with_word(text, tlen, c->statement_offset, "return");
            size_t atomics_before = json_array_size(d->atomics);
            char *call_text = hs_xstrndup(text + c->span.offset, c->span.length);
            ctx.span_text = call_text;
            const macro_def *md = c->callee && !c->object ? choose_macro(x, c->callee, 0) : NULL;
            bool is_function = c->callee && resolve_name(d, c->callee, fn->name) != NULL;
            if (md && !is_function) {
                /* through a macro: the expansion's API calls, at the macro's use */
                char *body = substitute(md->m, (const char *const *)av, c->nargs);
                hs_vec found = {0};
                calls_in_text(x, hs_syntax_file_lang(f), body, 0, &found, false);
                free(body);
                ctx.macro = true;
                ctx.macro_name = c->callee;
                ctx.text = c->callee;
                ctx.site = &c->name_span;
                for (size_t e = 0; e < found.len; e++) {
                    expanded_call *ec = found.items[e];
                    ctx.ordinal = (long long)e;
                    api_call(d, &ctx, c, ec->callee, ec->object, (char *const *)ec->args.items, ec->args.len, &seq,
                             blocking_seq, fn_blocks, &nreads, &pending);
                }
                expanded_free(&found);
            } else if (c->callee && outer_macro) {
                ctx.macro = true;
                ctx.macro_name = outer_macro->callee;
                ctx.text = outer_macro->callee;
                ctx.site = &outer_macro->name_span;
                size_t facts_before = json_array_size(d->atomics) + json_array_size(d->clock_reads) +
                                      json_array_size(d->events);
                ctx.ordinal = in_macro_ordinal;
                api_call(d, &ctx, c, c->callee, c->object, av, c->nargs, &seq, blocking_seq, fn_blocks, &nreads,
                         &pending);
                if (json_array_size(d->atomics) + json_array_size(d->clock_reads) + json_array_size(d->events) >
                    facts_before)
                    in_macro_ordinal++;
            } else if (c->callee) {
                ctx.text = call_text;
                ctx.ordinal = ordinal_at;
                api_call(d, &ctx, c, c->callee, c->object, av, c->nargs, &seq, blocking_seq, fn_blocks, &nreads,
                         &pending);
            }
            if (json_array_size(d->atomics) > atomics_before) {
                spans = hs_array_append(spans, &nspans, &cap_spans, sizeof *spans);
                spans[nspans - 1] = c->span;
            }
            /* the call edges: through a macro, to what its expansion calls */
            json_t *e = NULL;
            const hs_vec *via_macro = c->callee && !c->object && !is_function
                                          ? macro_callees(x, hs_syntax_file_lang(f), c->callee) : NULL;
            if (via_macro) {
                for (size_t m = 0; m < via_macro->len; m++) {
                    const char *name = via_macro->items[m];
                    const char *usr = resolve_name(d, name, fn->name);
                    char *unknown = usr ? NULL : hs_printf("ts:F@%s", name);
                    json_t *me = json_pack("{s:s, s:s, s:s, s:s, s:i, s:i, s:b, s:b}", "caller", caller, "callee",
                                           usr ? usr : unknown, "callee_name", name, "file", d->path, "line",
                                           (json_int_t)c->span.line, "column", (json_int_t)c->span.column,
                                           "in_loop", c->loop_depth > 0, "error_path", c->error_path);
                    if (c->loop_depth > 0)
                        json_object_set_new(me, "loop", json_integer((json_int_t)c->loop_offset));
                    json_array_append_new(d->calls, me);
                    free(unknown);
                }
            } else if (c->callee && !md) {
                bool field_call = c->object != NULL;
                const char *usr = NULL;
                if (!field_call)
                    usr = resolve_name(d, c->callee, fn->name);
                if (field_call && !cpp) {
                    char *slot = hs_printf("ts:field:%s", c->callee);
                    e = json_pack("{s:s, s:s, s:s}", "caller", caller, "slot", slot, "via", c->callee_text);
                    free(slot);
                } else if (field_call) {
                    hs_vec *cands = hs_strmap_get(x->by_base, c->callee);
                    if (cands && cands->len == 1) {
                        usr = cands->items[0];
                    } else if (cands && cands->len > 1) {
                        char *slot = hs_printf("ts:method:%s", c->callee);
                        e = json_pack("{s:s, s:s, s:s}", "caller", caller, "slot", slot, "via", c->callee_text);
                        free(slot);
                    }
                }
                if (!e && !usr && !field_call && is_pointer_variable(d, c->callee)) {
                    char *slot = hs_printf("ts:var:%s", c->callee);
                    e = json_pack("{s:s, s:s, s:s}", "caller", caller, "slot", slot, "via", c->callee_text);
                    free(slot);
                }
                if (!e && (usr || !field_call)) {
                    char *unknown = usr ? NULL : hs_printf("ts:F@%s", c->callee);
                    e = json_pack("{s:s, s:s, s:s}", "caller", caller, "callee", usr ? usr : unknown, "callee_name",
                                  c->callee);
                    free(unknown);
                }
            } else if (!c->callee) {
                /* (*fp)(x), tbl[i](x): through the pointer's root name */
                bool field;
                char *root = object_root(c->callee_text, &field);
                if (root) {
                    char *slot = field ? hs_printf("ts:field:%s", root) : hs_printf("ts:var:%s", root);
                    e = json_pack("{s:s, s:s, s:s}", "caller", caller, "slot", slot, "via", c->callee_text);
                    free(slot);
                    free(root);
                }
            }
            if (e) {
                json_object_set_new(e, "file", json_string(d->path));
                json_object_set_new(e, "line", json_integer(c->span.line));
                json_object_set_new(e, "column", json_integer(c->span.column));
                json_object_set_new(e, "in_loop", json_boolean(c->loop_depth > 0));
                json_object_set_new(e, "error_path", json_boolean(c->error_path));
                if (c->loop_depth > 0)
                    json_object_set_new(e, "loop", json_integer((json_int_t)c->loop_offset));
                json_array_append_new(d->calls, e);
            }
            if (c->callee && !c->object && hs_ruledata_is_blocking(x->rd, c->callee))
                blocking_seq++;
            seq++;
            free(call_text);
            free(av);
        }
        finish_reads(d, fn, &pending);
    }
    hs_vec_free(&pending);

    /* operators on names declared atomic; stores of functions into fields */
    for (size_t i = 0; i < nu; i++) {
        const hs_syntax_update *u = &upds[i];
        const char *fn_u = u->function == HS_SYNTAX_NONE ? "" : fn_usr(d, u->function);
        const char *fn_n = u->function == HS_SYNTAX_NONE ? "" : fns[u->function].name;
        if (u->op == HS_SYNTAX_UPDATE_ASSIGN && u->value && u->name && hs_strmap_has(x->fn_names, u->value)) {
            bool field;
            char *root = object_root(u->target, &field);
            if (root) {
                char *slot = field ? hs_printf("ts:field:%s", root) : hs_printf("ts:var:%s", root);
                add_store(d, slot, u->value, &u->span);
                free(slot);
                free(root);
            }
        }
        if (!u->name || u->function == HS_SYNTAX_NONE)
            continue;
        var_id v = resolve_var(d, u->target, u->function);
        bool atomic = v.atomic_decl;
        bool is_cpp_atomic = v.decl && (strstr(v.decl->type, "atomic<") || strstr(v.decl->type, "atomic_"));
        var_free(&v);
        if (!atomic)
            continue;
        const char *op = NULL;
        switch (u->op) {
        case HS_SYNTAX_UPDATE_INC: op = u->prefix ? "add_fetch" : "fetch_add"; break;
        case HS_SYNTAX_UPDATE_DEC: op = u->prefix ? "sub_fetch" : "fetch_sub"; break;
        case HS_SYNTAX_UPDATE_ADD: op = "add_fetch"; break;
        case HS_SYNTAX_UPDATE_SUB: op = "sub_fetch"; break;
        case HS_SYNTAX_UPDATE_BITWISE: op = "bitwise"; break;
        case HS_SYNTAX_UPDATE_ASSIGN: op = "store"; break;
        default: op = "other"; break;
        }
        char *t = hs_xstrndup(text + u->span.offset, u->span.length);
        op_ctx ctx = {.site = &u->span, .fn = u->function, .fn_usr = fn_u, .fn_name = fn_n, .text = t,
                      .span_text = t, .result_used = u->result_used, .in_condition = u->in_condition,
                      .in_loop_condition = u->in_loop_condition};
        add_atomic(d, &ctx, op, "seq_cst", cpp && is_cpp_atomic ? "operator" : "c11_operator",
                   update_api(u->op, u->prefix), u->target, u->value, u->op == HS_SYNTAX_UPDATE_ASSIGN);
        free(t);
    }

    plain_uses(d, spans, nspans);
    free(spans);

    /* function addresses in initializers: designated (`.proc = f`), positional by the struct's
     * fields, or (a macro in between) into every pointer field of the struct */
    size_t nd;
    const hs_syntax_decl *decls = hs_syntax_decls(f, &nd);
    size_t nfa;
    const char *const *fa = hs_syntax_file_address_taken(f, &nfa);
    if (nfa > 0) {
        for (size_t i = 0; i < nd; i++) {
            const hs_syntax_decl *g = &decls[i];
            if (g->scope != HS_SYNTAX_SCOPE_FILE)
                continue;
            /* struct NAME / NAME: the record whose fields the initializer fills */
            const char *ty = g->type;
            const char *sp = strrchr(ty, ' ');
            char *rec = hs_xstrdup(sp ? sp + 1 : ty);
            char *star = strchr(rec, '*');
            if (star)
                *star = 0;
            hs_vec *fields = hs_strmap_get(x->record_fields, rec);
            const char *alias = NULL;
            if (!fields) {
                /* the TU's own definition first (commands.c and cli_commands.c define
                 * COMMAND_STRUCT differently before including commands.def) */
                size_t nm;
                const hs_syntax_macro *mm = hs_syntax_macros(x->files[d->tu], &nm);
                for (size_t k = 0; k < nm && !alias; k++)
                    if (!mm[k].function_like && strcmp(mm[k].name, rec) == 0)
                        alias = strncmp(mm[k].body, "struct ", 7) == 0 ? mm[k].body + 7 : mm[k].body;
                if (!alias)
                    alias = hs_strmap_get(x->object_macros, rec);
            }
            if (alias)
                fields = hs_strmap_get(x->record_fields, alias);
            free(rec);
            if (!fields)
                continue;
            /* the initializer's text: from the declarator to the next ';' at depth 0 */
            size_t s = g->span.offset, e = s;
            int depth = 0;
            while (e < tlen && !(depth == 0 && text[e] == ';')) {
                if (text[e] == '"' || text[e] == '\'') {
                    char q = text[e++];
                    while (e < tlen && text[e] != q && text[e] != '\n') {
                        if (text[e] == '\\')
                            e++;
                        e++;
                    }
                } else if (text[e] == '{' || text[e] == '(')
                    depth++;
                else if ((text[e] == '}' || text[e] == ')') && depth > 0)
                    depth--;
                e++;
            }
            char *init = hs_xstrndup(text + s, e - s);
            for (size_t k = 0; k < nfa; k++) {
                if (!has_word(init, fa[k]) || !hs_strmap_has(x->fn_names, fa[k]))
                    continue;
                for (size_t j = 0; j < fields->len; j++) {
                    const hs_syntax_decl *fd = fields->items[j];
                    if (!fd->pointer && !strchr(fd->type, '*') && !strstr(fd->type, "Proc") && !strstr(fd->type, "proc"))
                        continue;
                    char *slot = hs_printf("ts:field:%s", fd->name);
                    add_store(d, slot, fa[k], &g->span);
                    free(slot);
                }
            }
            free(init);
        }
    }

    /* event objects */
    for (size_t i = 0; i < nd; i++) {
        const hs_syntax_decl *g = &decls[i];
        if (g->scope == HS_SYNTAX_SCOPE_PARAM || !event_type(x->rd, g->type))
            continue;
        var_id v = resolve_var(d, g->scope == HS_SYNTAX_SCOPE_FIELD ? "" : g->name, g->function);
        char *obj = g->scope == HS_SYNTAX_SCOPE_FIELD
                        ? hs_printf("ts:field:%s::%s", g->record && g->record[0] ? g->record : "?", g->name)
                        : hs_xstrdup(v.var ? v.var : "");
        json_t *o = json_object();
        add_site(o, d->path, &g->span);
        json_object_set_new(o, "text", json_string(g->name));
        json_object_set_new(o, "object", json_string(obj));
        json_object_set_new(o, "object_name", json_string(g->name));
        json_object_set_new(o, "type", json_string(g->type));
        json_object_set_new(o, "declaration_kind", json_string(g->scope == HS_SYNTAX_SCOPE_FIELD ? "field" : "variable"));
        json_object_set_new(o, "definition", json_boolean(g->scope != HS_SYNTAX_SCOPE_FIELD));
        json_object_set_new(o, "array", json_boolean(g->pointer && !strchr(g->type, '*')));
        json_object_set_new(o, "function", json_string(g->function == HS_SYNTAX_NONE ? "" : fn_usr(d, g->function)));
        json_array_append_new(d->event_objects, o);
        free(obj);
        var_free(&v);
    }
}

/* A quoted #include of a file no C/C++ extension names (redis' commands.def, a .inc table) is
 * part of its includer: parsed in the includer's language, indexed with it, and its facts go
 * into the includer's document. */
static void attach_includes(nb_index *x, size_t tu, hs_syntax_lang lang)
{
    size_t n;
    const hs_syntax_include *inc = hs_syntax_includes(x->files[tu], &n);
    for (size_t i = 0; i < n; i++) {
        if (inc[i].kind != HS_SYNTAX_INCLUDE_QUOTED || c_or_cpp(inc[i].path) || !strchr(inc[i].path, '.'))
            continue;
        char *dir = hs_dirname(hs_syntax_file_path(x->files[tu]));
        char *path = hs_path_join(dir, inc[i].path);
        free(dir);
        char *real = hs_realpath(path);
        free(path);
        struct stat st;
        if (real && stat(real, &st) == 0 && S_ISREG(st.st_mode) && st.st_size < (64 << 20)) {
            hs_syntax_file *af = hs_syntax_parse_path(x->parser, real, lang, NULL);
            if (af) {
                hs_vec_push(&x->attached[tu], af);
                index_file(x, tu, af);
            }
        }
        free(real);
    }
}

static json_t *document(nb_index *x, size_t tu, const hs_tu_input *in)
{
    nb_doc d = {.x = x, .tu = tu, .f = x->files[tu], .path = in->file};
    d.functions = json_array();
    d.calls = json_array();
    d.fn_stores = json_array();
    d.clock_reads = json_array();
    d.atomics = json_array();
    d.events = json_array();
    d.event_objects = json_array();
    d.stored = hs_strmap_create();
    file_facts(&d);
    for (size_t k = 0; k < x->attached[tu].len; k++) {
        d.f = x->attached[tu].items[k];
        d.path = hs_syntax_file_path(d.f);
        file_facts(&d);
    }
    d.f = x->files[tu];
    d.path = in->file;
    hs_strmap_delete(d.stored);
    json_t *facts = json_object();
    json_object_set_new(facts, "facts_version", json_integer(HS_FACTS_VERSION));
    json_object_set_new(facts, "tu", json_string(in->file));
    json_object_set_new(facts, "default_flags", json_true());
    json_object_set_new(facts, "from_syntax", json_true());
    json_object_set_new(facts, "functions", d.functions);
    json_object_set_new(facts, "calls", d.calls);
    json_object_set_new(facts, "fn_stores", d.fn_stores);
    json_object_set_new(facts, "overrides", json_array());
    json_object_set_new(facts, "clock_reads", d.clock_reads);
    json_object_set_new(facts, "timed_calls", json_array());
    json_object_set_new(facts, "interval_fields", json_array());
    json_object_set_new(facts, "atomics", d.atomics);
    json_object_set_new(facts, "events", d.events);
    json_object_set_new(facts, "event_objects", d.event_objects);
    json_object_set_new(facts, "parse_errors", json_array());
    json_object_set_new(facts, "error_count", json_integer(0));
    json_object_set_new(facts, "ignored_arguments", json_array());
    return facts;
}

void hs_nobuild_extract_all(hs_tu_input **tus, size_t n, const hs_pool_options *opt)
{
    nb_index x = {0};
    x.rd = opt->rd;
    x.root = opt->root;
    x.parser = hs_syntax_parser_new();
    x.n = n;
    x.files = hs_xcalloc(n ? n : 1, sizeof *x.files);
    x.rel = hs_xcalloc(n ? n : 1, sizeof *x.rel);
    x.global_fns = hs_strmap_create();
    x.static_fns = hs_strmap_create();
    x.by_base = hs_strmap_create();
    x.field_record = hs_strmap_create();
    x.field_decl = hs_strmap_create();
    x.field_atomic = hs_strmap_create();
    x.field_tu = hs_strmap_create();
    x.record_fields = hs_strmap_create();
    x.globals = hs_strmap_create();
    x.global_tu = hs_strmap_create();
    x.atomic_words = hs_strmap_create();
    x.macros = hs_strmap_create();
    x.macro_choice = hs_strmap_create();
    x.fn_names = hs_strmap_create();
    x.macro_calls = hs_strmap_create();
    x.atomic_names = hs_strmap_create();
    x.atomic_decl_names = hs_strmap_create();
    x.object_macros = hs_strmap_create();
    x.header_statics = hs_strmap_create();
    x.attached = hs_xcalloc(n ? n : 1, sizeof *x.attached);
    char **errors = hs_xcalloc(n ? n : 1, sizeof *errors);
    for (size_t i = 0; i < n; i++) {
        hs_syntax_lang lang = hs_syntax_lang_for_command(tus[i]->file, (const char *const *)tus[i]->argv,
                                                         (size_t)tus[i]->argc);
        x.rel[i] = opt->root ? hs_path_relative(opt->root, tus[i]->file) : hs_xstrdup(tus[i]->file);
        if (!x.parser) {
            errors[i] = hs_xstrdup("the tree-sitter runtime refused the C/C++ grammars");
            continue;
        }
        x.files[i] = hs_syntax_parse_path(x.parser, tus[i]->file, lang, &errors[i]);
        if (x.files[i]) {
            index_file(&x, i, x.files[i]);
            attach_includes(&x, i, lang);
        }
        if (opt->progress)
            fprintf(stderr, "\rhotscan: reading %zu/%zu files", i + 1, n);
    }
    if (opt->progress)
        fprintf(stderr, "\r\033[K");
    index_atomic_fields(&x);
    collect_atomic_names(&x);
    for (size_t i = 0; i < n; i++) {
        hs_tu_result r = {0};
        if (x.files[i]) {
            r.facts = document(&x, i, tus[i]);
        } else {
            r.error = errors[i] ? errors[i] : hs_xstrdup("cannot be read");
            errors[i] = NULL;
        }
        if (opt->on_result)
            opt->on_result(i, &r, opt->user);
        else
            json_decref(r.facts);
    }
    for (size_t i = 0; i < n; i++) {
        hs_syntax_file_delete(x.files[i]);
        free(x.rel[i]);
        free(errors[i]);
    }
    free(errors);
    free(x.files);
    free(x.rel);
    hs_strmap_delete(x.global_fns);
    hs_strmap_delete(x.static_fns);
    hs_strmap_delete_lists(x.by_base, NULL);
    hs_strmap_delete(x.field_record);
    hs_strmap_delete(x.field_decl);
    hs_strmap_delete(x.field_atomic);
    hs_strmap_delete(x.field_tu);
    hs_strmap_delete_lists(x.record_fields, NULL);
    hs_strmap_delete(x.globals);
    hs_strmap_delete(x.global_tu);
    hs_strmap_delete(x.atomic_words);
    hs_strmap_delete_lists(x.macros, free);
    hs_strmap_delete(x.macro_choice);
    hs_strmap_delete(x.fn_names);
    hs_strmap_delete_lists(x.macro_calls, NULL);
    hs_strmap_delete(x.atomic_names);
    hs_strmap_delete(x.atomic_decl_names);
    hs_strmap_delete(x.object_macros);
    hs_strmap_delete(x.header_statics);
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < x.attached[i].len; k++)
            hs_syntax_file_delete(x.attached[i].items[k]);
        hs_vec_free(&x.attached[i]);
    }
    free(x.attached);
    for (size_t i = 0; i < x.owned.len; i++)
        free(x.owned.items[i]);
    hs_vec_free(&x.owned);
    hs_syntax_parser_delete(x.parser);
}

/* The highest confidence a finding from syntax keeps. The text cannot see what makes most
 * hot paths rare or wide (noreturn callees, error arms, command-table fan-out) nor where an
 * atomic's result goes beyond plain assignments: measured against the full scan on redis and
 * haproxy (docs/performance.md), timer-hot-path's syntax findings were 33-58% precise and
 * atomic-seqcst-counter's 29-77%, so they stay out of the default report (low); timer-duplicate
 * (100%) and os-event keep medium. */
static const char *syntax_confidence_cap(const char *rule)
{
    if (rule && (strcmp(rule, "timer-hot-path") == 0 || strcmp(rule, "atomic-seqcst-counter") == 0))
        return "low";
    return "medium";
}

void hs_nobuild_mark_findings(json_t *findings)
{
    size_t i;
    json_t *f;
    json_array_foreach(findings, i, f) {
        json_object_set_new(f, "from_syntax", json_true());
        const char *c = json_string_value(json_object_get(f, "confidence"));
        const char *cap = syntax_confidence_cap(json_string_value(json_object_get(f, "rule")));
        if (c && strcmp(c, "low") != 0 && (strcmp(c, "high") == 0 || strcmp(cap, "low") == 0))
            json_object_set_new(f, "confidence", json_string(cap));
        json_t *fixes = json_object_get(f, "fixes");
        if (json_array_size(fixes) > 0 || json_object_get(f, "fix_unavailable")) {
            json_object_set_new(f, "fixes", json_array());
            json_object_set_new(f, "fix_unavailable",
                                json_string("found from syntax only (--no-build): without a build nothing can "
                                            "verify a fix; scan with a compile database for one"));
        }
    }
}
