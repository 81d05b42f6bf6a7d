/*
 * prefilter.c - the tree-sitter prefilter (include/hotscan/prefilter.h): decides, before
 * libclang runs, which TUs cannot contribute to any finding, so `scan --prefilter` leaves
 * them unparsed.
 *
 * Why: libclang's parse is nearly all of a scan's cost, and on a big tree many TUs (tests,
 * tools, codecs, parsers) hold no clock read, no atomic and no event, and sit on no path the
 * rules look at. Reading their text with tree-sitter costs a small fraction of a parse.
 *
 * How: every distinct file (each TU's main file and the project headers it includes, found
 * with the TU's -I/-iquote/-isystem/-idirafter/-include options, transitively, every
 * candidate that exists under the root) is read once: tree-sitter (analyzer/syntax/syntax.c)
 * gives function definitions with their bodies, callees and taken addresses, declarations
 * and calls with arguments; a token scan of the same text (comments and literals left out)
 * gives the identifiers written in code and in #if conditions, each #define's body and each
 * typedef's tokens, and the #include lines (the scan sees every line, also those an error
 * node would hide). Names are names: a static function and a method of the same base name
 * are one node, which only ever keeps more TUs. The whole-program sets (atomic names and
 * callables, the seeds, the call graph around the clock reads) are computed once over all
 * files; a TU is then kept when any of its files is relevant. docs/performance.md gives the
 * argument for each rule.
 */
#define _GNU_SOURCE
#include "hotscan/prefilter.h"

#include <ctype.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <jansson.h>

#include "hotscan/common.h"
#include "hotscan/source_file.h"
#include "hotscan/strmap.h"
#include "hotscan/syntax.h"

#define NO_ID UINT32_MAX

typedef struct {
    uint32_t *items;
    size_t len, cap;
} idvec;

static void idvec_push(idvec *v, uint32_t x)
{
    if (v->len == v->cap) {
        v->cap = v->cap ? v->cap * 2 : 8;
        v->items = hs_xrealloc(v->items, v->cap * sizeof *v->items);
    }
    v->items[v->len++] = x;
}

static void idvec_free(idvec *v)
{
    free(v->items);
    v->items = NULL;
    v->len = v->cap = 0;
}

typedef struct {
    uint32_t name;
    idvec body;
    idvec params;     /* a function-like macro's parameters */
    bool paste;       /* a macro whose body pastes tokens (`##`): names it makes are unknown */
} pf_named; /* a macro or a typedef: its name and the identifiers of its body */

typedef struct {
    uint32_t name;    /* base name */
    idvec body;       /* identifiers written in the body */
    idvec callees;    /* base names called, and names whose address it takes */
    idvec params;
    idvec pointer_callees; /* callees that may be a pointer (checked against declared names) */
    bool indirect;    /* a call through an expression or a member */
    size_t open, close; /* the body's braces */
    idvec locals;     /* parameters and non-static locals: never an atomic fact's object */
} pf_def;

typedef struct {
    uint32_t callee;  /* base name, or NO_ID */
    uint32_t object;  /* a member call's object's last identifier, or NO_ID */
    size_t def;       /* index into the file's defs, or SIZE_MAX */
    size_t offset;
    idvec args;       /* argument names (every identifier of an argument without a root name) */
} pf_call;

typedef struct {
    uint32_t name;
    idvec type;       /* identifiers of the type as written */
    bool atomic;
    bool is_static;
    hs_syntax_scope scope;
} pf_decl;

typedef struct {
    char *spelled;
    bool angled;
} pf_include;

/* A function definition the token scan sees: `name(...) ... {` at file level (or in an
 * extern "C" block or a namespace), for what a syntax error hides from the grammar. */
typedef struct {
    idvec names;      /* every `identifier (` of the head, keywords left out */
    idvec head;       /* every identifier of the head (parameters among them) */
    idvec body;       /* the body's code identifiers */
    size_t open, close; /* offsets of the body's braces */
} pf_lexdef;

typedef struct {
    char *path;
    char *dir;
    bool unsure;              /* syntax errors, a computed #include, unreadable */
    idvec code;               /* identifiers written in code and #if lines, declared names left out */
    pf_named *macros;
    size_t nmacros, cmacros;
    pf_named *typedefs;
    size_t ntypedefs, ctypedefs;
    pf_def *defs;
    size_t ndefs, cdefs;
    pf_call *calls;
    size_t ncalls, ccalls;
    pf_decl *decls;
    size_t ndecls, cdecls;
    idvec addr;               /* names whose address may be taken (in bodies and initializers) */
    idvec types;              /* typedef names and struct/union/enum/class tags */
    pf_lexdef *lexdefs;
    size_t nlexdefs, clexdefs;
    hs_vec includes;          /* pf_include* */
    bool relevant;            /* decided in the global phase */
    bool header;              /* not a main file's extension */
    bool own_atomic;          /* declares an atomic only its own text can use (a static, a
                                 local, a parameter): relevant by itself */
    char *why;                /* the first reason it is relevant (HOTSCAN_PREFILTER_DEBUG) */
} pf_file;

typedef struct {
    const hs_prefilter_options *opt;
    hs_strmap *ids;           /* name -> id + 1 */
    hs_vec names;             /* id -> name (the map's key) */
    hs_strmap *files;         /* "<lang>:<real path>" -> pf_file* */
    hs_vec file_list;
    hs_strmap *resolved;      /* include resolution cache -> hs_vec* of file keys */
    hs_syntax_parser *parser;
    uint32_t nkw;             /* ids below it are keywords (interned first) */
    size_t text_len;          /* the file being scanned: how far a token's lookahead may go */
} pf;

static uint32_t intern(pf *P, const char *s, size_t n)
{
    char small[256];
    char *key = n < sizeof small ? small : hs_xmalloc(n + 1);
    memcpy(key, s, n);
    key[n] = '\0';
    uintptr_t v = (uintptr_t)hs_strmap_get(P->ids, key);
    if (!v) {
        hs_strmap_put(P->ids, key, (void *)(uintptr_t)(P->names.len + 1));
        hs_vec_push(&P->names, (void *)hs_strmap_key(P->ids, key));
        v = P->names.len;
    }
    if (key != small)
        free(key);
    return (uint32_t)(v - 1);
}

static uint32_t intern_str(pf *P, const char *s) { return intern(P, s, strlen(s)); }

/* C and C++ keywords and the compiler's own words: never a variable or a function. */
static const char *const keywords[] = {
    "alignas", "alignof", "asm", "auto", "bool", "break", "case", "catch", "char", "char16_t", "char32_t",
    "char8_t", "class", "const", "consteval", "constexpr", "constinit", "const_cast", "continue", "decltype",
    "default", "defined", "delete", "do", "double", "dynamic_cast", "else", "enum", "explicit", "export",
    "extern", "false", "float", "for", "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace",
    "new", "noexcept", "nullptr", "operator", "private", "protected", "public", "register",
    "reinterpret_cast", "restrict", "return", "short", "signed", "sizeof", "static", "static_assert",
    "static_cast", "struct", "switch", "template", "this", "thread_local", "throw", "true", "try", "typedef",
    "typeid", "typename", "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while",
    "_Alignas", "_Alignof", "_Bool", "_Complex", "_Generic", "_Noreturn", "_Static_assert", "_Thread_local",
    "__attribute__", "__attribute", "__declspec", "__extension__", "__inline", "__inline__", "__restrict",
    "__restrict__", "__typeof__", "__typeof", "typeof", "__asm__", "__asm", "__volatile__", "__const",
    "__signed__", "__builtin_expect", "NULL", NULL};

/* The last `::` component: `ns::Cls::m` -> `m`. */
static const char *base_name(const char *q)
{
    const char *b = q;
    for (const char *p = q; p[0]; p++)
        if (p[0] == ':' && p[1] == ':')
            b = p + 2;
    return b;
}

static uint32_t intern_base(pf *P, const char *q) { return intern_str(P, base_name(q)); }

static uint32_t lookup(const pf *P, const char *s)
{
    uintptr_t v = (uintptr_t)hs_strmap_get(P->ids, s);
    return v ? (uint32_t)(v - 1) : NO_ID;
}

/* ---- the token scan ------------------------------------------------------------------ */

typedef struct {
    uint32_t id;
    size_t offset;
    bool member;      /* after `.` or `->` and not called: a field, never a function */
} pf_token;

typedef struct {
    pf_token *items;
    size_t len, cap;
} tokvec;

static bool ident_start(unsigned char c) { return isalpha(c) || c == '_' || c == '$'; }
static bool ident_char(unsigned char c) { return isalnum(c) || c == '_' || c == '$'; }

/* Skips a comment at i (s[i] == '/'); returns the index after it, or i when none starts. */
static size_t skip_comment(const char *s, size_t n, size_t i)
{
    if (i + 1 < n && s[i + 1] == '/') {
        for (i += 2; i < n && !(s[i] == '\n' && s[i - 1] != '\\'); i++)
            ;
        return i;
    }
    if (i + 1 < n && s[i + 1] == '*') {
        for (i += 2; i + 1 < n && !(s[i] == '*' && s[i + 1] == '/'); i++)
            ;
        return i + 1 < n ? i + 2 : n;
    }
    return i;
}

/* Skips a "..." or '...' literal starting at i; stops at an unescaped end of line. */
static size_t skip_quoted(const char *s, size_t n, size_t i)
{
    char q = s[i++];
    while (i < n && s[i] != q && s[i] != '\n') {
        if (s[i] == '\\' && i + 1 < n)
            i++;
        i++;
    }
    return i < n ? i + 1 : n;
}

/* A C++ raw string R"delim( ... )delim" starting at the quote i. */
static size_t skip_raw(const char *s, size_t n, size_t i)
{
    size_t d0 = i + 1, d = d0;
    while (d < n && s[d] != '(' && d - d0 < 16)
        d++;
    if (d >= n || s[d] != '(')
        return skip_quoted(s, n, i);
    size_t dl = d - d0;
    for (size_t j = d + 1; j < n; j++)
        if (s[j] == ')' && j + 1 + dl < n && memcmp(s + j + 1, s + d0, dl) == 0 && s[j + 1 + dl] == '"')
            return j + 2 + dl;
    return n;
}

/* The end of the logical line at i (backslash-newlines continue it). */
static size_t line_end(const char *s, size_t n, size_t i)
{
    while (i < n && !(s[i] == '\n' && (i == 0 || s[i - 1] != '\\')))
        i++;
    return i;
}

/* Identifiers in s[i..end), literals and comments left out. */
static void scan_idents(pf *P, const char *s, size_t i, size_t end, idvec *out, tokvec *toks)
{
    while (i < end) {
        unsigned char c = (unsigned char)s[i];
        if (c == '/') {
            size_t j = skip_comment(s, end, i);
            i = j > i ? j : i + 1;
        } else if (c == '"' || c == '\'') {
            i = skip_quoted(s, end, i);
        } else if (isdigit(c) || (c == '.' && i + 1 < end && isdigit((unsigned char)s[i + 1]))) {
            while (i < end && (ident_char((unsigned char)s[i]) || s[i] == '.' || s[i] == '\'' ||
                               ((s[i] == '+' || s[i] == '-') && strchr("eEpP", s[i - 1]))))
                i++;
        } else if (ident_start(c)) {
            size_t j = i;
            while (j < end && ident_char((unsigned char)s[j]))
                j++;
            size_t len = j - i;
            bool prefix = (len == 1 && (s[i] == 'L' || s[i] == 'u' || s[i] == 'U')) ||
                          (len == 2 && s[i] == 'u' && s[i + 1] == '8');
            bool raw = len >= 1 && s[j - 1] == 'R' &&
                       (len == 1 || (len == 2 && strchr("LuU", s[i])) || (len == 3 && s[i] == 'u' && s[i + 1] == '8'));
            if (j < end && s[j] == '"' && raw) {
                i = skip_raw(s, end, j);
            } else if (j < end && (s[j] == '"' || s[j] == '\'') && prefix) {
                i = skip_quoted(s, end, j);
            } else {
                uint32_t id = intern(P, s + i, len);
                if (out)
                    idvec_push(out, id);
                if (toks) {
                    size_t b = i, a = j;
                    while (b > 0 && (s[b - 1] == ' ' || s[b - 1] == '\t'))
                        b--;
                    size_t limit = P->text_len > end ? P->text_len : end;
                    while (a < limit && (s[a] == ' ' || s[a] == '\t'))
                        a++;
                    bool member = b > 0 && (s[b - 1] == '.' || (b > 1 && s[b - 1] == '>' && s[b - 2] == '-')) &&
                                  !(a < limit && s[a] == '(');
                    toks->items = hs_array_append(toks->items, &toks->len, &toks->cap, sizeof *toks->items);
                    toks->items[toks->len - 1] = (pf_token){id, i, member};
                }
                i = j;
            }
        } else {
            i++;
        }
    }
}

/* One preprocessor line starting after its '#'; returns the index of its end of line. */
static size_t directive(pf *P, pf_file *F, const char *s, size_t n, size_t i, tokvec *toks)
{
    size_t end = line_end(s, n, i);
    while (i < end && (s[i] == ' ' || s[i] == '\t'))
        i++;
    size_t w = i;
    while (i < end && ident_char((unsigned char)s[i]))
        i++;
    size_t wl = i - w;
#define IS(word) (wl == strlen(word) && memcmp(s + w, word, wl) == 0)
    if (IS("define")) {
        while (i < end && (s[i] == ' ' || s[i] == '\t'))
            i++;
        size_t nm = i;
        while (i < end && ident_char((unsigned char)s[i]))
            i++;
        if (i == nm)
            return end;
        F->macros = hs_array_append(F->macros, &F->nmacros, &F->cmacros, sizeof *F->macros);
        pf_named *m = &F->macros[F->nmacros - 1];
        m->name = intern(P, s + nm, i - nm);
        if (i < end && s[i] == '(') {
            size_t p0 = i;
            while (i < end && s[i] != ')')
                i++;
            scan_idents(P, s, p0, i, &m->params, NULL);
            i++;
        }
        if (i < end)
            scan_idents(P, s, i, end, &m->body, NULL);
        m->paste = memmem(s + i, end > i ? end - i : 0, "##", 2) != NULL;
    } else if (IS("include") || IS("include_next") || IS("import")) {
        while (i < end && (s[i] == ' ' || s[i] == '\t'))
            i++;
        char close = i < end && s[i] == '"' ? '"' : i < end && s[i] == '<' ? '>' : 0;
        if (!close) {
            F->unsure = true; /* #include MACRO: the prefilter cannot know the file */
            return end;
        }
        size_t a = ++i;
        while (i < end && s[i] != close)
            i++;
        pf_include *inc = hs_xcalloc(1, sizeof *inc);
        inc->spelled = hs_xstrndup(s + a, i - a);
        inc->angled = close == '>';
        hs_vec_push(&F->includes, inc);
    } else if (IS("if") || IS("elif") || IS("ifdef") || IS("ifndef") || IS("elifdef") || IS("elifndef")) {
        scan_idents(P, s, i, end, NULL, toks);
    }
#undef IS
    return end;
}

/* Code identifiers (with offsets), macros, typedefs and includes of a whole file. */
static void scan_file(pf *P, pf_file *F, const char *s, size_t n, tokvec *toks)
{
    size_t i = 0;
    bool line_start = true;
    int td_depth = -1;     /* brace depth inside a typedef, -1 outside one */
    bool td_braced = false;
    idvec td = {0};
    uint32_t td_last = NO_ID, typedef_id = intern_str(P, "typedef");
    uint32_t tag_ids[4] = {intern_str(P, "struct"), intern_str(P, "union"), intern_str(P, "enum"),
                           intern_str(P, "class")};
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\n') {
            line_start = true;
            i++;
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            i++;
        } else if (c == '\\' && i + 1 < n && s[i + 1] == '\n') {
            i += 2;
        } else if (c == '/' && skip_comment(s, n, i) > i) {
            i = skip_comment(s, n, i);
        } else if (c == '#' && line_start) {
            i = directive(P, F, s, n, i + 1, toks);
        } else {
            line_start = false;
            if (ident_start(c) || isdigit(c) || c == '"' || c == '\'' || c == '.') {
                /* one token through the shared identifier scan */
                size_t j = i;
                if (ident_start(c)) {
                    while (j < n && ident_char((unsigned char)s[j]))
                        j++;
                    if (j < n && (s[j] == '"' || s[j] == '\''))
                        j = s[j] == '"' && s[j - 1] == 'R' ? skip_raw(s, n, j) : skip_quoted(s, n, j);
                } else if (c == '"' || c == '\'') {
                    j = skip_quoted(s, n, i);
                } else {
                    j = i + 1;
                    while (j < n && (ident_char((unsigned char)s[j]) || s[j] == '.' || s[j] == '\'' ||
                                     ((s[j] == '+' || s[j] == '-') && strchr("eEpP", s[j - 1]))))
                        j++;
                }
                size_t before = toks->len;
                scan_idents(P, s, i, j, NULL, toks);
                for (size_t k = before; k < toks->len; k++) {
                    uint32_t id = toks->items[k].id;
                    if (k > 0 && (toks->items[k - 1].id == tag_ids[0] || toks->items[k - 1].id == tag_ids[1] ||
                                  toks->items[k - 1].id == tag_ids[2] || toks->items[k - 1].id == tag_ids[3]))
                        idvec_push(&F->types, id);
                    if (id == typedef_id && td_depth < 0) {
                        td_depth = 0;
                        td_braced = false;
                        td.len = 0;
                        td_last = NO_ID;
                    } else if (td_depth >= 0) {
                        idvec_push(&td, id);
                        td_last = id;
                    }
                }
                i = j;
            } else {
                if (td_depth >= 0) {
                    if (c == '{') {
                        td_depth++;
                        td_braced = true;
                    }
                    else if (c == '}' && td_depth > 0)
                        td_depth--;
                    else if (c == ';' && td_depth == 0) {
                        /* `typedef struct {...} T;` declares a record, not an alias: its
                         * fields are declarations of their own. */
                        if (td_last != NO_ID)
                            idvec_push(&F->types, td_last);
                        if (td_last != NO_ID && !td_braced) {
                            F->typedefs = hs_array_append(F->typedefs, &F->ntypedefs, &F->ctypedefs, sizeof *F->typedefs);
                            pf_named *t = &F->typedefs[F->ntypedefs - 1];
                            t->name = td_last;
                            for (size_t k = 0; k < td.len; k++)
                                idvec_push(&t->body, td.items[k]);
                        }
                        td_depth = -1;
                    }
                }
                i++;
            }
        }
    }
    idvec_free(&td);
}

/* ---- one file --------------------------------------------------------------------------- */

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* The first token at or after `offset`. */
static size_t first_token_at(const tokvec *t, size_t offset)
{
    size_t lo = 0, hi = t->len;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (t->items[mid].offset < offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* A declaration's name followed by an initializer (`= v`, `{v}`, `(v)`, after any `[N]`). */
static bool has_initializer(const char *s, size_t n, size_t after)
{
    size_t i = after;
    for (;;) {
        while (i < n && isspace((unsigned char)s[i]))
            i++;
        if (i < n && s[i] == '[') {
            while (i < n && s[i] != ']')
                i++;
            i++;
            continue;
        }
        break;
    }
    return i < n && (s[i] == '=' || s[i] == '{' || s[i] == '(');
}

/* The offset just past the bracket matching s[i] ('(' or '{'), literals and comments skipped. */
static size_t match_close(const char *s, size_t n, size_t i)
{
    char open = s[i], close = open == '(' ? ')' : '}';
    int depth = 0;
    while (i < n) {
        char c = s[i];
        if (c == '/' && skip_comment(s, n, i) > i) {
            i = skip_comment(s, n, i);
            continue;
        }
        if (c == '"' || c == '\'') {
            i = skip_quoted(s, n, i);
            continue;
        }
        if (c == open)
            depth++;
        else if (c == close && --depth == 0)
            return i + 1;
        i++;
    }
    return n;
}

/*
 * The object an argument names: its last identifier outside brackets and parentheses
 * (`&p->stats[i].n` -> n, `server.hits` -> hits, `(long *)&x` -> x), else the last one
 * inside them (`*(p + 1)` -> p). Keywords are never one.
 */
static uint32_t arg_root(pf *P, const char *s, size_t i, size_t end)
{
    uint32_t outer = NO_ID, inner = NO_ID;
    int depth = 0;
    while (i < end) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\'') {
            i = skip_quoted(s, end, i);
        } else if (c == '/' && skip_comment(s, end, i) > i) {
            i = skip_comment(s, end, i);
        } else if (isdigit(c)) {
            while (i < end && (ident_char((unsigned char)s[i]) || s[i] == '.'))
                i++;
        } else if (ident_start(c)) {
            size_t j = i;
            while (j < end && ident_char((unsigned char)s[j]))
                j++;
            uint32_t id = intern(P, s + i, j - i);
            if (id >= P->nkw) {
                inner = id;
                if (depth == 0)
                    outer = id;
            }
            i = j;
        } else {
            if (c == '(' || c == '[')
                depth++;
            else if ((c == ')' || c == ']') && depth > 0)
                depth--;
            i++;
        }
    }
    return outer != NO_ID ? outer : inner;
}

/* Each comma-separated argument's root (arg_root) of the call whose '(' is at `open`. */
static void call_arg_roots(pf *P, const char *s, size_t open, size_t close, idvec *out)
{
    int depth = 0;
    size_t start = open + 1;
    for (size_t i = open + 1; i < close; i++) {
        char c = s[i];
        if (c == '"' || c == '\'') {
            i = skip_quoted(s, close, i) - 1;
        } else if (c == '(' || c == '[' || c == '{') {
            depth++;
        } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
            depth--;
        } else if ((c == ',' && depth == 0) || (c == ')' && depth == 0)) {
            uint32_t r = arg_root(P, s, start, i);
            if (r != NO_ID)
                idvec_push(out, r);
            start = i + 1;
        }
    }
}

/*
 * Function definitions by their shape: at file level (extern "C" blocks and namespaces are
 * looked through), a head with `identifier (` and no `=` before a `{`. And every call
 * `identifier (...)` in code with the identifiers of its arguments. Directives, literals and
 * comments are skipped as in scan_file.
 */
static void scan_shapes(pf *P, pf_file *F, const char *s, size_t n)
{
    size_t i = 0, head = 0;
    bool line_start = true;
    int depth = 0;            /* non-transparent brace depth */
    int transparent[256];     /* per open brace: 1 when it is an extern "C" or namespace block */
    int nopen = 0;
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\n') {
            line_start = true;
            i++;
            continue;
        }
        if (isspace(c)) {
            i++;
            continue;
        }
        if (c == '/' && skip_comment(s, n, i) > i) {
            i = skip_comment(s, n, i);
            continue;
        }
        if (c == '#' && line_start) {
            i = line_end(s, n, i + 1);
            if (depth == 0)
                head = i;
            continue;
        }
        line_start = false;
        if (c == '"' || c == '\'') {
            i = skip_quoted(s, n, i);
            continue;
        }
        if (ident_start(c)) {
            size_t j = i;
            while (j < n && ident_char((unsigned char)s[j]))
                j++;
            size_t k = j;
            while (k < n && (s[k] == ' ' || s[k] == '\t'))
                k++;
            if (k < n && s[k] == '(') {
                uint32_t id = intern(P, s + i, j - i);
                if (!(id < P->nkw)) {
                    F->calls = hs_array_append(F->calls, &F->ncalls, &F->ccalls, sizeof *F->calls);
                    pf_call *call = &F->calls[F->ncalls - 1];
                    call->callee = id;
                    call->object = NO_ID;
                    call->def = SIZE_MAX;
                    call->offset = i;
                    size_t e = match_close(s, n, k);
                    call_arg_roots(P, s, k, e, &call->args);
                }
            }
            i = j;
            continue;
        }
        if (isdigit(c)) {
            while (i < n && (ident_char((unsigned char)s[i]) || s[i] == '.'))
                i++;
            continue;
        }
        if (c == ';' && depth == 0) {
            head = i + 1;
        } else if (c == '{') {
            bool trans = false;
            if (depth == 0) {
                idvec h = {0}, names = {0};
                /* the head's identifiers, and those followed by '(' at parenthesis depth 0 */
                int pd = 0;
                bool assign = false, ext_c = false, ns = false;
                uint32_t ext = intern_str(P, "extern"), nsid = intern_str(P, "namespace");
                for (size_t q = head; q < i;) {
                    unsigned char hc = (unsigned char)s[q];
                    if (hc == '/' && skip_comment(s, i, q) > q) {
                        q = skip_comment(s, i, q);
                    } else if (hc == '"' || hc == '\'') {
                        if (h.len && h.items[h.len - 1] == ext)
                            ext_c = true;
                        q = skip_quoted(s, i, q);
                    } else if (ident_start(hc)) {
                        size_t e = q;
                        while (e < i && ident_char((unsigned char)s[e]))
                            e++;
                        uint32_t id = intern(P, s + q, e - q);
                        idvec_push(&h, id);
                        if (id == nsid)
                            ns = true;
                        size_t z = e;
                        while (z < i && isspace((unsigned char)s[z]))
                            z++;
                        if (pd == 0 && z < i && s[z] == '(' && !(id < P->nkw))
                            idvec_push(&names, id);
                        q = e;
                    } else {
                        if (hc == '(')
                            pd++;
                        else if (hc == ')')
                            pd--;
                        else if (hc == '=' && pd == 0 && !(q + 1 < i && s[q + 1] == '='))
                            assign = true;
                        q++;
                    }
                }
                if (ext_c || ns) {
                    trans = true;
                } else if (!assign && names.len) {
                    F->lexdefs = hs_array_append(F->lexdefs, &F->nlexdefs, &F->clexdefs, sizeof *F->lexdefs);
                    pf_lexdef *d = &F->lexdefs[F->nlexdefs - 1];
                    d->names = names;
                    d->head = h;
                    d->open = i;
                    d->close = match_close(s, n, i);
                    names = (idvec){0};
                    h = (idvec){0};
                }
                idvec_free(&h);
                idvec_free(&names);
            }
            if (nopen < 256)
                transparent[nopen] = trans;
            nopen++;
            if (!trans)
                depth++;
            if (depth == 0)
                head = i + 1;
        } else if (c == '}') {
            if (nopen > 0) {
                nopen--;
                if (!(nopen < 256 && transparent[nopen]) && depth > 0)
                    depth--;
            }
            if (depth == 0)
                head = i + 1;
        }
        i++;
    }
}

static void read_file_facts(pf *P, pf_file *F, hs_syntax_lang lang)
{
    size_t len = 0;
    char *problem = NULL; /* a FIFO is no hang (source_file.h): the TU is kept, its reader says why */
    char *text = hs_source_file_read(F->path, (size_t)256 << 20, &len, &problem);
    free(problem);
    if (!text) {
        F->unsure = true;
        return;
    }
    tokvec toks = {0};
    P->text_len = len;
    scan_file(P, F, text, len, &toks);
    P->text_len = 0;
    scan_shapes(P, F, text, len);
    char *perr = NULL;
    hs_syntax_file *sf = hs_syntax_parse_text(P->parser, F->path, text, len, lang, &perr);
    free(perr);
    if (!sf || (hs_syntax_error_count(sf) > 0 && lang == HS_SYNTAX_CPP)) {
        /* What an error node hides from the grammar (a function it did not see as one) is
         * found by its shape in C (scan_shapes); C++ methods sit in class bodies, which the
         * shape scan does not look into: every TU that includes such a file is kept. */
        F->unsure = true;
    }
    if (sf) {
        size_t nd, nf, nc, na, nt;
        const hs_syntax_decl *decls = hs_syntax_decls(sf, &nd);
        const hs_syntax_function *fns = hs_syntax_functions(sf, &nf);
        const hs_syntax_call *calls = hs_syntax_calls(sf, &nc);
        const hs_syntax_arg *args = hs_syntax_args(sf, &na);
        const char *const *taken = hs_syntax_file_address_taken(sf, &nt);
        /* Declared names are not uses: a header declaring an atomic field does not make every
         * TU that includes it relevant. A declaration with an initializer keeps its name
         * (an atomic's initialization may be an operation). */
        size_t *drop = hs_xmalloc((nd ? nd : 1) * sizeof *drop);
        size_t ndrop = 0;
        for (size_t i = 0; i < nd; i++) {
            F->decls = hs_array_append(F->decls, &F->ndecls, &F->cdecls, sizeof *F->decls);
            pf_decl *d = &F->decls[F->ndecls - 1];
            d->name = intern_str(P, decls[i].name);
            d->atomic = decls[i].atomic;
            d->is_static = decls[i].is_static;
            d->scope = decls[i].scope;
            if (decls[i].type)
                scan_idents(P, decls[i].type, 0, strlen(decls[i].type), &d->type, NULL);
            if (!has_initializer(text, len, decls[i].span.offset + decls[i].span.length))
                drop[ndrop++] = decls[i].span.offset;
        }
        qsort(drop, ndrop, sizeof *drop, cmp_size);
        for (size_t k = 0; k < toks.len; k++)
            if (!bsearch(&toks.items[k].offset, drop, ndrop, sizeof *drop, cmp_size))
                idvec_push(&F->code, toks.items[k].id);
        free(drop);
        for (size_t i = 0; i < nt; i++)
            idvec_push(&F->addr, intern_str(P, taken[i]));
        for (size_t i = 0; i < nf; i++) {
            const hs_syntax_function *fn = &fns[i];
            F->defs = hs_array_append(F->defs, &F->ndefs, &F->cdefs, sizeof *F->defs);
            pf_def *d = &F->defs[F->ndefs - 1];
            d->name = intern_str(P, fn->base_name ? fn->base_name : base_name(fn->name));
            d->open = fn->body.offset;
            d->close = fn->body.offset + fn->body.length;
            size_t end = fn->body.offset + fn->body.length;
            for (size_t k = first_token_at(&toks, fn->body.offset); k < toks.len && toks.items[k].offset < end; k++)
                if (!toks.items[k].member)
                    idvec_push(&d->body, toks.items[k].id);
            for (size_t k = 0; k < fn->ncallees; k++)
                idvec_push(&d->callees, intern_base(P, fn->callees[k]));
            for (size_t k = 0; k < fn->naddress_taken; k++) {
                uint32_t id = intern_str(P, fn->address_taken[k]);
                idvec_push(&d->callees, id);
                idvec_push(&F->addr, id);
            }
            for (size_t k = fn->first_call; k < fn->first_call + fn->ncalls && k < nc; k++) {
                if (!calls[k].callee || calls[k].object)
                    d->indirect = true;
                else
                    idvec_push(&d->pointer_callees, intern_base(P, calls[k].callee));
            }
        }
        for (size_t i = 0; i < nd; i++) {
            if (decls[i].function >= F->ndefs)
                continue;
            /* A wrapper's object is a pointer parameter (param:<function>:<index>). */
            if (decls[i].scope == HS_SYNTAX_SCOPE_PARAM && decls[i].pointer)
                idvec_push(&F->defs[decls[i].function].params, intern_str(P, decls[i].name));
            if (decls[i].scope == HS_SYNTAX_SCOPE_PARAM || (decls[i].scope == HS_SYNTAX_SCOPE_LOCAL && !decls[i].is_static))
                idvec_push(&F->defs[decls[i].function].locals, intern_str(P, decls[i].name));
        }
        /* A body's own variables are not calls: they leave its edges (a local named like
         * some function would tie the two together). */
        for (size_t k = 0; k < F->ndefs; k++) {
            pf_def *d = &F->defs[k];
            idvec vars = {0};
            for (size_t i = 0; i < nd; i++)
                if (decls[i].function == k)
                    idvec_push(&vars, intern_str(P, decls[i].name));
            size_t w = 0;
            for (size_t b = 0; b < d->body.len; b++) {
                bool var = d->body.items[b] < P->nkw;
                for (size_t v = 0; v < vars.len && !var; v++)
                    var = vars.items[v] == d->body.items[b];
                if (!var)
                    d->body.items[w++] = d->body.items[b];
            }
            d->body.len = w;
            idvec_free(&vars);
        }
        /* The token scan's calls (made before the grammar's definitions were known) get
         * their enclosing definition, the innermost. */
        for (size_t i = 0; i < F->ncalls; i++) {
            size_t best = SIZE_MAX;
            for (size_t k = 0; k < F->ndefs; k++)
                if (F->defs[k].open <= F->calls[i].offset && F->calls[i].offset < F->defs[k].close &&
                    (best == SIZE_MAX || F->defs[k].open > F->defs[best].open))
                    best = k;
            F->calls[i].def = best;
        }
        for (size_t i = 0; i < nc; i++) {
            F->calls = hs_array_append(F->calls, &F->ncalls, &F->ccalls, sizeof *F->calls);
            pf_call *c = &F->calls[F->ncalls - 1];
            c->callee = calls[i].callee ? intern_base(P, calls[i].callee) : NO_ID;
            c->def = calls[i].function == HS_SYNTAX_NONE ? SIZE_MAX : calls[i].function;
            c->offset = calls[i].span.offset;
            c->object = NO_ID;
            if (calls[i].object) {
                idvec ob = {0};
                scan_idents(P, calls[i].object, 0, strlen(calls[i].object), &ob, NULL);
                if (ob.len)
                    c->object = ob.items[ob.len - 1];
                idvec_free(&ob);
            }
            for (size_t k = calls[i].first_arg; k < calls[i].first_arg + calls[i].nargs && k < na; k++) {
                uint32_t r = args[k].name ? intern_str(P, args[k].name)
                           : args[k].text ? arg_root(P, args[k].text, 0, strlen(args[k].text)) : NO_ID;
                if (r != NO_ID)
                    idvec_push(&c->args, r);
            }
        }
        hs_syntax_file_delete(sf);
    } else {
        for (size_t k = 0; k < toks.len; k++)
            idvec_push(&F->code, toks.items[k].id);
    }
    for (size_t i = 0; i < F->nlexdefs; i++) {
        pf_lexdef *d = &F->lexdefs[i];
        for (size_t k = first_token_at(&toks, d->open); k < toks.len && toks.items[k].offset < d->close; k++)
            if (!toks.items[k].member)
                idvec_push(&d->body, toks.items[k].id);
    }
    free(toks.items);
    free(text);
}

static void add_def(pf_file *F, uint32_t name, const pf_lexdef *ld)
{
    F->defs = hs_array_append(F->defs, &F->ndefs, &F->cdefs, sizeof *F->defs);
    pf_def *d = &F->defs[F->ndefs - 1];
    d->name = name;
    d->open = ld->open;
    d->close = ld->close;
    d->indirect = true; /* the text was not parsed: assume the worst */
    for (size_t k = 0; k < ld->body.len; k++)
        idvec_push(&d->body, ld->body.items[k]);
    for (size_t k = 0; k < ld->head.len; k++)
        idvec_push(&d->params, ld->head.items[k]);
}

/*
 * The definitions the grammar missed (in an error node) join the file's, under every name
 * of their head; one whose head is a function-like macro (`DEFINE_CMD(get) {...}`) is also
 * named by the head's other identifiers, since the macro makes the function's name of
 * them. A macro that pastes tokens makes names no text shows: the file is unsure.
 */
static void add_shape_defs(pf *P, pf_file *F, const bool *is_macro, const bool *pastes)
{
    size_t nts = F->ndefs;
    for (size_t i = 0; i < F->nlexdefs; i++) {
        const pf_lexdef *ld = &F->lexdefs[i];
        bool parsed = false;
        for (size_t k = 0; k < nts && !parsed; k++)
            parsed = F->defs[k].open == ld->open;
        bool by_macro = false;
        for (size_t k = 0; k < ld->names.len; k++) {
            by_macro |= is_macro[ld->names.items[k]];
            if (pastes[ld->names.items[k]])
                F->unsure = true;
        }
        if (!parsed)
            for (size_t k = 0; k < ld->names.len; k++)
                add_def(F, ld->names.items[k], ld);
        if (by_macro)
            for (size_t k = 0; k < ld->head.len; k++)
                if (ld->head.items[k] >= P->nkw && !is_macro[ld->head.items[k]])
                    add_def(F, ld->head.items[k], ld);
    }
}

static pf_file *get_file(pf *P, const char *real, hs_syntax_lang lang)
{
    char *key = hs_printf("%d:%s", (int)lang, real);
    pf_file *F = hs_strmap_get(P->files, key);
    if (!F) {
        F = hs_xcalloc(1, sizeof *F);
        F->path = hs_xstrdup(real);
        F->dir = hs_dirname(real);
        const char *dot = strrchr(real, '.');
        static const char *const mains[] = {".c", ".cc", ".cpp", ".cxx", ".c++", ".C", ".i", ".ii", ".m", ".mm", NULL};
        F->header = true;
        for (size_t i = 0; dot && mains[i]; i++)
            if (strcmp(dot, mains[i]) == 0)
                F->header = false;
        hs_strmap_put(P->files, key, F);
        hs_vec_push(&P->file_list, F);
        read_file_facts(P, F, lang);
    }
    free(key);
    return F;
}

static void file_free(pf_file *F)
{
    free(F->path);
    free(F->dir);
    free(F->why);
    idvec_free(&F->code);
    idvec_free(&F->addr);
    idvec_free(&F->types);
    for (size_t i = 0; i < F->nmacros; i++) {
        idvec_free(&F->macros[i].body);
        idvec_free(&F->macros[i].params);
    }
    free(F->macros);
    for (size_t i = 0; i < F->ntypedefs; i++)
        idvec_free(&F->typedefs[i].body);
    free(F->typedefs);
    for (size_t i = 0; i < F->ndefs; i++) {
        idvec_free(&F->defs[i].body);
        idvec_free(&F->defs[i].callees);
        idvec_free(&F->defs[i].params);
        idvec_free(&F->defs[i].pointer_callees);
        idvec_free(&F->defs[i].locals);
    }
    free(F->defs);
    for (size_t i = 0; i < F->nlexdefs; i++) {
        idvec_free(&F->lexdefs[i].names);
        idvec_free(&F->lexdefs[i].head);
        idvec_free(&F->lexdefs[i].body);
    }
    free(F->lexdefs);
    for (size_t i = 0; i < F->ncalls; i++)
        idvec_free(&F->calls[i].args);
    free(F->calls);
    for (size_t i = 0; i < F->ndecls; i++)
        idvec_free(&F->decls[i].type);
    free(F->decls);
    for (size_t i = 0; i < F->includes.len; i++) {
        pf_include *inc = F->includes.items[i];
        free(inc->spelled);
        free(inc);
    }
    hs_vec_free(&F->includes);
    free(F);
}

/* ---- a TU's files ------------------------------------------------------------------------ */

typedef struct {
    hs_vec quote, angle;      /* char*: search folders, absolute */
    hs_vec forced;            /* char*: -include files, absolute */
    char *sig;                /* the folders, for the resolution cache key */
} search_paths;

static char *absolute_in(const char *dir, const char *p)
{
    return p[0] == '/' || !dir ? hs_xstrdup(p) : hs_path_join(dir, p);
}

static void search_paths_of(const hs_tu_input *in, search_paths *sp)
{
    memset(sp, 0, sizeof *sp);
    hs_vec iquote = {0}, inc = {0}, sys = {0}, after = {0};
    for (int i = 1; i < in->argc; i++) {
        const char *a = in->argv[i];
        static const struct {
            const char *opt;
            int which; /* 0 iquote, 1 -I, 2 isystem, 3 idirafter, 4 -include, 5 -imacros */
        } opts[] = {{"-iquote", 0}, {"-I", 1}, {"--include-directory=", 1}, {"-isystem", 2},
                    {"-idirafter", 3}, {"-include", 4}, {"--include=", 4}, {"-imacros", 5}};
        for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++) {
            size_t ol = strlen(opts[k].opt);
            if (strncmp(a, opts[k].opt, ol) != 0)
                continue;
            const char *v = a[ol] ? a + ol : (i + 1 < in->argc ? in->argv[++i] : NULL);
            if (!v)
                break;
            char *abs = absolute_in(in->directory, v);
            hs_vec *to = opts[k].which == 0 ? &iquote : opts[k].which == 1 ? &inc
                       : opts[k].which == 2 ? &sys : opts[k].which == 3 ? &after : &sp->forced;
            hs_vec_push(to, abs);
            break;
        }
    }
    hs_vec *order[] = {&iquote, &inc, &sys, &after};
    hs_buf b;
    hs_buf_init(&b);
    for (size_t k = 0; k < 4; k++) {
        for (size_t i = 0; i < order[k]->len; i++) {
            hs_vec_push(&sp->quote, hs_xstrdup(order[k]->items[i]));
            if (k > 0)
                hs_vec_push(&sp->angle, hs_xstrdup(order[k]->items[i]));
            hs_buf_printf(&b, "%zu:%s\n", k, (char *)order[k]->items[i]);
        }
        for (size_t i = 0; i < order[k]->len; i++)
            free(order[k]->items[i]);
        hs_vec_free(order[k]);
    }
    sp->sig = hs_buf_take(&b);
}

static void search_paths_free(search_paths *sp)
{
    for (size_t i = 0; i < sp->quote.len; i++)
        free(sp->quote.items[i]);
    for (size_t i = 0; i < sp->angle.len; i++)
        free(sp->angle.items[i]);
    for (size_t i = 0; i < sp->forced.len; i++)
        free(sp->forced.items[i]);
    hs_vec_free(&sp->quote);
    hs_vec_free(&sp->angle);
    hs_vec_free(&sp->forced);
    free(sp->sig);
}

/* Every existing candidate of an #include under the root (more files only ever keep more). */
static hs_vec *resolve(pf *P, const search_paths *sp, const pf_file *from, const pf_include *inc)
{
    char *key = hs_printf("%s\n%s\n%d\n%s", sp->sig, from->dir, inc->angled, inc->spelled);
    hs_vec *got = hs_strmap_get(P->resolved, key);
    if (!got) {
        got = hs_xcalloc(1, sizeof *got);
        hs_vec cands = {0};
        if (inc->spelled[0] == '/')
            hs_vec_push(&cands, hs_xstrdup(inc->spelled));
        else {
            if (!inc->angled)
                hs_vec_push(&cands, hs_path_join(from->dir, inc->spelled));
            const hs_vec *dirs = inc->angled ? &sp->angle : &sp->quote;
            for (size_t i = 0; i < dirs->len; i++)
                hs_vec_push(&cands, hs_path_join(dirs->items[i], inc->spelled));
        }
        for (size_t i = 0; i < cands.len; i++) {
            struct stat st;
            if (stat(cands.items[i], &st) == 0 && S_ISREG(st.st_mode)) {
                char *real = hs_realpath(cands.items[i]);
                if (real && hs_path_is_under(P->opt->root, real))
                    hs_vec_push(got, real);
                else
                    free(real);
            }
            free(cands.items[i]);
        }
        hs_vec_free(&cands);
        hs_strmap_put(P->resolved, key, got);
    }
    free(key);
    return got;
}

/* The TU's files: its main file, its -include files and the project headers they include. */
static void tu_files(pf *P, const hs_tu_input *in, hs_vec *out)
{
    search_paths sp;
    search_paths_of(in, &sp);
    hs_syntax_lang lang = hs_syntax_lang_for_command(in->file, (const char *const *)in->argv, (size_t)in->argc);
    hs_strmap *seen = hs_strmap_create();
    hs_vec todo = {0};
    char *main_real = hs_realpath(in->file);
    if (main_real)
        hs_vec_push(&todo, main_real);
    for (size_t i = 0; i < sp.forced.len; i++) {
        char *r = hs_realpath(sp.forced.items[i]);
        if (r && hs_path_is_under(P->opt->root, r))
            hs_vec_push(&todo, r);
        else
            free(r);
    }
    for (size_t head = 0; head < todo.len; head++) {
        char *path = todo.items[head];
        if (hs_strmap_has(seen, path))
            continue;
        hs_strmap_put(seen, path, (void *)1);
        /* Headers are read in the TU's language (a C++ project's .h holds C++). */
        pf_file *F = get_file(P, path, lang);
        hs_vec_push(out, F);
        for (size_t i = 0; i < F->includes.len; i++) {
            hs_vec *r = resolve(P, &sp, F, F->includes.items[i]);
            for (size_t k = 0; k < r->len; k++)
                if (!hs_strmap_has(seen, r->items[k]))
                    hs_vec_push(&todo, hs_xstrdup(r->items[k]));
        }
    }
    if (!main_real) {
        /* An unreadable main file: keep the TU (libclang will say what is wrong). */
        pf_file *F = hs_xcalloc(1, sizeof *F);
        F->unsure = true;
        F->path = hs_xstrdup(in->file);
        F->dir = hs_xstrdup(".");
        hs_vec_push(&P->file_list, F);
        hs_vec_push(out, F);
    }
    for (size_t i = 0; i < todo.len; i++)
        free(todo.items[i]);
    hs_vec_free(&todo);
    hs_strmap_delete(seen);
    search_paths_free(&sp);
}

/* ---- the whole program -------------------------------------------------------------------- */

/* Graph over name ids in compressed rows. */
typedef struct {
    size_t *start;  /* n + 1 */
    uint32_t *to;
} graph;

typedef struct {
    uint32_t from, to;
} edge;

typedef struct {
    edge *items;
    size_t len, cap;
} edgevec;

static void add_edge(edgevec *e, uint32_t from, uint32_t to)
{
    e->items = hs_array_append(e->items, &e->len, &e->cap, sizeof *e->items);
    e->items[e->len - 1] = (edge){from, to};
}

static void build_graph(graph *g, size_t n, const edgevec *e, bool reverse)
{
    g->start = hs_xcalloc(n + 1, sizeof *g->start);
    g->to = hs_xmalloc((e->len ? e->len : 1) * sizeof *g->to);
    for (size_t i = 0; i < e->len; i++)
        g->start[(reverse ? e->items[i].to : e->items[i].from) + 1]++;
    for (size_t i = 0; i < n; i++)
        g->start[i + 1] += g->start[i];
    size_t *fill = hs_xmalloc((n ? n : 1) * sizeof *fill);
    memcpy(fill, g->start, n * sizeof *fill);
    for (size_t i = 0; i < e->len; i++) {
        uint32_t a = reverse ? e->items[i].to : e->items[i].from;
        g->to[fill[a]++] = reverse ? e->items[i].from : e->items[i].to;
    }
    free(fill);
}

static void graph_free(graph *g)
{
    free(g->start);
    free(g->to);
}

/* Marks everything reachable from the marked ids (in place). */
static void reach(const graph *g, size_t n, bool *mark)
{
    uint32_t *queue = hs_xmalloc((n ? n : 1) * sizeof *queue);
    size_t qn = 0;
    for (size_t i = 0; i < n; i++)
        if (mark[i])
            queue[qn++] = (uint32_t)i;
    for (size_t h = 0; h < qn; h++)
        for (size_t k = g->start[queue[h]]; k < g->start[queue[h] + 1]; k++)
            if (!mark[g->to[k]]) {
                mark[g->to[k]] = true;
                queue[qn++] = g->to[k];
            }
    free(queue);
}

static bool any_marked(const idvec *v, const bool *mark)
{
    for (size_t i = 0; i < v->len; i++)
        if (mark[v->items[i]])
            return true;
    return false;
}

/* Marks every id whose name starts with `prefix`. */
static void mark_prefix(const pf *P, bool *mark, const char *prefix)
{
    size_t pl = strlen(prefix);
    for (size_t i = 0; i < P->names.len; i++)
        if (strncmp(P->names.items[i], prefix, pl) == 0)
            mark[i] = true;
}

/* A rule-data name: its base name, or every name with its prefix for `name*`. */
static void mark_name(pf *P, bool *mark, const char *qualified)
{
    const char *b = base_name(qualified);
    size_t bl = strlen(b);
    if (bl && b[bl - 1] == '*') {
        char *pre = hs_xstrndup(b, bl - 1);
        mark_prefix(P, mark, pre);
        free(pre);
    } else {
        uint32_t id = lookup(P, b);
        if (id != NO_ID)
            mark[id] = true;
    }
}

/* Macros and typedefs whose bodies name a marked id become marked, to a fixpoint. */
static bool close_over_bodies(const pf *P, bool *mark, bool typedefs_too)
{
    bool changed_any = false, changed = true;
    while (changed) {
        changed = false;
        for (size_t f = 0; f < P->file_list.len; f++) {
            const pf_file *F = P->file_list.items[f];
            for (size_t i = 0; i < F->nmacros; i++)
                if (!mark[F->macros[i].name] && any_marked(&F->macros[i].body, mark))
                    mark[F->macros[i].name] = changed = true;
            for (size_t i = 0; typedefs_too && i < F->ntypedefs; i++)
                if (!mark[F->typedefs[i].name] && any_marked(&F->typedefs[i].body, mark))
                    mark[F->typedefs[i].name] = changed = true;
        }
        changed_any |= changed;
    }
    return changed_any;
}

static const char *const atomic_members[] = {
    "load", "store", "exchange", "fetch_add", "fetch_sub", "fetch_and", "fetch_or", "fetch_xor",
    "compare_exchange_weak", "compare_exchange_strong", "wait", "notify_one", "notify_all",
    "test_and_set", "clear", "test", NULL};

static void decide_files(pf *P)
{
    const hs_ruledata *rd = P->opt->rd;
    /* Ids the rule data names, interned now so every lookup below finds them. */
    for (size_t i = 0; rd && i < rd->timers.len; i++)
        intern_base(P, ((hs_timer_api *)rd->timers.items[i])->name);
    const char *k;
    void *v;
    for (size_t it = 0; rd && rd->blocking && hs_strmap_next(rd->blocking, &it, &k, &v);)
        intern_base(P, k);
    intern_str(P, "*indirect*");
    intern_str(P, "*operators*");
    size_t n = P->names.len;
    bool *is_def = hs_xcalloc(n, 1), *is_macro = hs_xcalloc(n, 1), *is_var = hs_xcalloc(n, 1);
    bool *pastes = hs_xcalloc(n, 1);
    for (size_t f = 0; f < P->file_list.len; f++) {
        const pf_file *F = P->file_list.items[f];
        for (size_t i = 0; i < F->nmacros; i++) {
            is_macro[F->macros[i].name] = true;
            pastes[F->macros[i].name] |= F->macros[i].paste;
        }
    }
    for (size_t f = 0; f < P->file_list.len; f++)
        add_shape_defs(P, P->file_list.items[f], is_macro, pastes);
    free(pastes);
    for (size_t f = 0; f < P->file_list.len; f++) {
        const pf_file *F = P->file_list.items[f];
        for (size_t i = 0; i < F->ndefs; i++)
            is_def[F->defs[i].name] = true;
        for (size_t i = 0; i < F->nmacros; i++)
            is_macro[F->macros[i].name] = true;
        for (size_t i = 0; i < F->ndecls; i++)
            is_var[F->decls[i].name] = true;
    }

    /* Atomic types: the language's, the rule data's relaxed classes, and the macros and
     * typedefs that name one (redis: `#define redisAtomic _Atomic`). */
    bool *atype = hs_xcalloc(n, 1);
    static const char *const atomic_types[] = {"_Atomic", "atomic", "atomic_flag", "atomic_ref", NULL};
    for (size_t i = 0; atomic_types[i]; i++)
        mark_name(P, atype, atomic_types[i]);
    mark_prefix(P, atype, "atomic_");
    for (size_t it = 0; rd && rd->relaxed_types && hs_strmap_next(rd->relaxed_types, &it, &k, &v);)
        mark_name(P, atype, k);
    close_over_bodies(P, atype, true);

    /* Atomic callables (the built-in families, the rule data's wrappers, macros over them,
     * functions that apply one to a parameter) and atomic names (variables and fields of an
     * atomic type, and whatever is handed to an atomic callable), to a fixpoint. */
    bool *acall = hs_xcalloc(n, 1), *aname = hs_xcalloc(n, 1);
    static const char *const atomic_prefixes[] = {"__atomic_", "__sync_", "__c11_atomic_", "atomic_",
                                                  "_Interlocked", "Interlocked", NULL};
    for (size_t i = 0; atomic_prefixes[i]; i++)
        mark_prefix(P, acall, atomic_prefixes[i]);
    /* The built-in families and the rule data's wrappers name their object by position:
     * argument 0, or the wrapper's object_arg. Other callables (macros, project wrappers)
     * count every argument. */
    int *object_arg = hs_xmalloc(n * sizeof *object_arg);
    for (size_t i = 0; i < n; i++)
        object_arg[i] = acall[i] ? 0 : -1;
    for (size_t i = 0; rd && i < rd->atomic_wrappers.len; i++) {
        json_t *w = rd->atomic_wrappers.items[i];
        const char *name = json_string_value(json_object_get(w, "name"));
        if (!name)
            continue;
        bool *one = hs_xcalloc(n, 1);
        mark_name(P, one, name);
        json_t *oa = json_object_get(w, "object_arg");
        for (size_t k2 = 0; k2 < n; k2++)
            if (one[k2]) {
                acall[k2] = true;
                object_arg[k2] = json_is_integer(oa) ? (int)json_integer_value(oa) : 0;
            }
        free(one);
    }
    for (size_t f = 0; f < P->file_list.len; f++) {
        const pf_file *F = P->file_list.items[f];
        for (size_t i = 0; i < F->ndecls; i++)
            if (F->decls[i].atomic || any_marked(&F->decls[i].type, atype)) {
                /* A header's field or global, or a main file's extern global, is every
                 * file's; a main file's static or record (a type defined in a .c file is
                 * that TU's), a local or a parameter is its own file's, which is then
                 * relevant: its facts name it. */
                const pf_decl *d = &F->decls[i];
                if ((F->header && (d->scope == HS_SYNTAX_SCOPE_FIELD || d->scope == HS_SYNTAX_SCOPE_FILE)) ||
                    (!F->header && d->scope == HS_SYNTAX_SCOPE_FILE && !d->is_static))
                    aname[d->name] = true;
                else
                    ((pf_file *)F)->own_atomic = true;
            }
    }
    /* What can never be an atomic fact's object: keywords, type names, `*_t` names,
     * functions. */
    bool *not_object = hs_xcalloc(n, 1);
    for (size_t i = 0; i < n; i++) {
        const char *nm = P->names.items[i];
        size_t l = strlen(nm);
        not_object[i] = i < P->nkw || is_def[i] || (l > 2 && nm[l - 2] == '_' && nm[l - 1] == 't');
    }
    for (size_t f = 0; f < P->file_list.len; f++) {
        const pf_file *F = P->file_list.items[f];
        for (size_t i = 0; i < F->types.len; i++)
            not_object[F->types.items[i]] = true;
    }
    /* A macro that names no identifier is a constant (`#define C_OK 0`): not an object
     * (every definition of the name must be one). */
    bool *names_something = hs_xcalloc(n, 1);
    for (size_t f = 0; f < P->file_list.len; f++) {
        const pf_file *F = P->file_list.items[f];
        for (size_t i = 0; i < F->nmacros; i++)
            for (size_t b = 0; b < F->macros[i].body.len; b++)
                names_something[F->macros[i].name] |= F->macros[i].body.items[b] >= P->nkw;
    }
    for (size_t i = 0; i < n; i++)
        if (is_macro[i] && !names_something[i])
            not_object[i] = true;
    free(names_something);
    bool *amember = hs_xcalloc(n, 1);
    for (size_t i = 0; atomic_members[i]; i++)
        mark_name(P, amember, atomic_members[i]);
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t f = 0; f < P->file_list.len; f++) {
            const pf_file *F = P->file_list.items[f];
            for (size_t i = 0; i < F->ncalls; i++) {
                const pf_call *c = &F->calls[i];
                bool atomic_call = c->callee != NO_ID && acall[c->callee];
                const idvec *locals = c->def < F->ndefs ? &F->defs[c->def].locals : NULL;
                if (atomic_call)
                    for (size_t a = 0; a < c->args.len; a++) {
                        if (object_arg[c->callee] >= 0 && (size_t)object_arg[c->callee] != a)
                            continue;
                        uint32_t x = c->args.items[a];
                        bool local = false;
                        for (size_t l = 0; locals && l < locals->len && !local; l++)
                            local = locals->items[l] == x;
                        if (!aname[x] && !not_object[x] && !local) {
                            aname[x] = changed = true;
                        }
                    }
                if (c->callee != NO_ID && amember[c->callee] && c->object != NO_ID && !aname[c->object])
                    aname[c->object] = changed = true;
                /* A function applying an atomic callable to its parameter is a wrapper. */
                if (atomic_call && c->def < F->ndefs && !acall[F->defs[c->def].name])
                    for (size_t a = 0; a < c->args.len; a++) {
                        if (object_arg[c->callee] >= 0 && (size_t)object_arg[c->callee] != a)
                            continue;
                        for (size_t p = 0; p < F->defs[c->def].params.len; p++)
                            if (c->args.items[a] == F->defs[c->def].params.items[p] && !acall[F->defs[c->def].name])
                                acall[F->defs[c->def].name] = changed = true;
                    }
            }
        }
        /* A macro over an atomic callable is one (`#define atomicIncr(v, n) atomic_fetch_add(...)`);
         * a macro that only names an atomic variable is a seed (below), not a callable. */
        for (size_t f = 0; f < P->file_list.len; f++) {
            const pf_file *F = P->file_list.items[f];
            for (size_t i = 0; i < F->nmacros; i++)
                if (!acall[F->macros[i].name] && any_marked(&F->macros[i].body, acall)) {
                    acall[F->macros[i].name] = changed = true;
                    /* Its object: the parameter first written after the callable it
                     * expands to (`atomic_fetch_add_explicit(&var, ...)`: var), when that
                     * callable names its object by position; else every argument. */
                    const pf_named *m = &F->macros[i];
                    int oa = -1;
                    for (size_t b = 0; b < m->body.len && oa < 0; b++) {
                        if (!acall[m->body.items[b]] || m->body.items[b] == m->name)
                            continue;
                        if (object_arg[m->body.items[b]] < 0)
                            break;
                        for (size_t b2 = b + 1; b2 < m->body.len && oa < 0; b2++)
                            for (size_t q = 0; q < m->params.len; q++)
                                if (m->body.items[b2] == m->params.items[q]) {
                                    oa = (int)q;
                                    break;
                                }
                        break;
                    }
                    object_arg[m->name] = oa;
                }
        }
    }

    /* Seeds: a file whose code names one may hold a fact of some family. */
    bool *seed = hs_xcalloc(n, 1);
    for (size_t i = P->nkw; i < n; i++)
        seed[i] = acall[i] || aname[i];
    for (size_t i = 0; rd && i < rd->events.len; i++)
        mark_name(P, seed, ((hs_event_api *)rd->events.items[i])->name);
    /* Event types through typedef aliases (the rule peels typedefs off). */
    bool *evtype = hs_xcalloc(n, 1);
    for (size_t it = 0; rd && rd->event_types && hs_strmap_next(rd->event_types, &it, &k, &v);)
        mark_name(P, evtype, k);
    close_over_bodies(P, evtype, true);
    for (size_t i = 0; i < n; i++)
        seed[i] = seed[i] || evtype[i];
    free(evtype);
    /* Hot attributes make roots (and timer-duplicate asks whether any root exists). */
    mark_name(P, seed, "hot");
    mark_name(P, seed, "__hot__");
    close_over_bodies(P, seed, false);

    /* The by-name call graph: a definition to every name its body writes (calls, taken
     * addresses, types whose constructors it may run), a macro to its body's names, a
     * definition with a call through an expression to every taken address, and, in C++, every
     * definition to the operators (their calls are not written as calls). */
    uint32_t indirect = lookup(P, "*indirect*"), operators = lookup(P, "*operators*");
    edgevec ev = {0};
    bool has_operators = false;
    for (size_t f = 0; f < P->file_list.len; f++) {
        const pf_file *F = P->file_list.items[f];
        for (size_t i = 0; i < F->ndefs; i++) {
            const pf_def *d = &F->defs[i];
            const char *nm = P->names.items[d->name];
            if (strncmp(nm, "operator", 8) == 0 && !ident_char((unsigned char)nm[8])) {
                add_edge(&ev, operators, d->name);
                has_operators = true;
            }
            if (nm[0] == '~') {
                uint32_t cls = lookup(P, nm + 1);
                if (cls != NO_ID)
                    add_edge(&ev, cls, d->name);
            }
            for (size_t k2 = 0; k2 < d->body.len; k2++)
                add_edge(&ev, d->name, d->body.items[k2]);
            for (size_t k2 = 0; k2 < d->callees.len; k2++)
                add_edge(&ev, d->name, d->callees.items[k2]);
            bool ind = d->indirect;
            for (size_t k2 = 0; !ind && k2 < d->pointer_callees.len; k2++)
                ind = is_var[d->pointer_callees.items[k2]] && !is_def[d->pointer_callees.items[k2]];
            if (ind)
                add_edge(&ev, d->name, indirect);
        }
        /* A macro's parameters are replaced by its arguments: not references. */
        for (size_t i = 0; i < F->nmacros; i++)
            for (size_t k2 = 0; k2 < F->macros[i].body.len; k2++) {
                uint32_t t = F->macros[i].body.items[k2];
                bool param = t < P->nkw;
                for (size_t q = 0; q < F->macros[i].params.len && !param; q++)
                    param = F->macros[i].params.items[q] == t;
                if (!param)
                    add_edge(&ev, F->macros[i].name, t);
            }
        for (size_t i = 0; i < F->addr.len; i++)
            if (is_def[F->addr.items[i]] || is_macro[F->addr.items[i]])
                add_edge(&ev, indirect, F->addr.items[i]);
    }
    if (has_operators)
        for (size_t f = 0; f < P->file_list.len; f++) {
            const pf_file *F = P->file_list.items[f];
            for (size_t i = 0; i < F->ndefs; i++)
                add_edge(&ev, F->defs[i].name, operators);
        }
    graph fwd, rev;
    build_graph(&fwd, n, &ev, false);
    build_graph(&rev, n, &ev, true);
    free(ev.items);

    /* Functions with a clock read: a timer (or a macro that reaches one through macro
     * bodies) among the names they call or write. */
    bool *timer = hs_xcalloc(n, 1);
    for (size_t i = 0; rd && i < rd->timers.len; i++)
        mark_name(P, timer, ((hs_timer_api *)rd->timers.items[i])->name);
    bool *timer_macro = hs_xcalloc(n, 1);
    memcpy(timer_macro, timer, n);
    close_over_bodies(P, timer_macro, false);
    bool *reads = hs_xcalloc(n, 1);
    for (size_t f = 0; f < P->file_list.len; f++) {
        const pf_file *F = P->file_list.items[f];
        for (size_t i = 0; i < F->ndefs; i++)
            if (any_marked(&F->defs[i].callees, timer_macro) || any_marked(&F->defs[i].body, timer_macro))
                reads[F->defs[i].name] = true;
    }
    /* Kept: every caller of such a function, transitively (cold_only, hot paths, loop
     * callers, constants hot callers pass), and the functions between them and a blocking
     * call (what makes a loop blocking). */
    bool *anc = hs_xcalloc(n, 1), *desc = hs_xcalloc(n, 1), *blocks = hs_xcalloc(n, 1);
    memcpy(anc, reads, n);
    memcpy(desc, reads, n);
    reach(&rev, n, anc);
    reach(&fwd, n, desc);
    for (size_t it = 0; rd && rd->blocking && hs_strmap_next(rd->blocking, &it, &k, &v);)
        mark_name(P, blocks, k);
    reach(&rev, n, blocks);
    bool *keep = hs_xcalloc(n, 1);
    for (size_t i = 0; i < n; i++)
        keep[i] = anc[i] || (desc[i] && blocks[i]);
    /* The hot roots' own definitions (whether a root exists changes timer-duplicate). */
    for (size_t i = 0; i < P->opt->n_hot; i++)
        mark_name(P, keep, P->opt->hot[i]);
    for (size_t i = 0; rd && i < rd->hot_functions.len; i++)
        mark_name(P, keep, rd->hot_functions.items[i]);

    for (size_t f = 0; f < P->file_list.len; f++) {
        pf_file *F = P->file_list.items[f];
        bool rel = F->unsure || F->own_atomic;
        if (rel)
            F->why = hs_xstrdup(F->unsure ? "unsure" : "declares its own atomic");
        for (size_t i = 0; !rel && i < F->code.len; i++)
            if ((rel = seed[F->code.items[i]]))
                F->why = hs_printf("names %s", (char *)P->names.items[F->code.items[i]]);
        for (size_t i = 0; !rel && i < F->ndefs; i++)
            if ((rel = keep[F->defs[i].name]))
                F->why = hs_printf("defines %s%s", (char *)P->names.items[F->defs[i].name],
                                   reads[F->defs[i].name] ? " (reads a clock)" : anc[F->defs[i].name] ? " (a caller)" : "");
        /* A function's address stored anywhere may be a slot's target: kept, so indirect
         * edges and their target counts (wide or narrow) stay whole. */
        for (size_t i = 0; !rel && i < F->addr.len; i++)
            if ((rel = is_def[F->addr.items[i]]))
                F->why = hs_printf("takes the address of %s", (char *)P->names.items[F->addr.items[i]]);
        F->relevant = rel;
    }
    graph_free(&fwd);
    graph_free(&rev);
    free(is_def);
    free(is_macro);
    free(is_var);
    free(atype);
    free(acall);
    free(aname);
    free(amember);
    free(not_object);
    free(object_arg);
    free(seed);
    free(timer);
    free(timer_macro);
    free(reads);
    free(anc);
    free(desc);
    free(blocks);
    free(keep);
}

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

bool *hs_prefilter_decide(hs_tu_input *const *tus, size_t n, const hs_prefilter_options *opt,
                          hs_prefilter_stats *stats, char **err)
{
    double t0 = cpu_seconds();
    pf P = {.opt = opt};
    P.parser = hs_syntax_parser_new();
    if (!P.parser) {
        if (err)
            *err = hs_xstrdup("--prefilter: the tree-sitter grammars cannot be loaded");
        return NULL;
    }
    P.ids = hs_strmap_create();
    for (size_t i = 0; keywords[i]; i++)
        intern_str(&P, keywords[i]);
    P.nkw = (uint32_t)P.names.len;
    P.files = hs_strmap_create();
    P.resolved = hs_strmap_create();
    hs_vec *per_tu = hs_xcalloc(n ? n : 1, sizeof *per_tu);
    for (size_t i = 0; i < n; i++)
        tu_files(&P, tus[i], &per_tu[i]);
    decide_files(&P);
    bool *skip = hs_xcalloc(n ? n : 1, sizeof *skip);
    size_t skipped = 0, unsure = 0;
    for (size_t i = 0; i < n; i++) {
        bool rel = false;
        for (size_t k = 0; !rel && k < per_tu[i].len; k++) {
            const pf_file *F = per_tu[i].items[k];
            rel = F->relevant;
            if (rel && getenv("HOTSCAN_PREFILTER_DEBUG"))
                fprintf(stderr, "prefilter: keeps %s: %s %s\n", tus[i]->file, F->path, F->why ? F->why : "");
        }
        if (!rel && getenv("HOTSCAN_PREFILTER_DEBUG"))
            fprintf(stderr, "prefilter: leaves out %s (%zu files)\n", tus[i]->file, per_tu[i].len);
        skip[i] = !rel;
        skipped += skip[i];
        hs_vec_free(&per_tu[i]);
    }
    free(per_tu);
    for (size_t f = 0; f < P.file_list.len; f++) {
        unsure += ((pf_file *)P.file_list.items[f])->unsure;
        file_free(P.file_list.items[f]);
    }
    if (stats) {
        stats->tus = n;
        stats->skipped = skipped;
        stats->files = P.file_list.len;
        stats->files_unsure = unsure;
    }
    hs_vec_free(&P.file_list);
    const char *key;
    void *val;
    for (size_t it = 0; hs_strmap_next(P.resolved, &it, &key, &val);) {
        hs_vec *r = val;
        for (size_t i = 0; i < r->len; i++)
            free(r->items[i]);
        hs_vec_free(r);
        free(r);
    }
    hs_strmap_delete(P.resolved);
    hs_strmap_delete(P.files);
    hs_strmap_delete(P.ids);
    hs_vec_free(&P.names);
    hs_syntax_parser_delete(P.parser);
    if (stats)
        stats->seconds = cpu_seconds() - t0;
    return skip;
}
