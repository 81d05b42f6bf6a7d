/*
 * syntax.h - the syntax stage (analyzer/syntax/): one C or C++ file parsed with tree-sitter,
 * without a compile database, without the preprocessor and without types. What it gives is
 * what the text says: identifiers, function definitions and the names they call, #include
 * lines, declarations and the operations on named objects. Used by the no-build mode
 * (`scan --no-build`, analyzer/syntax/nobuild.c) and by the prefilter (issue 15).
 *
 * Everything a parse gives lives in one hs_syntax_file, owned by the caller and freed with
 * hs_syntax_file_delete; strings and arrays stay valid until then. No globals: a parser is
 * an explicit object, one per thread or process, reused for many files.
 *
 * Stability: declarations here are only ever added to (the prefilter codes against them).
 */
#ifndef HOTSCAN_SYNTAX_H
#define HOTSCAN_SYNTAX_H

#include <stdbool.h>
#include <stddef.h>

/* "No index": a call or declaration outside any function. */
#define HS_SYNTAX_NONE ((size_t)-1)

typedef enum hs_syntax_lang {
    HS_SYNTAX_C = 0,
    HS_SYNTAX_CPP = 1,
} hs_syntax_lang;

/* The language of a file by its extension: .c (and .i) is C; .cc .cpp .cxx .c++ .C .hpp .hh
 * .hxx .h++ .ipp .tcc .inl is C++; .h is C (C++'s grammar reads most C headers, but C code using
 * C++ keywords as names, `new`, `class`, does not parse as C++). False for anything else. */
bool hs_syntax_lang_for_path(const char *path, hs_syntax_lang *out);

/* The language a compile command gives its file: `-x c` / `-x c++` (also `-xc++`), else a
 * C++ driver name (c++, g++, clang++, ...; any version suffix), else the extension; C when
 * nothing says. argv may be NULL. */
hs_syntax_lang hs_syntax_lang_for_command(const char *path, const char *const *argv, size_t argc);

/* A place in the file: 1-based line and column (columns count bytes, as clang's do), 0-based
 * byte offset and length. end_line/end_column are the place just past the last byte. */
typedef struct hs_syntax_span {
    unsigned line, column;
    unsigned end_line, end_column;
    size_t offset, length;
} hs_syntax_span;

typedef enum hs_syntax_include_kind {
    HS_SYNTAX_INCLUDE_QUOTED = 0,  /* #include "x.h" */
    HS_SYNTAX_INCLUDE_ANGLED = 1,  /* #include <x.h> */
    HS_SYNTAX_INCLUDE_MACRO = 2,   /* #include SOME_MACRO: path is the macro's text */
} hs_syntax_include_kind;

typedef struct hs_syntax_include {
    const char *path;              /* as spelled, without the quotes or angle brackets */
    hs_syntax_include_kind kind;
    unsigned line;
    bool conditional;              /* inside an #if / #ifdef / #ifndef block */
} hs_syntax_include;

typedef struct hs_syntax_function {
    const char *name;              /* qualified as far as the text says: `ns::Cls::m` for a method defined
                                      in class Cls in namespace ns, or written `Cls::m` after namespace ns;
                                      `f` in C. Template arguments and spaces are left out */
    const char *base_name;         /* the last component: `m`, `~Cls`, `operator==` */
    bool is_static;                /* declared `static` (internal linkage in C) */
    bool is_method;                /* defined inside a class body, or named with `::` */
    hs_syntax_span span;           /* the whole definition, from its first specifier */
    hs_syntax_span name_span;      /* the declarator's name */
    hs_syntax_span body;           /* the body's braces */
    /* Distinct names called directly (a call whose callee is a name, `f(x)`, `ns::f(x)`,
     * `obj.m(x)` gives `m`), sorted. Calls through pointers (`(*fp)(x)`, `p->cb(x)`) give the
     * member's name too, since the text cannot tell a method from a function pointer field. */
    const char *const *callees;
    size_t ncallees;
    /* Names whose address the body may take, sorted: `&name`, and a bare name used as a value
     * (an argument, an assignment's right side, an initializer, a return value). The text
     * cannot tell a function from a variable: intersect with function names you know. */
    const char *const *address_taken;
    size_t naddress_taken;
    /* The function's calls are calls[first_call .. first_call + ncalls) (hs_syntax_calls). */
    size_t first_call, ncalls;
} hs_syntax_function;

/* One call expression (also a macro call spelled like one: the grammar cannot tell them apart). */
typedef struct hs_syntax_call {
    const char *callee;            /* the called name: `f`, `ns::f`, `m` for `o.m()` and `p->m()`; NULL when
                                      the callee is no name (`(*fp)()`, `tbl[i]()`) */
    const char *callee_text;       /* the callee expression as written, spaces squeezed: `c->cmd->proc` */
    const char *object;            /* a member call's object text (`o`, `p->q`); NULL otherwise */
    bool arrow;                    /* a member call through `->` */
    size_t function;               /* the enclosing function (index into hs_syntax_functions), or HS_SYNTAX_NONE */
    hs_syntax_span span;           /* the whole call */
    hs_syntax_span name_span;      /* the callee expression */
    size_t first_arg, nargs;       /* its arguments: args[first_arg .. first_arg + nargs) (hs_syntax_args) */
    unsigned loop_depth;           /* loops of the enclosing function around the call (for/while/do/range-for
                                      bodies and conditions; not a for's init, not `do {} while (0)`) */
    const char *loop_path;         /* the enclosing loops' start offsets, outermost first, `/`-separated; "" */
    size_t loop_offset;            /* the innermost loop's start offset (0 outside loops) */
    bool in_condition;             /* inside an if/while/for/switch/?: condition */
    bool error_path;               /* before a call to abort(), exit-like or assert-fail in its statement list */
    bool result_used;              /* false when the call is an expression statement of its own */
    bool in_lambda;                /* inside a lambda of the enclosing function */
    /* Added after "syntax API ready": */
    bool in_loop_condition;        /* inside a while/do-while/for condition */
    size_t first_branch, nbranches;/* the enclosing branch arms, outermost first: branches[first_branch ..
                                      first_branch + nbranches) (hs_syntax_branches) */
    size_t lambda_offset;          /* the innermost enclosing lambda's start offset, 0 when none */
    size_t statement_offset;       /* start of the statement holding the call */
} hs_syntax_call;

/* A branch arm a call sits in: the arms of an if/else, ?:, the right side of && and ||
 * (arm 1), a switch's case segments (cases that fall through share an arm). The members mean
 * what the facts' `branches` entries mean (docs/facts.md). */
typedef struct hs_syntax_branch {
    size_t node, node_end;         /* offsets of the branching statement or expression */
    unsigned arm;
    long long exit_until;          /* > 0: the arm always leaves before this offset (the function's end for
                                      return/goto/abort, the loop's or switch's end for break, the loop's for
                                      continue); 0: it falls through */
    bool sampled;                  /* the condition has `%` or a bitwise `&` */
} hs_syntax_branch;

typedef struct hs_syntax_arg {
    const char *text;              /* spaces squeezed */
    hs_syntax_span span;
    const char *name;              /* the argument's root name when it is `x`, `&x`, `x.f`, `&x.f`, `p->f`,
                                      `&p->f`, `x[i]`: the last field (`f`) or the variable (`x`); else NULL */
    bool address_of;               /* written `&...` */
} hs_syntax_arg;

typedef enum hs_syntax_scope {
    HS_SYNTAX_SCOPE_FILE = 0,      /* a global or a file-scope static */
    HS_SYNTAX_SCOPE_FIELD = 1,     /* a struct, union or class member */
    HS_SYNTAX_SCOPE_LOCAL = 2,     /* inside a function body */
    HS_SYNTAX_SCOPE_PARAM = 3,     /* a function's parameter */
} hs_syntax_scope;

/* A declared variable, field or parameter (not functions, not typedefs). */
typedef struct hs_syntax_decl {
    const char *name;
    const char *type;              /* the type as written, with qualifiers and pointer stars: `_Atomic long`,
                                      `std::atomic<int>`, `os_event_t`, `unsigned *` */
    const char *record;            /* a field's struct, union or class name ("" when anonymous); NULL otherwise */
    hs_syntax_scope scope;
    bool is_static;
    bool atomic;                   /* the type is atomic: `_Atomic`, `_Atomic(T)`, `std::atomic<T>`,
                                      `atomic<T>`, `atomic_int`-style typedefs, `std::atomic_flag` */
    bool pointer;                  /* a pointer or array declarator */
    size_t function;               /* locals and parameters: their function; HS_SYNTAX_NONE otherwise */
    hs_syntax_span span;           /* the declarator's name */
} hs_syntax_decl;

typedef enum hs_syntax_update_op {
    HS_SYNTAX_UPDATE_INC = 0,      /* x++, ++x */
    HS_SYNTAX_UPDATE_DEC,          /* x--, --x */
    HS_SYNTAX_UPDATE_ADD,          /* x += v */
    HS_SYNTAX_UPDATE_SUB,          /* x -= v */
    HS_SYNTAX_UPDATE_BITWISE,      /* x |= v, x &= v, x ^= v */
    HS_SYNTAX_UPDATE_ASSIGN,       /* x = v */
    HS_SYNTAX_UPDATE_OTHER,        /* x *= v, /=, %=, <<=, >>= */
} hs_syntax_update_op;

/* An operator that writes a named object: the target is `x`, `x.f`, `p->f`, `x[i]`, `*p`. */
typedef struct hs_syntax_update {
    const char *name;              /* the target's root name as for hs_syntax_arg.name */
    const char *target;            /* the target's text */
    hs_syntax_update_op op;
    bool prefix;                   /* ++x, --x */
    const char *value;             /* the right side's text (compound and plain assignment), else NULL */
    size_t function;               /* the enclosing function, or HS_SYNTAX_NONE */
    hs_syntax_span span;           /* the whole expression */
    unsigned loop_depth;
    size_t loop_offset;
    bool result_used;              /* false when it is an expression statement of its own (or a for's
                                      increment) */
    /* Added after "syntax API ready": */
    bool in_condition;             /* inside an if/while/for/switch/?: condition */
    bool in_loop_condition;        /* inside a while/do-while/for condition */
} hs_syntax_update;

typedef struct hs_syntax_parser hs_syntax_parser;
typedef struct hs_syntax_file hs_syntax_file;

/* A parser for C and C++ (the grammars are linked in). NULL only when out of memory or when the
 * tree-sitter runtime refuses the grammars' ABI. */
hs_syntax_parser *hs_syntax_parser_new(void);
void hs_syntax_parser_delete(hs_syntax_parser *p);

/* Reads and parses PATH (read as source_file.h reads it: a FIFO, device or socket is an error,
 * never a hang). NULL on a read error, with *err (malloc'd, "cannot read PATH: reason") when
 * err is not NULL. A file with syntax errors still parses (hs_syntax_error_count says how many error
 * nodes the tree has); what lies in an error node is still looked at for identifiers. */
hs_syntax_file *hs_syntax_parse_path(hs_syntax_parser *p, const char *path, hs_syntax_lang lang, char **err);
/* Parses TEXT (LEN bytes, copied), named PATH in the results. */
hs_syntax_file *hs_syntax_parse_text(hs_syntax_parser *p, const char *path, const char *text, size_t len,
                                     hs_syntax_lang lang, char **err);
void hs_syntax_file_delete(hs_syntax_file *f);

const char *hs_syntax_file_path(const hs_syntax_file *f);
hs_syntax_lang hs_syntax_file_lang(const hs_syntax_file *f);
const char *hs_syntax_file_text(const hs_syntax_file *f, size_t *len);
size_t hs_syntax_error_count(const hs_syntax_file *f);

/* (a) Every distinct identifier in the file, sorted (strcmp): names, field names, type names,
 * namespace names, and the identifier-like tokens of #define bodies and #if conditions. */
const char *const *hs_syntax_identifiers(const hs_syntax_file *f, size_t *count);
bool hs_syntax_has_identifier(const hs_syntax_file *f, const char *name);

/* (b) Function definitions, in file order (also methods defined in class bodies, and
 * definitions inside #if blocks, every branch). */
const hs_syntax_function *hs_syntax_functions(const hs_syntax_file *f, size_t *count);
/* Names whose address may be taken outside any function (global initializers: `{"get", getCommand}`,
 * `.proc = f`, `= &f`), sorted. */
const char *const *hs_syntax_file_address_taken(const hs_syntax_file *f, size_t *count);

/* (c) #include directives, in file order. */
const hs_syntax_include *hs_syntax_includes(const hs_syntax_file *f, size_t *count);

/* (d) For the no-build mode: every call (in file order; a function's calls are contiguous),
 * the arguments, declarations and writing operators. */
const hs_syntax_call *hs_syntax_calls(const hs_syntax_file *f, size_t *count);
const hs_syntax_arg *hs_syntax_args(const hs_syntax_file *f, size_t *count);
const hs_syntax_decl *hs_syntax_decls(const hs_syntax_file *f, size_t *count);
const hs_syntax_update *hs_syntax_updates(const hs_syntax_file *f, size_t *count);

/* Function-like macro definitions (`#define NAME(...) body`): the macro's name, its body's
 * identifiers, its line. A wrapper macro around a clock read or an atomic is found this way. */
typedef struct hs_syntax_macro {
    const char *name;
    const char *body;              /* the body's text ("" when empty) */
    bool function_like;
    unsigned line;
    /* Added after "syntax API ready": */
    const char *params;            /* a function-like macro's parameter names, comma-separated, no spaces
                                      (`a,b,...`); "" otherwise */
    bool conditional;              /* defined inside an #if / #ifdef / #ifndef block */
} hs_syntax_macro;
const hs_syntax_macro *hs_syntax_macros(const hs_syntax_file *f, size_t *count);
/* A name read or written in an expression (added after "syntax API ready"): a variable (`x`)
 * or a field (`x.f`, `p->f`: the name is `f`, the span the whole field expression). Callee
 * names and declarators are not refs. */
typedef struct hs_syntax_ref {
    const char *name;
    bool field;
    size_t function;               /* the enclosing function, or HS_SYNTAX_NONE */
    hs_syntax_span span;
    bool written;                  /* the left side of an assignment, or the operand of ++/-- */
    bool address_of;               /* the operand of `&` */
    bool in_condition, in_loop_condition;
    bool limit_test;               /* an operand of < > <= >= whose other side is not -1, 0 or 1 */
} hs_syntax_ref;
const hs_syntax_ref *hs_syntax_refs(const hs_syntax_file *f, size_t *count);

/* The branch arms calls sit in (hs_syntax_call.first_branch, nbranches). */
const hs_syntax_branch *hs_syntax_branches(const hs_syntax_file *f, size_t *count);

#endif
