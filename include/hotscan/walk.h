/*
 * walk.h - the interface between the extractor's walk (analyzer/extract/extract.c) and
 * the per-family collectors (rules/<family>/collect_<family>.c), registered in the one
 * collector table (rules/registry.c).
 *
 * The walk owns the parse, the control-flow context (enclosing function, loops, branch
 * arms, conditions, where a value goes, error paths), the caches of names, USRs and file
 * paths, and the functions and calls of the facts document. It calls each collector
 * through a small table of hooks; a collector sees the walk only through the read-only
 * accessors and helpers below, keeps its own state in an opaque struct it creates in its
 * tu_start hook and deletes in tu_end, and adds its own lists to the facts document.
 * No collector reads another's state, and the walk reads none of theirs.
 */
#ifndef HOTSCAN_WALK_H
#define HOTSCAN_WALK_H

#include "hotscan/extract.h"
#include "hotscan/facts.h"
#include "hotscan/strmap.h"

/*
 * clang_getCursorKind and clang_Cursor_isNull, inline. libclang's are a call each for a
 * field read and a compare: a null cursor is clang_getNullCursor()'s {CXCursor_InvalidFile,
 * 0, {NULL, NULL, NULL}}, and clang_equalCursors compares the kind and the three data
 * pointers (checked equal on 3.4 million cursors of the corpus, and their referenced,
 * definition, parent and type-declaration cursors). The walk and the collectors ask them
 * millions of times a TU.
 */
static inline enum CXCursorKind hs_cursor_kind(CXCursor c)
{
    return c.kind;
}

static inline bool hs_cursor_is_null(CXCursor c)
{
    return c.kind == CXCursor_InvalidFile && !c.data[0] && !c.data[1] && !c.data[2];
}

/* The walk's state for one TU: opaque, private to extract.c. */
typedef struct hs_walk hs_walk;

/* A source position after macro expansion: where a person sees the code. */
typedef struct {
    const char *file;   /* real path, owned by the walk's file cache */
    unsigned line, column, offset;
} hs_pos;

/* Helpers (extract.c): positions, text, names and keys, cached per TU by the walk. */
/* Real path of a file when it belongs to the project (under the root), else "". Cached. */
const char *hs_project_file(hs_walk *x, CXFile file);
/* A file's text (owned by the TU) and size, or NULL; what clang_getFileContents gives,
 * asked once per file and TU (libclang looks the file up by a linear scan each time). */
const char *hs_walk_file_contents(hs_walk *x, CXFile file, size_t *size);
/* Whether the file is a system header (clang_Location_isInSystemHeader at its offset 0),
 * cached per file; `spelled_at` is a location spelled in the file (a cursor's start, as
 * hs_spelled_text reads it), which saves libclang's costly clang_getLocationForOffset. */
bool hs_walk_file_is_system(hs_walk *x, CXFile file, CXSourceLocation spelled_at);
/* clang_getLocationForOffset(tu, file, offset), without its file lookup after the first. */
CXSourceLocation hs_walk_location_at(hs_walk *x, CXFile file, unsigned offset);
/* The text of the file where a cursor's code is spelled (inside a macro's definition for
 * code from a macro), with the cursor's offset in it; NULL when there is none. */
const char *hs_spelled_text(hs_walk *x, CXCursor c, CXFile *file, unsigned *offset, size_t *size);
/* Length of the C identifier starting at text[offset] (0 when there is none). */
size_t hs_identifier_length(const char *text, size_t size, size_t offset);
/* clang_getRangeStart(clang_getCursorExtent(c)), without measuring the extent's last token
 * when libclang's cursor location is that same start (statements and most expressions). */
CXSourceLocation hs_cursor_start(CXCursor c);
/* Where a cursor starts (and ends) after macro expansion; for code from a macro the end is
 * that of the macro's name. False outside the project. */
bool hs_cursor_pos(hs_walk *x, CXCursor c, hs_pos *start, hs_pos *end);
bool hs_location_is_project(hs_walk *x, CXSourceLocation loc);
/* A function the compiler declared itself where it is first called (a builtin such as
 * __builtin_expect or __atomic_thread_fence, or a call to an undeclared name in C89): no file
 * declares it, yet libclang places it at that first use, in whatever file that is, which
 * differs from TU to TU. Not a project function however it is placed. */
bool hs_decl_is_implicit(CXCursor decl);
char *hs_cursor_text(hs_walk *x, CXCursor c);  /* tokens joined, no spaces */
char *hs_cursor_source(hs_walk *x, CXCursor c); /* exact source text of the extent */
const char *hs_qualified_name(hs_walk *x, CXCursor decl);
const char *hs_cursor_usr_cached(hs_walk *x, CXCursor decl);
/* The key and text of the name receiving the value being walked, or NULL (caller frees). */
char *hs_sink_key(hs_walk *x);
char *hs_sink_text(hs_walk *x);
/* True for functions declared never to return: noreturn, [[noreturn]], _Noreturn. */
bool hs_function_never_returns(hs_walk *x, CXCursor fn);
/* A declaration's USR; members of a template's implicit instantiations are named by the
 * template's own declaration (extract.c). */
char *hs_cursor_usr(CXCursor c);
CXCursor hs_strip_expr(CXCursor c);      /* through parens, casts, implicit nodes */
char *hs_expr_key(hs_walk *x, CXCursor c); /* "v:USR" or "m:text", or NULL */
/*
 * A set of name keys ("v:USR", "m:text", "r:hash"). The strings are the walk's, made once per
 * expression and TU and alive until the TU's walk ends; a key may be listed more than once.
 */
typedef struct {
    const char **keys;
    unsigned len, cap;
    bool static_storage; /* (hs_walk_combinations) the operand is (a member of) a static-storage object */
    bool sum;            /* (hs_walk_combinations) the operands are added (`now + timeout`), not compared */
} hs_key_set;
/* Adds the keys of the names expression `c` reads: itself and everything in it. */
void hs_collect_keys(hs_walk *x, CXCursor c, hs_key_set *set);
bool hs_key_set_has(const hs_key_set *set, const char *key);
/* Whether the set holds one of the keys of `keys`. */
bool hs_key_set_meets(const hs_key_set *set, const hs_strmap *keys);
void hs_key_set_free(hs_key_set *set); /* and leaves it empty */
void hs_fact_set_position(json_t *fact, const hs_pos *start, const hs_pos *end);
/* Whether `loc` is written somewhere other than where it is expanded (inside a macro
 * expansion), and where it is expanded (*file, *offset; either may be NULL). A location
 * outside any macro is its own spelling, so only one inside a macro costs the second ask. */
bool hs_location_in_macro(CXSourceLocation loc, CXFile *file, unsigned *offset);
/* obj[key] = the string `s`; false, obj unchanged, when `s` is NULL or not UTF-8 (where
 * json_pack's "s" would fail the whole object: the caller drops it). `key` is an ASCII
 * literal: it is not checked. Facts on the walk's hot paths are built with this and
 * json_object_set_new_nocheck (the keys are literals; json_object_set_new would check each
 * one for UTF-8): json_pack parses its format on every call, thousands of instructions for
 * a call edge. */
bool hs_json_set_string(json_t *obj, const char *key, const char *s);
typedef struct {
    CXCursor *items;
    unsigned len, cap;
} hs_cursor_list;
void hs_children(CXCursor c, hs_cursor_list *out);
void hs_cursor_list_free(hs_cursor_list *l); /* frees the items, leaves the list empty */
void hs_cursor_list_push(hs_cursor_list *l, CXCursor c);
/* The first child of a cursor (a call's callee expression, a member's base), or a null cursor. */
CXCursor hs_first_child(CXCursor c);

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
bool hs_written_span(hs_walk *x, CXCursor c, hs_span *out);
void hs_span_free(hs_span *s);

/* How many facts of `kind` were recorded at this place before: keeps two facts at one
 * macro expansion apart, and is the same in every TU that sees the place. */
int hs_site_ordinal(hs_walk *x, const char *kind, const char *file, unsigned offset);

/*
 * Read-only views of the context the walk tracks, valid inside hooks. Outside a function
 * body (the declaration hook, tu_start, tu_end) the function is NULL, there are no
 * loops, branches or sink, and every nesting count is zero.
 */
CXTranslationUnit hs_walk_tu(const hs_walk *x);
const hs_ruledata *hs_walk_ruledata(const hs_walk *x);
const char *hs_walk_tu_file(const hs_walk *x);       /* the main file, as the facts' "tu" */
/* Whether `name` is an identifier in project code this TU's configuration compiles out
 * (the preprocessor's skipped ranges: `#ifndef NDEBUG` in a release build); *at (if given)
 * is its first place. Says where, not how the code uses it (analyzer/extract/inactive.c). */
bool hs_walk_compiled_out_use(hs_walk *x, const char *name, hs_pos *at);
const char *hs_walk_function_usr(const hs_walk *x);  /* enclosing function, or NULL */
CXCursor hs_walk_function_cursor(const hs_walk *x);  /* its definition, or a null cursor */
const char *hs_walk_function_name(const hs_walk *x); /* its qualified name, or NULL */
bool hs_in_loop(const hs_walk *x);
char *hs_loop_path(const hs_walk *x);       /* loop start offsets, outermost first, "/"-separated */
json_t *hs_branch_path(const hs_walk *x);   /* a new array of the enclosing branch entries */
/* Enclosing loops, outermost first (a lambda's body sees only its own). */
unsigned hs_walk_loop_count(const hs_walk *x);
unsigned hs_walk_loop_id(const hs_walk *x, unsigned i); /* the loop's start offset */
/* Enclosing branch entries, outermost first; in the facts (hs_branch_path) each is
 * [node_start, node_end, arm, exit_until, sampled]. */
typedef struct {
    unsigned node_start, node_end; /* the if, ?:, switch, && / || or block */
    unsigned arm;                  /* which arm (a block's segment after a statement that leaves) */
    int exit_until;                /* where control goes after the arm; 0 falls through, -1 a segment */
    bool sampled;                  /* runs on some iterations only (`i % 1024 == 0`) */
} hs_branch;
unsigned hs_walk_branch_count(const hs_walk *x);
const hs_branch *hs_walk_branch(const hs_walk *x, unsigned i); /* borrowed */
bool hs_walk_on_error_path(const hs_walk *x);   /* before an abort-like call */
/* Inside an arm that runs rarely (an error check, unlikely(), a value over a threshold):
 * "error-check", "unlikely" or "threshold"; NULL otherwise. */
const char *hs_walk_rare(const hs_walk *x);
/* The function being walked takes `...` (a logger, a formatter). */
bool hs_walk_function_variadic(const hs_walk *x);
/* The enclosing arms one parameter decides, as [[parameter index, needs non-zero], ...];
 * NULL when there are none. A new reference. */
json_t *hs_walk_guards_json(const hs_walk *x);
/* The innermost loop around the walk (its start offset), 0 outside loops. */
unsigned hs_walk_innermost_loop(const hs_walk *x);
/* Once a function is walked (function_end): does every test that can end loop `loop_id`
 * (its condition, each part of an && / || chain, each if whose arm leaves it) read one of
 * `keys`, and is there at least one? Then the loop runs until those names say so. */
bool hs_walk_loop_ends_only_on(hs_walk *x, unsigned loop_id, const hs_strmap *keys);
bool hs_walk_in_condition(const hs_walk *x);    /* an if's, ?:'s, switch's or loop's */
bool hs_walk_in_loop_condition(const hs_walk *x); /* a loop's, or an if's that leaves the loop */
bool hs_walk_in_comparison(const hs_walk *x);   /* an operand of < > <= >= == != <=> && || */
bool hs_walk_in_equality(const hs_walk *x);     /* an operand of == or != */
bool hs_walk_in_mask(const hs_walk *x);         /* an operand of & or % */
unsigned hs_walk_lambda(const hs_walk *x);      /* innermost lambda's start offset, or 0 */
unsigned hs_walk_statement_start(const hs_walk *x); /* the { } block statement being walked */
unsigned hs_walk_block_end(const hs_walk *x);       /* and the end of its block */
CXCursor hs_walk_block(const hs_walk *x);           /* and that block (null outside any) */
/* The kind of the parent of the cursor a hook sees; parentheses and implicit nodes are
 * transparent (`x.fetch_add(1);` has a statement as its parent, `y = x++` an operator). */
enum CXCursorKind hs_walk_parent_kind(const hs_walk *x);
/* In the cursor hook: the children of the cursor it is given (what hs_children would list),
 * listed once for the hooks and the walk. Borrowed, valid until the hook returns. */
const hs_cursor_list *hs_walk_children(const hs_walk *x);
/* While a value assigned to a name is walked: true, and the whole value (else null);
 * hs_sink_key() and hs_sink_text() name the receiving name. */
bool hs_walk_has_sink(const hs_walk *x);
/* The value goes through a pointer parameter (`*out = v`, `out->t = v`): to the caller. */
bool hs_walk_sink_through_parameter(const hs_walk *x);
/* The field the value is stored into (`obj->stamp = v`), as its USR, or NULL. Caller frees. */
char *hs_walk_sink_field(const hs_walk *x);
/* The local variable (automatic storage) the value is stored into, written as itself
 * (`v = x`, `T v = x`) or through its own address (`*(&v) = x`, as a macro
 * `#define op(A, RES) (*(RES) = f(A), (void) 0)` expanded on `&v` writes it); else a null
 * cursor. `named`: the store names it (an assignment, not its declaration). */
CXCursor hs_walk_sink_local(const hs_walk *x, bool *named);
/* How many times the body of the function being walked names `decl`. */
unsigned hs_walk_count_references(const hs_walk *x, CXCursor decl);
/* The value goes into static storage: a global, a static, or a member of one (`server.t = v`). */
bool hs_walk_sink_static(const hs_walk *x);
/* Expression `c`, or what `&c` takes the address of, is (a member of) a static-storage object. */
bool hs_expr_static_storage(CXCursor c);
/* ... and that object is visible in its file only (a `static` global, a static local). */
bool hs_expr_internal_static(CXCursor c);
bool hs_walk_sink_internal_static(const hs_walk *x);
/* Expression `c` names a parameter or a static-storage variable, itself, a member of it or
 * its address (`c->id`, `&monotonic_clock`, `id`): that declaration; else a null cursor. */
CXCursor hs_expr_selector_root(CXCursor c);
/* Expression `c` is the caller's own result through a pointer parameter (`out`, `&*out`). */
bool hs_expr_through_parameter(CXCursor c);
/* Once a function is walked: the fields (USRs) of member expressions subtracted from or
 * compared with a value one of `keys` holds (`now() - t->wake_date`); NULL when none. */
json_t *hs_walk_fields_compared_with(hs_walk *x, const hs_strmap *keys);
/* Once a function is walked: whether a value one of `keys` holds is one side of a
 * subtraction whose other side is a member expression (`now() - t->wake_date`) or a
 * parameter (`now() - start_time`): a value kept elsewhere, the other end of a measurement. */
bool hs_walk_subtracted_from_held(hs_walk *x, const hs_strmap *keys);
CXCursor hs_walk_sink_value(const hs_walk *x);

/*
 * Names in the current function, a walk-owned service shared by the families: the timer
 * collector needs what is combined and written, the atomic collector what is tested.
 * The walk notes the cursors cheaply as it goes; keys ("v:USR", "m:text", "r:hash", as
 * hs_collect_keys makes them) are made on the first request, in a function_end hook,
 * so a function no collector asks about never pays for USRs and tokenizing.
 */
/* Values combined together (operands of - -= < > <= >= == != <=>, the arguments of a
 * non-variadic call with two or more): hs_combination*, a key set for each operand. */
typedef struct {
    hs_key_set *sets;
    unsigned n;
    unsigned offset;   /* where the combination is evaluated: its last operand's end, in its file */
} hs_combination;
const hs_vec *hs_walk_combinations(hs_walk *x);
/* Names written (assigned, ++/--, passed by address): hs_write*. */
typedef struct {
    const char *key;  /* the walk's string, as in hs_key_set */
    unsigned offset;  /* where the write is */
} hs_write;
const hs_vec *hs_walk_writes(hs_walk *x);
/* Whether name `key` is read in a condition: -1 no, 1 in a wait (a loop's condition), else 0. */
int hs_walk_tested(hs_walk *x, const char *key);
/* Whether a condition compares name `key` with == / != or masks it with & / % (a version check). */
bool hs_walk_version_key(hs_walk *x, const char *key);

/*
 * A rule family's collector: hooks the walk calls, each may be NULL. `state` is what
 * tu_start returned. Every hook of every collector runs in table order.
 */
typedef struct hs_collector {
    const char *family;  /* "timers": the rules/<family>/ folder */
    /* Before the walk: makes the collector's state for this TU. */
    void *(*tu_start)(hs_walk *w);
    /* After the walk: adds the collector's lists to `facts` (in table order, after
     * "functions" and "calls") and deletes its state. */
    void (*tu_end)(void *state, hs_walk *w, json_t *facts);
    /* A function definition's body (and constructor initializers) starts or ended;
     * the enclosing function is set during both. */
    void (*function_start)(void *state, hs_walk *w);
    void (*function_end)(void *state, hs_walk *w);
    /* Each cursor of a function body, before the walk handles it (and its children). */
    void (*cursor)(void *state, hs_walk *w, CXCursor c);
    /* A variable or field declared outside any function: globals, statics, members. */
    void (*declaration)(void *state, hs_walk *w, CXCursor decl);
    /* Each call expression in a function body, after its cursor hook and before its
     * arguments are walked. qname is the callee's qualified name, NULL when the call
     * does not name a function (a call through a pointer). */
    void (*call)(void *state, hs_walk *w, CXCursor call, CXCursor callee, const char *qname);
    /* A value is about to be walked as assigned to (or initializing) a name: the sink. */
    void (*assigned)(void *state, hs_walk *w, CXCursor value);
    /* A function definition whose body the header skip leaves out of this TU: an earlier TU
     * walked it the same way (its USR; the enclosing function is not set). */
    void (*function_skipped)(void *state, hs_walk *w, const char *usr);
    /* Deletes what the collector kept in hs_walk_worker_memo, when the worker is done. */
    void (*worker_memo_delete)(void *memo);
} hs_collector;

/*
 * A slot the collector `self` keeps from one TU to the next of the same worker (NULL at
 * first; the collector makes what it puts there, worker_memo_delete deletes it). The header
 * skip leaves out of a TU the bodies an earlier TU of the worker walked the same way
 * (function_skipped); a TU-level fact that rests on what those bodies showed (the atomics'
 * names, checked against this TU's compiled-out code) reads what the earlier walk left here.
 * Without a worker (a TU walked alone) the slot lasts the TU.
 */
void **hs_walk_worker_memo(hs_walk *w, const hs_collector *self);

/*
 * Said by a collector while a body is walked (or in function_skipped): what this body gave
 * it lives in its worker memo, which other workers do not have. The keys that would let
 * another worker skip the body (its own, and its header's prefix key from this TU) are then
 * not shared with them (key_log.c): a worker without the memo walks the body itself.
 */
void hs_walk_body_in_memo(hs_walk *w);

/* The table (rules/registry.c), in a fixed order. */
const hs_collector *const *hs_collectors_all(size_t *count);

#endif
