/*
 * walk.h - state shared by the extractor's walk (analyzer/extract/extract.c) and the
 * per-family collectors (rules/<family>/collect_<family>.c).
 *
 * The walk owns control flow (loops, branches, the enclosing function); collectors see
 * each interesting cursor once, with that context, and append facts.
 */
#ifndef HOTSCAN_WALK_H
#define HOTSCAN_WALK_H

#include "hotscan/extract.h"
#include "hotscan/strmap.h"

#define HS_MAX_NEST 128

/* A source position after macro expansion: where a person sees the code. */
typedef struct {
    const char *file;   /* real path, owned by the context's file cache */
    unsigned line, column, offset;
} hs_pos;

/* A loop or a breakable statement the walk is inside. */
typedef struct {
    unsigned id;        /* start offset of the statement */
    unsigned end;       /* end offset */
    bool is_loop;       /* false for switch */
} hs_scope;

/* One clock read inside the current function, kept until the function is finished. */
typedef struct {
    json_t *fact;       /* the fact object, also appended to the TU's clock_reads */
    unsigned hash;      /* clang_hashCursor of the call, for "r:" keys */
    unsigned offset;
    hs_strmap *keys;    /* names that hold this reading: the sink and copies of it */
    char *loop_path;
} hs_read_state;

typedef struct {
    CXCursor *cursors;
    unsigned n;
    unsigned offset;        /* writes: where */
    bool wait;              /* tests: the condition is a wait */
} hs_pending;

typedef struct {
    char *usr;
    char *name;
    const char *file;
    unsigned body_end;
    bool is_timer_wrapper;  /* the function is itself a listed timer API */
    hs_vec reads;           /* hs_read_state* */
    /*
     * What the walk notes cheaply as it goes (cursors), turned into name keys only when
     * the function turns out to need them (it reads a clock, or an atomic result lands
     * in a name): most functions never do, and keys cost USRs and tokenizing.
     */
    hs_vec pending_combiners; /* hs_pending* : values combined together */
    hs_vec pending_writes;    /* hs_pending* : names written, with offsets */
    hs_vec pending_tests;     /* hs_pending* : conditions, with whether they wait */
    hs_vec combiners;       /* json_t* arrays of key sets, made from pending_combiners */
    hs_vec writes;          /* json_t* [key, offset], made from pending_writes */
    hs_strmap *blocking_loops; /* loop id (as text) -> 1 when the loop blocks */
    unsigned call_seq;
    unsigned blocking_seq;  /* blocking or slow calls seen so far */
    bool blocks_unconditionally; /* one is made outside any branch and error path */
    json_t *tested_keys;    /* names read in conditions -> true when the test is a wait */
    json_t *version_keys;   /* names a condition compares with == / != or masks with & / % */
    size_t atomics_start;   /* this function's facts in x->atomics start here */
} hs_fn_state;

typedef struct hs_extract_ctx {
    CXTranslationUnit tu;
    const hs_ruledata *rd;
    const char *root;
    hs_strmap *files;        /* "%p" of CXFile -> real path, or "" when not the project's */
    hs_strmap *qualnames;    /* USR -> qualified name cache */
    hs_strmap *consumed;     /* cursors an atomic operation already accounted for */
    hs_strmap *usrs;         /* declaration -> USR, computed once per TU */
    hs_strmap *type_classes; /* declaration -> what its type is to the atomic collector */
    hs_strmap *fact_sites;   /* "kind:file:offset" -> facts recorded there so far */
    hs_strmap *plain_uses;   /* USR -> json summary of non-atomic uses of an integer */
    json_t *facts;
    json_t *functions, *calls, *clock_reads, *atomics, *events, *event_objects;

    /* Walk state, valid inside a function body. */
    hs_fn_state *fn;
    hs_scope scopes[HS_MAX_NEST];
    int nscopes;
    json_t *branches[HS_MAX_NEST]; /* each [node, end, arm, exit_until, sampled] */
    int nbranches;
    /* Set while walking the right side of an assignment or initializer: the name that
     * receives the value (an expression, or with sink_is_decl the declared variable). */
    bool has_sink;
    bool sink_is_decl;
    bool sink_plain;         /* `=` or an initializer, not `+=` */
    CXCursor sink;
    CXCursor sink_value;     /* the whole value being assigned */
    int error_path;          /* > 0 inside code that ends in an abort-like call */
    int condition;           /* > 0 inside the condition of an if, ?: or loop */
    int loop_condition;      /* > 0 inside a loop's condition */
    int comparison;          /* > 0 inside an operand of a comparison or && / || */
    int equality;            /* > 0 inside an operand of == or != */
    int masked;              /* > 0 inside an operand of & or % */
    unsigned lambda;         /* start offset of the innermost enclosing lambda, or 0 */
    unsigned stmt_start;     /* the statement (in a { } block) being walked starts here */
    unsigned block_end;      /* and its block ends here */

    enum CXCursorKind parent_kind;
    enum CXCursorKind walk_parent_kind; /* the parent of the node walk_node is handling */
} hs_extract_ctx;

/* Helpers from extract.c. */
/* Real path of a file when it belongs to the project (under the root), else "". Cached. */
const char *hs_project_file(hs_extract_ctx *x, CXFile file);
/* The text of the file where a cursor's code is spelled (inside a macro's definition for
 * code from a macro), with the cursor's offset in it; NULL when there is none. */
const char *hs_spelled_text(hs_extract_ctx *x, CXCursor c, CXFile *file, unsigned *offset, size_t *size);
/* Length of the C identifier starting at text[offset] (0 when there is none). */
size_t hs_identifier_length(const char *text, size_t size, size_t offset);
bool hs_cursor_pos(hs_extract_ctx *x, CXCursor c, hs_pos *start, hs_pos *end);
bool hs_location_is_project(hs_extract_ctx *x, CXSourceLocation loc);
char *hs_cursor_text(hs_extract_ctx *x, CXCursor c);  /* tokens joined, no spaces */
char *hs_cursor_source(hs_extract_ctx *x, CXCursor c); /* exact source text of the extent */
const char *hs_qualified_name(hs_extract_ctx *x, CXCursor decl);
const char *hs_cursor_usr_cached(hs_extract_ctx *x, CXCursor decl);
/* The key and text of the name receiving the value being walked, or NULL (caller frees). */
char *hs_sink_key(hs_extract_ctx *x);
char *hs_sink_text(hs_extract_ctx *x);
/* True for functions declared never to return: noreturn, [[noreturn]], _Noreturn. */
bool hs_function_never_returns(hs_extract_ctx *x, CXCursor fn);
char *hs_cursor_usr(CXCursor c);
CXCursor hs_strip_expr(CXCursor c);      /* through parens, casts, implicit nodes */
char *hs_expr_key(hs_extract_ctx *x, CXCursor c); /* "v:USR" or "m:text", or NULL */
void hs_collect_keys(hs_extract_ctx *x, CXCursor c, json_t *set);
bool hs_in_loop(const hs_extract_ctx *x);
char *hs_loop_path(const hs_extract_ctx *x);
json_t *hs_branch_path(const hs_extract_ctx *x);
void hs_fact_set_position(json_t *fact, const hs_pos *start, const hs_pos *end);

/*
 * Read-only views of the context the walk tracks, for collectors. Valid in a hook;
 * outside a function body the function is NULL and every nesting count is zero.
 */
CXTranslationUnit hs_walk_tu(const hs_extract_ctx *x);
const hs_ruledata *hs_walk_ruledata(const hs_extract_ctx *x);
const char *hs_walk_tu_file(const hs_extract_ctx *x);       /* the main file, as the facts' "tu" */
const char *hs_walk_function_usr(const hs_extract_ctx *x);  /* enclosing function, or NULL */
const char *hs_walk_function_name(const hs_extract_ctx *x); /* its qualified name, or NULL */
/* Enclosing loops, outermost first (a lambda's body sees only its own). */
unsigned hs_walk_loop_count(const hs_extract_ctx *x);
unsigned hs_walk_loop_id(const hs_extract_ctx *x, unsigned i); /* the loop's start offset */
/* Enclosing branch entries [node_start, node_end, arm, exit_until, sampled], outermost first. */
unsigned hs_walk_branch_count(const hs_extract_ctx *x);
json_t *hs_walk_branch(const hs_extract_ctx *x, unsigned i); /* borrowed */
bool hs_walk_on_error_path(const hs_extract_ctx *x);   /* before an abort-like call */
bool hs_walk_in_condition(const hs_extract_ctx *x);    /* an if's, ?:'s, switch's or loop's */
bool hs_walk_in_loop_condition(const hs_extract_ctx *x); /* a loop's, or an if that leaves it */
bool hs_walk_in_comparison(const hs_extract_ctx *x);   /* an operand of < > <= >= == != <=> && || */
bool hs_walk_in_equality(const hs_extract_ctx *x);     /* an operand of == or != */
bool hs_walk_in_mask(const hs_extract_ctx *x);         /* an operand of & or % */
unsigned hs_walk_lambda(const hs_extract_ctx *x);      /* innermost lambda's start offset, or 0 */
unsigned hs_walk_statement_start(const hs_extract_ctx *x); /* the { } block statement being walked */
unsigned hs_walk_block_end(const hs_extract_ctx *x);       /* and the end of its block */
/* The kind of the parent of the cursor a hook sees; parentheses and implicit nodes are
 * transparent (`x.fetch_add(1);` has a statement as its parent, `y = x++` an operator). */
enum CXCursorKind hs_walk_parent_kind(const hs_extract_ctx *x);
/* While a value assigned to a name is walked: true, and the whole value (else null). */
bool hs_walk_has_sink(const hs_extract_ctx *x);
CXCursor hs_walk_sink_value(const hs_extract_ctx *x);
typedef struct {
    CXCursor *items;
    unsigned len, cap;
} hs_cursor_list;
void hs_children(CXCursor c, hs_cursor_list *out);
void hs_cursor_list_free(hs_cursor_list *l);

/*
 * Where code is written: for code inside a macro expansion, the whole invocation at the
 * expansion site ("atomic_fetch_add(&x, 1)"), else the cursor's extent. Also the name
 * of the macro when there is one. Returns false outside the project.
 */
typedef struct {
    const char *file;
    unsigned offset, length;
    char *text;
    char *macro_name;   /* NULL when not written through a macro */
} hs_span;
bool hs_written_span(hs_extract_ctx *x, CXCursor c, hs_span *out);
void hs_span_free(hs_span *s);

/* Collectors. */
void hs_timers_on_call(hs_extract_ctx *x, CXCursor call, CXCursor callee, const char *qname);
void hs_timers_finish_function(hs_extract_ctx *x);
void hs_atomics_on_cursor(hs_extract_ctx *x, CXCursor c);
void hs_atomics_finish_tu(hs_extract_ctx *x);
void hs_atomics_finish_function(hs_extract_ctx *x);
/* Addresses taken in a global's initializer (`{"hits", &hits}` tables) are escapes. */
void hs_atomics_on_global_initializer(hs_extract_ctx *x, CXCursor var);
/* How many facts of `kind` were recorded at this place before: keeps two facts at one
 * macro expansion apart, and is the same in every TU that sees the place. */
int hs_site_ordinal(hs_extract_ctx *x, const char *kind, const char *file, unsigned offset);
void hs_events_on_cursor(hs_extract_ctx *x, CXCursor c);

#endif
