/*
 * extract.c - parses one translation unit with libclang and walks the project's own
 * code, producing the TU's facts: functions (with hot/cold attributes), call edges
 * (with loop context) and what the collectors record (clock reads, atomics, events).
 * The collectors are called through the hook table of rules/registry.c and see the
 * walk only through the accessors and helpers of include/hotscan/walk.h.
 *
 * The walk tracks the control-flow context a rule needs without building a CFG:
 * which loops enclose a cursor, which branch arm it sits in, and whether that arm
 * leaves the enclosing scope (return, break, throw), so that two clock reads can be
 * told to be on one straight-line path or on exclusive ones.
 */
#define _GNU_SOURCE
#include "hotscan/facts.h"
#include "hotscan/walk.h"
#include "hotscan/arg_filter.h"
#include "conditions.h"
#include "header_prefix.h"
#include "inactive.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "hotscan/keyset.h"
#include "hotscan/parse_options.h"
#include "hotscan/ptrmap.h"

#define HS_MAX_NEST 128

/* A loop or a breakable statement the walk is inside. */
typedef struct {
    unsigned id;        /* start offset of the statement */
    unsigned end;       /* end offset */
    bool is_loop;       /* false for switch */
} hs_scope;

/* Cursors noted for the name-key service, turned into keys on request. */
typedef struct {
    CXCursor *cursors;
    unsigned n;
    unsigned offset;        /* writes: where */
    bool wait;              /* tests: the condition is a wait */
    bool sum;               /* combiners: the operands are added, not compared */
    bool difference;        /* combiners: one operand is subtracted from the other */
    bool fields_made;       /* combiners of two: fields[] is set */
    const char *fields[2];  /* the field each operand names (`t->wake_date`), as its USR, or NULL */
} hs_pending;

/* The function definition being walked. */
typedef struct {
    char *usr;
    char *name;
    CXCursor cursor;         /* the definition: its parameters decide guarded arms */
    unsigned body_end;
    /*
     * What the walk notes cheaply as it goes (cursors), turned into name keys only when
     * a collector asks for them (hs_walk_combinations and the like): most functions are
     * never asked about, and keys cost USRs and tokenizing.
     */
    hs_vec pending_combiners; /* hs_pending* : values combined together */
    hs_vec pending_writes;    /* hs_pending* : names written, with offsets */
    hs_vec pending_tests;     /* hs_pending* : conditions, with whether they wait */
    hs_vec pending_exits;     /* hs_pending* : tests that can end a loop (offset: the loop's id) */
    bool combiners_made, writes_made;
    unsigned char tests_made; /* 0; 1: tested and version keys less members' (make_tests); 2: all */
    hs_vec combiners;       /* hs_combination*, one for each of pending_combiners, in order */
    hs_vec writes;          /* hs_write*, made from pending_writes */
    hs_strmap *tested_keys; /* names read in conditions -> 1, 2 when the test is a wait */
    hs_strmap *version_keys;/* names a condition compares with == / != or masks with & / % */
} hs_walk_function;


/*
 * What the walk asks about a file, once per file and TU. libclang answers
 * clang_getFileContents and clang_getLocationForOffset by looking the file up among every
 * file and macro expansion the TU has (SourceManager::translateFile, a linear scan): tens of
 * thousands of instructions a call on a large TU, and the walk asks for a cursor's text
 * often. The table is keyed by the CXFile pointer (one per file for the TU's life).
 */
/* A reference's bytes in a skip key: kind, location, type kind, type's location (below). */
#define HS_FP_LOC_BYTES (sizeof(CXFileUniqueID) + sizeof(unsigned))
/* A declaration's place in a skip key: a file location, or (fp_decl_place) a marker and a
 * digest of what the declaration is. */
#define HS_FP_PLACE_MAX (sizeof(CXFileUniqueID) + 16)
#define HS_FP_REF_MAX (2 * sizeof(int) + 2 * HS_FP_PLACE_MAX)

typedef struct {
    CXFile file;           /* NULL: empty slot */
    char *real;            /* hs_project_file: real path under the root, or "" */
    const char *text;      /* clang_getFileContents, owned by the TU */
    size_t size;
    signed char has_text;  /* -1 not asked yet, 0 none, 1 text/size valid */
    signed char system;    /* -1 not asked yet, else whether it is a system header */
    signed char has_start; /* start is set */
    signed char prefix;    /* 1: prefix_key is the state this TU entered the file in
                              (header_prefix.c); 0: none (no header-skip cache, entered twice) */
    bool prefix_pending;   /* prefix_key is among the cache's pending keys */
    size_t prefix_pending_at; /* its index there */
    unsigned char prefix_key[16];
    CXSourceLocation start; /* the location of offset 0 */
} hs_file_entry;

typedef struct {
    hs_file_entry *slots;
    size_t cap, len;       /* cap is a power of two */
} hs_file_table;

/*
 * What fp_visitor adds to a skip key for a name referring to a declaration (its kind, its
 * place, its type's kind and where that type is declared): the same for each use of the
 * declaration in the TU, so made once per declaration, and kept as the 128-bit digest of
 * those bytes (a slot of 32 bytes, not 80: the table is probed for every name a digested
 * body uses, and its misses were most of the probe). Keyed by the declaration's AST node
 * (the cursor's data[0]) and kind.
 */
typedef struct {
    const void *decl;         /* NULL: empty slot */
    int kind;
    unsigned char digest[16];
} hs_fp_ref;

typedef struct {
    hs_fp_ref *slots;
    size_t cap, len;          /* cap is a power of two */
} hs_fp_refs;

/* The top bit of the raw source location libclang keeps in a CXSourceLocation's int_data:
 * clang's SourceLocation::MacroIDBit, set for a location inside a macro expansion. A file
 * location's raw value less its offset is where its inclusion begins in the location space. */
#define HS_MACRO_LOCATION_BIT 0x80000000u

/*
 * One inclusion of a file in the location space: its locations are consecutive from `start`
 * (its SLocEntry spans the file's size and one more for the end), so a file location whose
 * raw value is in [start, start + size] is in it at offset raw - start. That is what
 * clang_getExpansionLocation and clang_getSpellingLocation answer for it, less the binary
 * search for its FileID they make each time (inclusion_offset).
 */
typedef struct {
    bool known;
    unsigned start, size;
} hs_inclusion;

static bool inclusion_offset(const hs_inclusion *in, CXSourceLocation loc, unsigned *offset)
{
    if ((loc.int_data & HS_MACRO_LOCATION_BIT) || !in->known || loc.int_data < in->start ||
        loc.int_data - in->start > in->size)
        return false;
    *offset = loc.int_data - in->start;
    return true;
}

/* A header's static function left for after the top level (liveness, below). */
typedef struct {
    CXCursor fn;
    const void *canonical;  /* its canonical declaration: what a reference to it names */
    CXSourceLocation start; /* its extent's start, and where that and its end are */
    unsigned begin, end;    /* expanded in its file (text_key) */
    const char *path;       /* the file's real path (the file table's) */
    bool done;
} hs_deferred;

/* A range the preprocessor skipped: where it begins in libclang's location space (the raw
 * encoding of a file location), and its begin and end offsets in its file. */
typedef struct {
    unsigned raw, begin, end;
} hs_skipped_range;

struct hs_walk {
    CXTranslationUnit tu;
    const hs_ruledata *rd;
    const char *root;
    const char *tu_file;     /* the main file as given */
    const char *directory;   /* the command's working directory, or NULL */
    hs_file_table files;     /* per CXFile: real path (or ""), text, system header or not */
    /* Per declaration (its cursor's data[0] and kind), once per TU: */
    hs_ptrmap *qualnames;    /* qualified name */
    hs_ptrmap *usrs;         /* USR */
    hs_ptrmap *temperatures; /* 1 + function_temperature; and per function type (its data[0],
                                HS_TYPE_NORETURN_TAG) 2 when it says noreturn, else 1 */
    hs_strmap *fact_sites;   /* "kind:file:offset" -> facts recorded there so far */
    json_t *functions, *calls;
    json_t *skipped_bodies;  /* USRs of the definitions whose bodies the header skip left out */
    json_t *fn_stores, *overrides; /* function addresses stored in slots; method overrides */
    hs_strmap *stores_seen;        /* "slot|function" and "method|base": each once per TU */
    bool no_indirect;              /* HOTSCAN_BENCH_NO_INDIRECT: record no indirect calls,
                                      stores or overrides (bench/indirect_cost.sh only) */
    hs_inactive_code *inactive;    /* compiled-out code's identifiers, read on first use */
    hs_extract_cache *cache;       /* header functions walked before, or NULL */
    hs_extract_cache *worker_cache; /* the worker's, also when `cache` is NULL for this TU */
    bool body_in_memo;              /* hs_walk_body_in_memo was called for the current body */
    /* Liveness (defer_header_function): a C TU (compiled_as_c) with the header skip, unless
     * HOTSCAN_BENCH_NO_LIVENESS (bench only) says not. */
    bool liveness;
    bool in_deferred;               /* walking the deferred list: defer nothing */
    hs_deferred *deferred;          /* header static functions, in TU order */
    size_t ndeferred, cap_deferred;
    hs_ptrmap *live;                /* canonical function declarations code of the TU refers to */
    json_t *unreferenced;           /* the documents of unreferenced bodies walked (process_deferred) */
    hs_strmap *real_paths;         /* the worker's memo of real paths (the cache's), or NULL */
    bool check_text;               /* HOTSCAN_BENCH_CHECK_TEXT: hs_cursor_text asks libclang too */
    bool no_member_keys;           /* hs_collect_keys leaves members' and elements' keys out */
    hs_inclusion body_file;        /* the inclusion the last function walked is named in (offset_of) */
    unsigned texts_checked, texts_differ;
    const char *main_real;         /* the main file's real path (with a cache) */
    XXH128_hash_t context;         /* digest of the command line and directory */
    hs_strmap *skipped;            /* an inclusion's (or file's) key -> digest of its skipped ranges */
    hs_skipped_range *skipped_ranges; /* the TU's, sorted by location (skipped_digest) */
    size_t nskipped_ranges;
    bool skipped_ranges_read;
    hs_fp_refs fp_refs;            /* per declaration: what the skip key adds for a use of it */
    hs_strmap *key_strings;        /* every name key made in the TU, each once: hs_key_set's strings */
    /* The name key of an expression node (hs_expr_key's, or a call's "r:hash": tag
     * HS_CALL_KEY_KIND), or NULL when it names nothing: made on the first request and kept
     * for the TU. A condition's keys are asked for its test, its operands' combinations and
     * each copy of a value; a member expression's key tokenizes its text. Keyed by the
     * cursor's AST node (data[1] of an expression cursor) and kind. */
    hs_ptrmap *node_keys;

    /* The collectors (rules/registry.c) and their states, one each. */
    const hs_collector *const *collectors;
    size_t ncollectors;
    void **tu_memos;         /* hs_walk_worker_memo's slots when there is no worker cache */
    void **states;

    /* Walk state, valid inside a function body. */
    hs_walk_function *fn;
    hs_scope scopes[HS_MAX_NEST];
    int nscopes;
    hs_branch branches[HS_MAX_NEST]; /* made into JSON only for the facts that list them */
    int nbranches;
    /* Set while walking the right side of an assignment or initializer: the name that
     * receives the value (an expression, or with sink_is_decl the declared variable). */
    bool has_sink;
    bool sink_is_decl;
    bool sink_plain;         /* `=` or an initializer, not `+=` */
    CXCursor sink;
    CXCursor sink_value;     /* the whole value being assigned */
    int error_path;          /* > 0 inside code that ends in an abort-like call */
    const char *rare;        /* inside an arm that runs rarely: why (conditions.c), else NULL */
    hs_param_guard guards[HS_MAX_NEST]; /* arms entered that one parameter decides */
    int nguards;
    int condition;           /* > 0 inside the condition of an if, ?: or loop */
    int loop_condition;      /* > 0 inside a loop's condition */
    int comparison;          /* > 0 inside an operand of a comparison or && / || */
    int equality;            /* > 0 inside an operand of == or != */
    int masked;              /* > 0 inside an operand of & or % */
    unsigned lambda;         /* start offset of the innermost enclosing lambda, or 0 */
    unsigned stmt_start;     /* the statement (in a { } block) being walked starts here */
    unsigned block_end;      /* and its block ends here */
    CXCursor block;          /* that { } block (null outside any) */

    const hs_cursor_list *kids;         /* the children of the cursor hooks see (hs_walk_children) */
    enum CXCursorKind parent_kind;      /* of the children being walked */
    enum CXCursorKind walk_parent_kind; /* the parent of the cursor being handled: what
                                         * hooks see (hs_walk_parent_kind) */
};

/* ---- calling the collectors' hooks, in table order ---------------------------------- */

static void hooks_function_start(hs_walk *x)
{
    for (size_t i = 0; i < x->ncollectors; i++)
        if (x->collectors[i]->function_start)
            x->collectors[i]->function_start(x->states[i], x);
}

static void hooks_function_end(hs_walk *x)
{
    for (size_t i = 0; i < x->ncollectors; i++)
        if (x->collectors[i]->function_end)
            x->collectors[i]->function_end(x->states[i], x);
}

static void hooks_cursor(hs_walk *x, CXCursor c)
{
    for (size_t i = 0; i < x->ncollectors; i++)
        if (x->collectors[i]->cursor)
            x->collectors[i]->cursor(x->states[i], x, c);
}

static void hooks_declaration(hs_walk *x, CXCursor decl)
{
    for (size_t i = 0; i < x->ncollectors; i++)
        if (x->collectors[i]->declaration)
            x->collectors[i]->declaration(x->states[i], x, decl);
}

static void hooks_call(hs_walk *x, CXCursor call, CXCursor callee, const char *qname)
{
    for (size_t i = 0; i < x->ncollectors; i++)
        if (x->collectors[i]->call)
            x->collectors[i]->call(x->states[i], x, call, callee, qname);
}

static void hooks_assigned(hs_walk *x, CXCursor value)
{
    for (size_t i = 0; i < x->ncollectors; i++)
        if (x->collectors[i]->assigned)
            x->collectors[i]->assigned(x->states[i], x, value);
}

static void hooks_function_skipped(hs_walk *x, const char *usr)
{
    for (size_t i = 0; i < x->ncollectors; i++)
        if (x->collectors[i]->function_skipped)
            x->collectors[i]->function_skipped(x->states[i], x, usr);
}

/* Each collector's state for a TU (or, walk_unreferenced, for one body), in table order. */
static void **collectors_start(hs_walk *x)
{
    void **states = hs_xcalloc(x->ncollectors ? x->ncollectors : 1, sizeof(void *));
    for (size_t i = 0; i < x->ncollectors; i++)
        states[i] = x->collectors[i]->tu_start ? x->collectors[i]->tu_start(x) : NULL;
    return states;
}

/* Each collector adds its lists to `facts` and deletes its state. */
static void collectors_end(hs_walk *x, void **states, json_t *facts)
{
    for (size_t i = 0; i < x->ncollectors; i++)
        if (x->collectors[i]->tu_end)
            x->collectors[i]->tu_end(states[i], x, facts);
    free(states);
}

/* Deletes the collectors' memo slots (hs_walk_worker_memo): the worker's or one TU's. */
static void delete_memos(void **memos, const hs_collector *const *collectors, size_t ncollectors)
{
    for (size_t i = 0; memos && i < ncollectors; i++)
        if (memos[i] && collectors[i]->worker_memo_delete)
            collectors[i]->worker_memo_delete(memos[i]);
    free(memos);
}

void hs_tu_input_free(hs_tu_input *in)
{
    if (!in)
        return;
    free(in->file);
    free(in->directory);
    for (int i = 0; i < in->argc; i++)
        free(in->argv[i]);
    free(in->argv);
    free(in);
}

static bool has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

void hs_tu_input_set_default_flags(hs_tu_input *in)
{
    bool is_c = has_suffix(in->file, ".c");
    const char *args[] = {is_c ? "clang" : "clang++", "-x", is_c ? "c" : "c++",
                          is_c ? "-std=gnu17" : "-std=gnu++20", "-fsyntax-only", in->file};
    size_t n = sizeof args / sizeof args[0];
    in->argv = hs_xcalloc(n + 1, sizeof(char *));
    for (size_t i = 0; i < n; i++)
        in->argv[i] = hs_xstrdup(args[i]);
    in->argc = (int)n;
    in->default_flags = true;
}

/* ---- cursor and location helpers ------------------------------------------------ */

void hs_cursor_list_push(hs_cursor_list *l, CXCursor c)
{
    if (l->len == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 8;
        l->items = hs_xrealloc(l->items, l->cap * sizeof(CXCursor));
    }
    l->items[l->len++] = c;
}

/*
 * ---- A function body's cursors, listed once ---------------------------------------------
 *
 * The walk asks libclang for the children of every cursor of a body, and the collectors and
 * conditions.c ask again (hs_children, hs_strip_expr, hs_collect_keys): a clang_visitChildren
 * call costs some 850 instructions however few children it finds. So a body the walk walks
 * is listed by one visit of the whole definition (CXChildVisit_Recurse), and until the
 * function is done, hs_children and hs_collect_keys answer for its cursors from the list.
 *
 * The answers are what a visit of the cursor itself gives: the same children in the same
 * order, each as that visit makes it. libclang makes a statement's or expression's cursor
 * with the declaration its visitor last entered (data[0]), and a visit that starts at a
 * statement has entered none; so a statement or expression whose parent is not a
 * declaration is listed with a null data[0]. A cursor is found by its node: the kind and
 * data[1] (a statement's or expression's AST node), and for others data[0] too (a
 * declaration's node; a reference's target, with its place in data[1]).
 *
 * Two of libclang's cursors stand for another node: a ConstantExpr (a case label's value)
 * is shown as the expression in it, and an OpaqueValueExpr as its source expression. A
 * visit through a ConstantExpr reports the expression again as its own child (the same
 * node: its children go to the node listed); a visit through an OpaqueValueExpr finds no
 * children, where a visit of the cursor itself finds the source's. So the list answers for
 * a node without children only when its kind never has any (a literal, a reference, and
 * in C a name: no qualifier, no template arguments), and libclang is asked for the others.
 * (`--facts-dir` of redis, memcached, haproxy and 24 rocksdb TUs is the same either way;
 * HOTSCAN_BENCH_CHECK_BODY_LIST=1 compares every answer with libclang's.)
 */
typedef struct {
    CXCursor cursor;         /* as a visit of its parent gives it */
    unsigned parent;         /* the parent's index (the definition, index 0, is its own) */
    unsigned first, count;   /* its children: hs_body.kids[first .. first + count) */
} hs_body_node;

typedef struct {
    hs_body_node *nodes;     /* in preorder; nodes[0] is the definition */
    unsigned len, cap;
    CXCursor *kids;          /* the children of each node, in order */
    unsigned *slots;         /* 1 + a node's index; 0: an empty slot (open addressing) */
    size_t nslots;           /* a power of two */
    unsigned *stack;         /* while listing: the open nodes, outermost first */
    unsigned depth, stack_cap;
    bool broken;             /* a parent was not among the open nodes: the list is not used */
    bool c;                  /* a C function: a name (DeclRefExpr) has no children */
} hs_body;

/* The body being walked, or NULL: what hs_children answers from (one at a time). */
static const hs_body *current_body;

/* clang_isStatement || clang_isExpression, which libclang defines as these two ranges of
 * Index.h's kinds; written out because body_find asks it of every cursor the walk lists
 * (2.5 million times on 20 haproxy TUs), where two calls into libclang cost more than the
 * lookup. */
static bool is_statement_or_expression(enum CXCursorKind k)
{
    return (k >= CXCursor_FirstStmt && k <= CXCursor_LastStmt) || (k >= CXCursor_FirstExpr && k <= CXCursor_LastExpr);
}

/* Whether two cursors are one node (above). */
static bool same_node(CXCursor a, CXCursor b)
{
    return a.kind == b.kind && a.data[1] == b.data[1] &&
           (is_statement_or_expression(a.kind) || a.data[0] == b.data[0]);
}

static size_t node_slot(CXCursor c, size_t nslots)
{
    uint64_t h = (uint64_t)(uintptr_t)c.data[1] ^ ((uint64_t)c.kind << 48);
    if (!is_statement_or_expression(c.kind))
        h ^= (uint64_t)(uintptr_t)c.data[0] * 31;
    h ^= h >> 29;
    h *= 0x9E3779B97F4A7C15ull;
    h ^= h >> 32;
    return (size_t)h & (nslots - 1);
}

static const hs_body_node *body_find(const hs_body *b, CXCursor c)
{
    for (size_t j = node_slot(c, b->nslots); b->slots[j]; j = (j + 1) & (b->nslots - 1))
        if (same_node(b->nodes[b->slots[j] - 1].cursor, c))
            return &b->nodes[b->slots[j] - 1];
    return NULL;
}

/* Kinds libclang never lists children of. */
static bool leaf_kind(const hs_body *b, enum CXCursorKind k)
{
    switch (k) {
    case CXCursor_IntegerLiteral:
    case CXCursor_FloatingLiteral:
    case CXCursor_ImaginaryLiteral:
    case CXCursor_StringLiteral:
    case CXCursor_CharacterLiteral:
    case CXCursor_CXXBoolLiteralExpr:
    case CXCursor_CXXNullPtrLiteralExpr:
    case CXCursor_GNUNullExpr:
    case CXCursor_CXXThisExpr:
    case CXCursor_BreakStmt:
    case CXCursor_ContinueStmt:
    case CXCursor_NullStmt:
        return true;
    case CXCursor_DeclRefExpr:
        return b->c;
    default:
        return clang_isReference(k) && k != CXCursor_CXXBaseSpecifier;
    }
}

static bool check_body_list(void);

/* The children of `c` from the body being walked, borrowed (*count of them); NULL when the
 * list does not answer for `c` (above): ask libclang. */
static const CXCursor *body_children(CXCursor c, unsigned *count)
{
    const hs_body_node *n = current_body ? body_find(current_body, c) : NULL;
    if (!n || (n->count == 0 && !leaf_kind(current_body, (enum CXCursorKind)c.kind)) || check_body_list())
        return NULL;
    *count = n->count;
    return current_body->kids + n->first;
}

/* The children of `c`, *count of them: borrowed from the body being walked when its list
 * answers, else listed into *owned (free it with hs_cursor_list_free either way). */
static const CXCursor *children_of(CXCursor c, hs_cursor_list *owned, unsigned *count)
{
    *owned = (hs_cursor_list){NULL, 0, 0};
    const CXCursor *listed = body_children(c, count);
    if (listed)
        return listed;
    hs_children(c, owned);
    *count = owned->len;
    return owned->items;
}

static enum CXChildVisitResult body_visitor(CXCursor c, CXCursor parent, CXClientData data)
{
    hs_body *b = data;
    /* libclang shows a ConstantExpr (a case label's value) as the expression in it, and a
     * visit through it reports that expression again as its own child, then that one's
     * children: the same node, whose children go to the node listed already. */
    if (same_node(c, parent))
        return CXChildVisit_Recurse;
    /* In preorder, the parent is the innermost open node: the others are done. */
    while (b->depth > 1 && !same_node(b->nodes[b->stack[b->depth - 1]].cursor, parent))
        b->depth--;
    if (!same_node(b->nodes[b->stack[b->depth - 1]].cursor, parent)) {
        b->broken = true;
        return CXChildVisit_Break;
    }
    if (b->len == b->cap) {
        b->cap *= 2;
        b->nodes = hs_xrealloc(b->nodes, b->cap * sizeof *b->nodes);
    }
    b->nodes[b->len] = (hs_body_node){c, b->stack[b->depth - 1], 0, 0};
    if (b->depth == b->stack_cap) {
        b->stack_cap *= 2;
        b->stack = hs_xrealloc(b->stack, b->stack_cap * sizeof *b->stack);
    }
    b->stack[b->depth++] = b->len++;
    return CXChildVisit_Recurse;
}

static void body_free(hs_body *b)
{
    free(b->nodes);
    free(b->kids);
    free(b->slots);
    free(b->stack);
    memset(b, 0, sizeof *b);
}

/* Lists definition `fn`'s cursors; false (and nothing kept) when the list cannot be trusted. */
static bool body_list(hs_body *b, CXCursor fn)
{
    memset(b, 0, sizeof *b);
    /* Not zeroed: every node and stack entry is written before it is read (a calloc of
     * the 12 KB node list per function cost more than listing a small body). */
    b->cap = 256;
    b->nodes = hs_xmalloc(b->cap * sizeof *b->nodes);
    b->stack_cap = 64;
    b->stack = hs_xmalloc(b->stack_cap * sizeof *b->stack);
    b->nodes[0] = (hs_body_node){fn, 0, 0, 0};
    b->stack[0] = 0; /* the open node: the function */
    b->len = b->depth = 1;
    b->c = clang_getCursorLanguage(fn) == CXLanguage_C;
    clang_visitChildren(fn, body_visitor, b);
    if (b->broken) {
        body_free(b);
        return false;
    }
    free(b->stack);
    b->stack = NULL;
    /* Each node's children, grouped by parent in visit order, as a visit of the parent
     * makes them. */
    for (unsigned i = 1; i < b->len; i++)
        b->nodes[b->nodes[i].parent].count++;
    unsigned next = 0;
    for (unsigned i = 0; i < b->len; i++) {
        b->nodes[i].first = next;
        next += b->nodes[i].count;
        b->nodes[i].count = 0;
    }
    b->kids = hs_xmalloc((next ? next : 1) * sizeof *b->kids); /* each written below */
    for (unsigned i = 1; i < b->len; i++) {
        hs_body_node *p = &b->nodes[b->nodes[i].parent];
        if (is_statement_or_expression(b->nodes[i].cursor.kind) && !clang_isDeclaration(p->cursor.kind))
            b->nodes[i].cursor.data[0] = NULL;
        b->kids[p->first + p->count++] = b->nodes[i].cursor;
    }
    b->nslots = 64;
    while (b->nslots < 2 * (size_t)b->len)
        b->nslots *= 2;
    b->slots = hs_xcalloc(b->nslots, sizeof *b->slots);
    for (unsigned i = 0; i < b->len; i++) {
        if (body_find(b, b->nodes[i].cursor))
            continue; /* a node listed twice: its children are the same */
        size_t j = node_slot(b->nodes[i].cursor, b->nslots);
        while (b->slots[j])
            j = (j + 1) & (b->nslots - 1);
        b->slots[j] = i + 1;
    }
    return true;
}

static enum CXChildVisitResult collect_child(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    hs_cursor_list_push(data, c);
    return CXChildVisit_Continue;
}

void hs_children(CXCursor c, hs_cursor_list *out)
{
    out->items = NULL;
    out->len = out->cap = 0;
    unsigned n = 0;
    const CXCursor *listed = body_children(c, &n);
    if (listed) {
        if (n) {
            out->items = hs_xmalloc(n * sizeof(CXCursor));
            memcpy(out->items, listed, n * sizeof(CXCursor));
            out->len = out->cap = n;
        }
        return;
    }
    clang_visitChildren(c, collect_child, out);
    if (current_body && check_body_list()) {
        /* HOTSCAN_BENCH_CHECK_BODY_LIST: the list's answer must be libclang's. */
        const hs_body_node *at = body_find(current_body, c);
        bool same = !at || (at->count == 0 && !leaf_kind(current_body, (enum CXCursorKind)c.kind)) ||
                    (at->count == out->len &&
                     memcmp(current_body->kids + at->first, out->items, out->len * sizeof(CXCursor)) == 0);
        if (!same) {
            CXString k = clang_getCursorKindSpelling((enum CXCursorKind)c.kind);
            fprintf(stderr, "hotscan: body list: %s has %u children, libclang gives %u\n", clang_getCString(k),
                    at->count, out->len);
            clang_disposeString(k);
        }
    }
}

/* HOTSCAN_BENCH_CHECK_BODY_LIST=1: hs_children asks libclang every time and compares. */
static bool check_body_list(void)
{
    static int check = -1;
    if (check < 0)
        check = getenv("HOTSCAN_BENCH_CHECK_BODY_LIST") != NULL;
    return check != 0;
}

void hs_cursor_list_free(hs_cursor_list *l)
{
    free(l->items);
    l->items = NULL;
    l->len = l->cap = 0;
}

/* The member of `pattern` (a class template, a partial specialization or a member class of
 * one) that `member` was instantiated from: same kind, same name, same place. */
typedef struct {
    CXCursor member, found;
    CXString name;
} pattern_search;

static enum CXChildVisitResult pattern_member_visitor(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    pattern_search *s = data;
    if (hs_cursor_kind(c) != hs_cursor_kind(s->member) ||
        !clang_equalLocations(clang_getCursorLocation(c), clang_getCursorLocation(s->member)))
        return CXChildVisit_Continue;
    CXString n = clang_getCursorSpelling(c);
    bool same = strcmp(clang_getCString(n), clang_getCString(s->name)) == 0;
    clang_disposeString(n);
    if (!same)
        return CXChildVisit_Continue;
    s->found = c;
    return CXChildVisit_Break;
}

/*
 * The declaration `decl` was instantiated from, or a null cursor. libclang answers for
 * functions, methods, static data members and member classes; a field is looked up in the
 * class it was instantiated from. An explicit specialization is code of its own, written
 * elsewhere: only a declaration at the same place as the one it names counts (an implicit
 * instantiation keeps its pattern's place).
 */
static CXCursor instantiated_from(CXCursor decl)
{
    CXCursor t = clang_getSpecializedCursorTemplate(decl);
    if (hs_cursor_is_null(t) && hs_cursor_kind(decl) == CXCursor_FieldDecl) {
        CXCursor pattern = clang_getSpecializedCursorTemplate(clang_getCursorSemanticParent(decl));
        if (!hs_cursor_is_null(pattern)) {
            pattern_search s = {decl, clang_getNullCursor(), clang_getCursorSpelling(decl)};
            clang_visitChildren(pattern, pattern_member_visitor, &s);
            clang_disposeString(s.name);
            t = s.found;
        }
    }
    if (hs_cursor_is_null(t) || !clang_equalLocations(clang_getCursorLocation(t), clang_getCursorLocation(decl)))
        return clang_getNullCursor();
    return t;
}

/*
 * A declaration's USR, the name it has in every TU. The members of a class template's
 * implicit instantiations (`Pin<Page>::pins_`, `Pin<Page>::pinned`) and a function
 * template's implicit specializations (`twice<int>`) are named by the template's own
 * declaration: the walk visits a template once, as written, and never its instantiations, so
 * a call of `p->pinned()` must reach the template's body, and `p->pins_++` must be the same
 * variable the template's `pins_ != 0` tests (issue 10). Instantiations of one template
 * thus share one name, as accesses through pointers share one verdict.
 */
char *hs_cursor_usr(CXCursor c)
{
    for (int depth = 0; depth < 8; depth++) { /* a member template of a member class... */
        CXCursor from = instantiated_from(c);
        if (hs_cursor_is_null(from))
            break;
        c = from;
    }
    CXString s = clang_getCursorUSR(c);
    char *r = hs_xstrdup(clang_getCString(s));
    clang_disposeString(s);
    return r;
}

static char *cursor_spelling(CXCursor c)
{
    CXString s = clang_getCursorSpelling(c);
    char *r = hs_xstrdup(clang_getCString(s));
    clang_disposeString(s);
    return r;
}

/* Real path of a CXFile when it belongs to the project, else "" (cached per file). */
static size_t file_slot_of(CXFile file, size_t cap)
{
    uintptr_t h = (uintptr_t)file;
    h ^= h >> 17;
    h *= (uintptr_t)0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 7) & (cap - 1);
}

static hs_file_entry *file_find(hs_file_table *t, CXFile file)
{
    size_t j = file_slot_of(file, t->cap);
    while (t->slots[j].file && t->slots[j].file != file)
        j = (j + 1) & (t->cap - 1);
    return &t->slots[j];
}

/* The file's entry, made (empty) on first use. Entries move only when one is added. */
static hs_file_entry *file_entry(hs_walk *x, CXFile file)
{
    hs_file_table *t = &x->files;
    if (t->cap) {
        hs_file_entry *e = file_find(t, file);
        if (e->file)
            return e;
    }
    if (2 * (t->len + 1) > t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        hs_file_table grown = {hs_xcalloc(cap, sizeof(hs_file_entry)), cap, t->len};
        for (size_t i = 0; i < t->cap; i++)
            if (t->slots[i].file)
                *file_find(&grown, t->slots[i].file) = t->slots[i];
        free(t->slots);
        *t = grown;
    }
    hs_file_entry *e = file_find(t, file);
    e->file = file;
    e->has_text = -1;
    e->system = -1;
    t->len++;
    return e;
}

static void file_table_free(hs_file_table *t)
{
    for (size_t i = 0; i < t->cap; i++)
        free(t->slots[i].real);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

const char *hs_walk_file_contents(hs_walk *x, CXFile file, size_t *size)
{
    *size = 0;
    if (!file)
        return NULL;
    hs_file_entry *e = file_entry(x, file);
    if (e->has_text < 0) {
        e->text = clang_getFileContents(x->tu, file, &e->size);
        e->has_text = e->text != NULL;
    }
    if (!e->has_text)
        return NULL;
    *size = e->size;
    return e->text;
}

/*
 * The start (offset 0) of the file `spelled_at` is spelled in, found without
 * clang_getLocationForOffset: that one returns SourceManager::getMacroArgExpandedLocation,
 * which the first time for a file walks every macro expansion entered after the file's
 * start (computeMacroArgsCache): 20-70 ms a header in haproxy's dev/flags/flags.c, which
 * includes nearly every header. A token lexed at `spelled_at` (clang_tokenize lexes the
 * spelling's file) has a file location in that file; less its offset, it is the file's
 * start. Checked, and false when it does not come out as (file, 0).
 */
static bool spelled_file_start(hs_walk *x, CXFile file, CXSourceLocation spelled_at, CXSourceLocation *out)
{
    CXToken *tokens = NULL;
    unsigned n = 0;
    clang_tokenize(x->tu, clang_getRange(spelled_at, spelled_at), &tokens, &n);
    bool ok = false;
    if (n > 0) {
        CXSourceLocation t = clang_getTokenLocation(x->tu, tokens[0]);
        CXFile tf = NULL, sf = NULL;
        unsigned toff = 0, soff = 1;
        clang_getSpellingLocation(t, &tf, NULL, NULL, &toff);
        if (tf == file && t.int_data >= toff) {
            CXSourceLocation s = t;
            s.int_data -= toff;
            clang_getSpellingLocation(s, &sf, NULL, NULL, &soff);
            if (sf == file && soff == 0) {
                *out = s;
                ok = true;
            }
        }
    }
    if (tokens)
        clang_disposeTokens(x->tu, tokens, n);
    return ok;
}

bool hs_walk_file_is_system(hs_walk *x, CXFile file, CXSourceLocation spelled_at)
{
    if (!file)
        return false;
    hs_file_entry *e = file_entry(x, file);
    if (e->system < 0) {
        CXSourceLocation start;
        if (!spelled_file_start(x, file, spelled_at, &start))
            start = clang_getLocationForOffset(x->tu, file, 0);
        e->system = clang_Location_isInSystemHeader(start) != 0;
    }
    return e->system != 0;
}

/*
 * A location outside any macro (the top bit of the raw encoding libclang keeps in int_data
 * clear) less its offset is the start of the file it is spelled in: noted for
 * hs_walk_location_at, which then need not ask clang_getLocationForOffset. That one's
 * first call for a file walks every macro expansion entered after the file's start
 * (computeMacroArgsCache, see spelled_file_start): 17 million instructions for redis's
 * server.c, whose if/else tests asked for it. Checked to come back as (file, 0).
 */
static void note_file_start(hs_walk *x, CXSourceLocation loc)
{
    if (loc.int_data & HS_MACRO_LOCATION_BIT)
        return;
    CXFile file = NULL;
    unsigned offset = 0;
    clang_getSpellingLocation(loc, &file, NULL, NULL, &offset);
    if (!file || loc.int_data < offset)
        return;
    hs_file_entry *e = file_entry(x, file);
    if (e->has_start)
        return;
    CXSourceLocation start = loc;
    start.int_data -= offset;
    CXFile sf = NULL;
    unsigned soff = 1;
    clang_getSpellingLocation(start, &sf, NULL, NULL, &soff);
    if (sf == file && soff == 0) {
        e->start = start;
        e->has_start = 1;
    }
}

CXSourceLocation hs_walk_location_at(hs_walk *x, CXFile file, unsigned offset)
{
    if (!file)
        return clang_getNullLocation();
    hs_file_entry *e = file_entry(x, file);
    if (!e->has_start) {
        e->start = clang_getLocationForOffset(x->tu, file, 0);
        e->has_start = 1;
    }
    if (clang_equalLocations(e->start, clang_getNullLocation()))
        return clang_getLocationForOffset(x->tu, file, offset);
    /* What libclang does itself (ASTUnit::getLocation: the file's start, then
     * SourceLocation::getLocWithOffset, which adds to the raw encoding libclang keeps in
     * int_data), less the file lookup. Past the file's end libclang answers a null
     * location: ask it then. */
    size_t size = 0;
    hs_walk_file_contents(x, file, &size);
    if (offset > size)
        return clang_getLocationForOffset(x->tu, file, offset);
    CXSourceLocation loc = e->start;
    loc.int_data += offset;
    return loc;
}

/*
 * realpath(3) through the worker's memo: every TU of a worker names mostly the same
 * headers, and each realpath asks the kernel about every component of the path (on
 * haproxy about 1% of the scan's CPU). A scan does not expect its tree to move under it.
 * A malloc'd copy, or NULL when the path does not resolve.
 */
static char *memo_realpath(hs_strmap *memo, const char *path)
{
    if (!memo)
        return hs_realpath(path);
    const char *known = hs_strmap_get(memo, path);
    if (!known) {
        char *real = hs_realpath(path);
        known = real ? real : hs_xstrdup("");
        hs_strmap_put(memo, path, (void *)known);
    }
    return known[0] ? hs_xstrdup(known) : NULL;
}

const char *hs_project_file(hs_walk *x, CXFile file)
{
    if (!file)
        return "";
    hs_file_entry *e = file_entry(x, file);
    if (e->real)
        return e->real;
    CXString name = clang_File_tryGetRealPathName(file);
    const char *n = clang_getCString(name);
    char *real = NULL;
    if (!n || !n[0]) {
        clang_disposeString(name);
        name = clang_getFileName(file);
        n = clang_getCString(name);
    }
    if (n && n[0] && n[0] != '/' && x->directory) {
        /* clang names a file as the command did: relative to its working directory. */
        char *joined = hs_path_join(x->directory, n);
        real = memo_realpath(x->real_paths, joined);
        free(joined);
    } else if (n && n[0]) {
        real = memo_realpath(x->real_paths, n);
    }
    clang_disposeString(name);
    char *value = (real && hs_path_is_under(x->root, real)) ? real : hs_xstrdup("");
    if (value != real)
        free(real);
    e->real = value;
    return value;
}

/* Its extent starts at its name, as no written declaration of a function does (the return
 * type comes first; one made by a macro starts at the macro's name, a file location, while
 * its name is in the expansion). */
bool hs_decl_is_implicit(CXCursor decl)
{
    if (hs_cursor_kind(decl) != CXCursor_FunctionDecl || clang_isCursorDefinition(decl))
        return false;
    CXSourceLocation at = clang_getCursorLocation(decl);
    return clang_getRangeStart(clang_getCursorExtent(decl)).int_data == at.int_data;
}

bool hs_location_is_project(hs_walk *x, CXSourceLocation loc)
{
    if (clang_Location_isInSystemHeader(loc))
        return false;
    CXFile file;
    clang_getExpansionLocation(loc, &file, NULL, NULL, NULL);
    return hs_project_file(x, file)[0] != '\0';
}

/* Length of the identifier starting at `offset` in the file (a macro name). */
size_t hs_identifier_length(const char *text, size_t size, size_t offset)
{
    size_t n = 0;
    while (text && offset + n < size) {
        char ch = text[offset + n];
        if (!(ch == '_' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9')))
            break;
        n++;
    }
    return n;
}

static unsigned identifier_length(hs_walk *x, CXFile file, unsigned offset)
{
    size_t size = 0;
    const char *text = hs_walk_file_contents(x, file, &size);
    return (unsigned)hs_identifier_length(text, size, offset);
}

/*
 * clang_getCursorExtent gives a range whose end is past the last token, which it lexes again
 * to measure (about 1,700 instructions a call); most callers want only the start. For a
 * statement libclang's cursor location is the statement's getBeginLoc(), which is where its
 * extent (getSourceRange()) starts; for an expression too, except for the kinds whose
 * location is a name (a DeclRefExpr's, a member's, an implicit cast's operand's,
 * Objective-C's), which are left to the extent here. The extent of a node whose end is
 * invalid (error recovery only) is null where the location is not.
 */
static bool start_is_location(enum CXCursorKind k)
{
    if (clang_isStatement(k))
        return true;
    switch (k) {
    case CXCursor_CallExpr:
    case CXCursor_UnaryOperator:
    case CXCursor_BinaryOperator:
    case CXCursor_CompoundAssignOperator:
    case CXCursor_ConditionalOperator:
    case CXCursor_ParenExpr:
    case CXCursor_ArraySubscriptExpr:
    case CXCursor_CStyleCastExpr:
    case CXCursor_LambdaExpr:
        return true;
    default:
        return false;
    }
}

CXSourceLocation hs_cursor_start(CXCursor c)
{
    if (start_is_location(hs_cursor_kind(c)))
        return clang_getCursorLocation(c);
    return clang_getRangeStart(clang_getCursorExtent(c));
}

bool hs_cursor_pos(hs_walk *x, CXCursor c, hs_pos *start, hs_pos *end)
{
    /* Without an end, only the start: the extent is not measured. */
    CXSourceRange r = end ? clang_getCursorExtent(c) : clang_getNullRange();
    CXSourceLocation b = end ? clang_getRangeStart(r) : hs_cursor_start(c), e = clang_getRangeEnd(r);
    CXFile fb, fe, fs;
    clang_getExpansionLocation(b, &fb, &start->line, &start->column, &start->offset);
    start->file = hs_project_file(x, fb);
    if (!start->file[0])
        return false;
    if (!end)
        return true;
    /* A file location is its own spelling: only one in a macro needs asking. */
    bool in_macro = false;
    if (b.int_data & HS_MACRO_LOCATION_BIT) {
        unsigned soff;
        clang_getSpellingLocation(b, &fs, NULL, NULL, &soff);
        in_macro = (fs != fb || soff != start->offset);
    }
    clang_getExpansionLocation(e, &fe, &end->line, &end->column, &end->offset);
    end->file = start->file;
    if (in_macro || fe != fb || end->offset < start->offset) {
        /* Inside a macro expansion: the range a person sees is the macro's name. */
        unsigned n = identifier_length(x, fb, start->offset);
        end->line = start->line;
        end->column = start->column + n;
        end->offset = start->offset + n;
    }
    return true;
}

/* Offset just past the parenthesized group starting at text[i] == '(' (strings skipped). */
static size_t skip_parens(const char *text, size_t size, size_t i)
{
    int depth = 0;
    for (; i < size; i++) {
        char ch = text[i];
        if (ch == '"' || ch == '\'') {
            for (i++; i < size && text[i] != ch; i++)
                if (text[i] == '\\')
                    i++;
        } else if (ch == '(') {
            depth++;
        } else if (ch == ')' && --depth == 0) {
            return i + 1;
        }
    }
    return 0;
}

bool hs_location_in_macro(CXSourceLocation loc, CXFile *file, unsigned *offset)
{
    CXFile ef = NULL;
    unsigned eoff = 0;
    bool in_macro = false;
    if (file || offset || (loc.int_data & HS_MACRO_LOCATION_BIT))
        clang_getExpansionLocation(loc, &ef, NULL, NULL, &eoff);
    if (loc.int_data & HS_MACRO_LOCATION_BIT) {
        CXFile sf = NULL;
        unsigned soff = 0;
        clang_getSpellingLocation(loc, &sf, NULL, NULL, &soff);
        in_macro = sf != ef || soff != eoff;
    }
    if (file)
        *file = ef;
    if (offset)
        *offset = eoff;
    return in_macro;
}

bool hs_written_span(hs_walk *x, CXCursor c, hs_span *out)
{
    memset(out, 0, sizeof *out);
    hs_pos start, end;
    if (!hs_cursor_pos(x, c, &start, &end))
        return false;
    CXFile ef;
    bool in_macro = hs_location_in_macro(hs_cursor_start(c), &ef, NULL);
    size_t size = 0;
    const char *text = hs_walk_file_contents(x, ef, &size);
    if (!text)
        return false;
    out->file = start.file;
    out->offset = start.offset;
    out->length = end.offset - start.offset;
    if (in_macro) {
        /* The macro's name, then its arguments when it takes any. */
        size_t i = start.offset + hs_identifier_length(text, size, start.offset);
        out->macro_name = hs_xstrndup(text + start.offset, i - start.offset);
        size_t j = i;
        while (j < size && (text[j] == ' ' || text[j] == '\t'))
            j++;
        if (j < size && text[j] == '(') {
            size_t close = skip_parens(text, size, j);
            if (close)
                i = close;
        }
        out->length = (unsigned)(i - start.offset);
    }
    if (out->offset + out->length > size)
        return false;
    out->text = hs_xstrndup(text + out->offset, out->length);
    return true;
}

void hs_span_free(hs_span *s)
{
    free(s->text);
    free(s->macro_name);
}

void hs_fact_set_position(json_t *fact, const hs_pos *start, const hs_pos *end)
{
    json_object_set_new_nocheck(fact, "file", json_string(start->file));
    json_object_set_new_nocheck(fact, "line", json_integer(start->line));
    json_object_set_new_nocheck(fact, "column", json_integer(start->column));
    json_object_set_new_nocheck(fact, "offset", json_integer(start->offset));
    if (end) {
        json_object_set_new_nocheck(fact, "end_line", json_integer(end->line));
        json_object_set_new_nocheck(fact, "end_column", json_integer(end->column));
        json_object_set_new_nocheck(fact, "length", json_integer(end->offset - start->offset));
    }
}

static char *tokens_text(hs_walk *x, CXSourceRange r, bool spaced)
{
    CXToken *toks = NULL;
    unsigned n = 0;
    clang_tokenize(x->tu, r, &toks, &n);
    hs_buf b;
    hs_buf_init(&b);
    for (unsigned i = 0; i < n; i++) {
        CXString s = clang_getTokenSpelling(x->tu, toks[i]);
        if (spaced && i > 0)
            hs_buf_puts(&b, " ");
        hs_buf_puts(&b, clang_getCString(s));
        clang_disposeString(s);
    }
    clang_disposeTokens(x->tu, toks, n);
    return hs_buf_take(&b);
}

/*
 * tokens_text(x, r, false) read from the file's bytes: what clang_tokenize lexes from the
 * range's spelled start (comments kept as tokens, as it keeps them) while the end of the last
 * token lies before the spelled end, each token's spelling with its backslash-newlines
 * removed, written without the white space between. clang_tokenize and a CXString per token
 * cost about 75,000 instructions a call on haproxy, where an extent from a macro's body can
 * run from the #define to the use, thousands of tokens (7% of a worker's instructions); this
 * reads the bytes once. NULL when the range's two ends are not spelled in one file (the
 * caller then asks libclang, which answers ""). HOTSCAN_BENCH_CHECK_TEXT=1 compares every
 * answer with libclang's (bench only).
 */
static size_t skip_escaped_newline(const char *t, size_t n, size_t i)
{
    /* A backslash, horizontal white space, then a newline: clang splices the lines. */
    if (i >= n || t[i] != '\\')
        return i;
    size_t j = i + 1;
    while (j < n && (t[j] == ' ' || t[j] == '\t' || t[j] == '\f' || t[j] == '\v'))
        j++;
    if (j < n && t[j] == '\r')
        j++;
    return j < n && t[j] == '\n' ? j + 1 : i;
}

static bool ident_byte(unsigned char ch)
{
    return ch == '_' || ch == '$' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch >= 0x80;
}

/* The end of the token starting at `i` (t[i] is not white space). */
static size_t raw_token_end(const char *t, size_t n, size_t i)
{
    static const char *const puncts[] = {"%:%:", "->*", "...", "<<=", ">>=", "<=>", "->", "++", "--", "<<", ">>", "<=",
                                         ">=",   "==",  "!=",  "&&",  "||",  "+=",  "-=", "*=", "/=", "%=", "&=", "|=",
                                         "^=",   "##",  "::",  ".*",  "<:",  ":>",  "<%", "%>", "%:", NULL};
    char ch = t[i];
    if (ch == '/' && i + 1 < n && t[i + 1] == '/') {
        size_t j = i + 2;
        while (j < n && t[j] != '\n') {
            size_t k = skip_escaped_newline(t, n, j);
            j = k != j ? k : j + 1;
        }
        return j;
    }
    if (ch == '/' && i + 1 < n && t[i + 1] == '*') {
        const char *close = n - i >= 4 ? memmem(t + i + 2, n - i - 2, "*/", 2) : NULL;
        return close ? (size_t)(close - t) + 2 : n;
    }
    size_t j = i;
    if (ident_byte((unsigned char)ch) && !(ch >= '0' && ch <= '9')) {
        while (j < n && ident_byte((unsigned char)t[j]))
            j++;
        /* A string or character literal's prefix (L, u, U, u8, and R for a raw string). */
        size_t len = j - i;
        bool raw = len >= 1 && t[j - 1] == 'R' && j < n && t[j] == '"' &&
                   (len == 1 || (len == 2 && strchr("LuU", t[i])) || (len == 3 && strncmp(t + i, "u8R", 3) == 0));
        if (raw) {
            size_t open = j + 1;
            while (open < n && open - j <= 17 && t[open] != '(')
                open++;
            if (open < n && t[open] == '(') {
                size_t dlen = open - (j + 1);
                for (size_t k = open + 1; k + dlen + 1 < n + 1 && k < n; k++)
                    if (t[k] == ')' && k + 1 + dlen < n && strncmp(t + k + 1, t + j + 1, dlen) == 0 &&
                        t[k + 1 + dlen] == '"')
                        return k + 2 + dlen;
                return n;
            }
        }
        bool prefix = len <= 2 && j < n && (t[j] == '"' || t[j] == '\'') &&
                      ((len == 1 && strchr("LuU", t[i])) || (len == 2 && t[i] == 'u' && t[i + 1] == '8'));
        if (!prefix)
            return j;
        ch = t[j];
        i = j;
    }
    if (ch == '"' || ch == '\'') {
        j = i + 1;
        while (j < n && t[j] != ch && t[j] != '\n') {
            size_t k = skip_escaped_newline(t, n, j);
            if (k != j)
                j = k;
            else
                j += t[j] == '\\' && j + 1 < n && t[j + 1] != '\n' ? 2 : 1;
        }
        return j < n && t[j] == ch ? j + 1 : j;
    }
    if ((ch >= '0' && ch <= '9') || (ch == '.' && i + 1 < n && t[i + 1] >= '0' && t[i + 1] <= '9')) {
        j = i + 1;
        while (j < n) {
            char d = t[j];
            if ((d == '+' || d == '-') && strchr("eEpP", t[j - 1]))
                j++;
            else if (d == '\'' && j + 1 < n && ident_byte((unsigned char)t[j + 1]) && t[j - 1] >= '0' && t[j - 1] <= '9')
                j++; /* a digit separator */
            else if (ident_byte((unsigned char)d) || d == '.')
                j++;
            else
                break;
        }
        return j;
    }
    if (!strchr("%-.<>+&|=!*/^#:", ch))
        return i + 1;
    for (int p = 0; puncts[p]; p++) {
        if (puncts[p][0] != ch)
            continue;
        size_t len = strlen(puncts[p]);
        if (n - i >= len && memcmp(t + i, puncts[p], len) == 0)
            return i + len;
    }
    return i + 1;
}

static char *source_tokens_text(hs_walk *x, CXSourceRange r)
{
    CXFile fb = NULL, fe = NULL;
    unsigned ob = 0, oe = 0;
    clang_getSpellingLocation(clang_getRangeStart(r), &fb, NULL, NULL, &ob);
    clang_getSpellingLocation(clang_getRangeEnd(r), &fe, NULL, NULL, &oe);
    if (!fb || !clang_File_isEqual(fb, fe))
        return NULL;
    size_t n = 0;
    const char *t = hs_walk_file_contents(x, fb, &n);
    if (!t)
        return NULL;
    hs_buf b;
    hs_buf_init(&b);
    size_t i = ob;
    do {
        /* White space between tokens; a spliced line is white space only when white space
         * follows it, else it starts the next token (clang's lexer reads through it). */
        while (i < n && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r' || t[i] == '\f' || t[i] == '\v'))
            i++;
        size_t first = i;
        for (;;) {
            size_t k = first;
            while (skip_escaped_newline(t, n, k) != k)
                k = skip_escaped_newline(t, n, k);
            bool space = k < n && t[k] && strchr(" \t\n\r\f\v", t[k]);
            if (k != first && !space)
                break; /* the token starts at the backslash */
            if (!space) {
                i = first = k;
                break;
            }
            i = first = k + 1;
        }
        while (skip_escaped_newline(t, n, first) != first)
            first = skip_escaped_newline(t, n, first);
        if (first >= n)
            break;
        size_t end = raw_token_end(t, n, first);
        /* Spellings as clang_getTokenSpelling gives them: an identifier's name (spliced lines
         * removed), any other token's bytes as written. */
        bool identifier = ident_byte((unsigned char)t[first]) && !(t[first] >= '0' && t[first] <= '9') &&
                          t[end - 1] != '"' && t[end - 1] != '\'';
        if (identifier)
            hs_buf_append(&b, t + first, end - first);
        else
            hs_buf_append(&b, t + i, end - i);
        i = end;
    } while (i < oe);
    return hs_buf_take(&b);
}

char *hs_cursor_text(hs_walk *x, CXCursor c)
{
    CXSourceRange r = clang_getCursorExtent(c);
    char *text = source_tokens_text(x, r);
    if (!text)
        return tokens_text(x, r, false);
    if (x->check_text) {
        char *libclang = tokens_text(x, r, false);
        x->texts_checked++;
        if (strcmp(libclang, text) != 0) {
            x->texts_differ++;
            for (char *q = libclang; *q; q++)
                *q = *q == '\n' ? '|' : *q;
            fprintf(stderr, "hotscan: text check: libclang \"%.300s\", read \"%.300s\"\n", libclang, text);
        }
        free(libclang);
    }
    return text;
}

char *hs_cursor_source(hs_walk *x, CXCursor c)
{
    hs_pos s, e;
    if (!hs_cursor_pos(x, c, &s, &e))
        return hs_xstrdup("");
    CXFile file;
    clang_getExpansionLocation(hs_cursor_start(c), &file, NULL, NULL, NULL);
    size_t size = 0;
    const char *text = hs_walk_file_contents(x, file, &size);
    if (!text || e.offset > size || e.offset < s.offset)
        return hs_xstrdup("");
    return hs_xstrndup(text + s.offset, e.offset - s.offset);
}

static bool is_scope_kind(enum CXCursorKind k)
{
    return k == CXCursor_Namespace || k == CXCursor_ClassDecl || k == CXCursor_StructDecl ||
           k == CXCursor_UnionDecl || k == CXCursor_ClassTemplate ||
           k == CXCursor_ClassTemplatePartialSpecialization || k == CXCursor_EnumDecl;
}

/* The USR of a declaration, computed once per TU (keyed by the declaration's AST node and
 * the cursor's kind). Owned by the cache. */
const char *hs_cursor_usr_cached(hs_walk *x, CXCursor decl)
{
    int kind = (int)hs_cursor_kind(decl);
    char *usr = hs_ptrmap_get(x->usrs, decl.data[0], kind);
    if (!usr) {
        usr = hs_cursor_usr(decl);
        hs_ptrmap_put(x->usrs, decl.data[0], kind, usr);
    }
    return usr;
}

/* "ns::Class::method", inline namespaces (std::chrono::_V2) left out. */
const char *hs_qualified_name(hs_walk *x, CXCursor decl)
{
    int kind = (int)hs_cursor_kind(decl);
    const char *cached = hs_ptrmap_get(x->qualnames, decl.data[0], kind);
    if (cached)
        return cached;
    char *name = cursor_spelling(decl);
    CXCursor p = clang_getCursorSemanticParent(decl);
    while (!hs_cursor_is_null(p) && is_scope_kind(hs_cursor_kind(p))) {
        bool skip = hs_cursor_kind(p) == CXCursor_Namespace && clang_Cursor_isInlineNamespace(p);
        char *pn = cursor_spelling(p);
        /* "struct (unnamed at /abs/path.c:18:8)" says nothing useful in a message. */
        if (strstr(pn, "(unnamed") || strstr(pn, "(anonymous")) {
            free(pn);
            pn = hs_xstrdup("(anonymous)");
        }
        if (!skip && pn[0]) {
            char *joined = hs_strjoin3(pn, "::", name);
            free(name);
            name = joined;
        }
        free(pn);
        p = clang_getCursorSemanticParent(p);
    }
    hs_ptrmap_put(x->qualnames, decl.data[0], kind, name);
    return name;
}

CXCursor hs_strip_expr(CXCursor c)
{
    for (;;) {
        enum CXCursorKind k = hs_cursor_kind(c);
        if (k != CXCursor_UnexposedExpr && k != CXCursor_ParenExpr && k != CXCursor_CStyleCastExpr &&
            k != CXCursor_CXXStaticCastExpr && k != CXCursor_CXXFunctionalCastExpr)
            return c;
        hs_cursor_list kids;
        unsigned n = 0;
        const CXCursor *listed = children_of(c, &kids, &n);
        /* A cast's first child may be its type reference; the expression is last. */
        bool keep = n == 0 || (n != 1 && k == CXCursor_UnexposedExpr);
        CXCursor next = keep ? c : listed[n - 1];
        hs_cursor_list_free(&kids);
        if (keep)
            return c;
        c = next;
    }
}

/* The walk's copy of a key (hs_walk.key_strings), made once per distinct key and TU. */
static const char *intern_key(hs_walk *x, const char *key)
{
    const char *k = hs_strmap_key(x->key_strings, key);
    if (!k) {
        hs_strmap_put(x->key_strings, key, NULL);
        k = hs_strmap_key(x->key_strings, key);
    }
    return k;
}

/* A call's own key ("r:hash") is remembered apart from its hs_expr_key (none). */
#define HS_CALL_KEY_KIND (-(int)CXCursor_CallExpr)

static const char *expr_key(hs_walk *x, CXCursor c);

/* hs_expr_key's key, made: a new string, or NULL. */
static char *make_expr_key(hs_walk *x, CXCursor c)
{
    c = hs_strip_expr(c);
    enum CXCursorKind k = hs_cursor_kind(c);
    if (k == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(c) == CXUnaryOperator_AddrOf) {
        hs_cursor_list kids;
        hs_children(c, &kids);
        const char *r = kids.len == 1 ? expr_key(x, kids.items[0]) : NULL;
        hs_cursor_list_free(&kids);
        return r ? hs_xstrdup(r) : NULL;
    }
    if (k == CXCursor_DeclRefExpr) {
        CXCursor ref = clang_getCursorReferenced(c);
        enum CXCursorKind rk = hs_cursor_kind(ref);
        if (rk == CXCursor_VarDecl || rk == CXCursor_ParmDecl || rk == CXCursor_FieldDecl) {
            return hs_strjoin3("v:", hs_cursor_usr_cached(x, ref), "");
        }
        return NULL;
    }
    if (k == CXCursor_MemberRefExpr || k == CXCursor_ArraySubscriptExpr ||
        (k == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(c) == CXUnaryOperator_Deref)) {
        char *text = hs_cursor_text(x, c);
        char *key = hs_strjoin3("m:", text, "");
        free(text);
        return key;
    }
    return NULL;
}

/* hs_expr_key's key as the walk's string, made once per expression node and TU. */
static const char *expr_key(hs_walk *x, CXCursor c)
{
    enum CXCursorKind kind = hs_cursor_kind(c);
    bool memo = clang_isExpression(kind);
    void *known = NULL;
    if (memo && hs_ptrmap_find(x->node_keys, c.data[1], (int)kind, &known))
        return known;
    char *made = make_expr_key(x, c);
    const char *key = made ? intern_key(x, made) : NULL;
    free(made);
    if (memo)
        hs_ptrmap_put(x->node_keys, c.data[1], (int)kind, (void *)key);
    return key;
}

char *hs_expr_key(hs_walk *x, CXCursor c)
{
    const char *key = expr_key(x, c);
    return key ? hs_xstrdup(key) : NULL;
}

static void key_set_add(hs_key_set *set, const char *key)
{
    if (set->len == set->cap) {
        set->cap = set->cap ? 2 * set->cap : 8;
        set->keys = hs_xrealloc(set->keys, set->cap * sizeof *set->keys);
    }
    set->keys[set->len++] = key;
}

bool hs_key_set_has(const hs_key_set *set, const char *key)
{
    for (unsigned i = 0; i < set->len; i++)
        if (strcmp(set->keys[i], key) == 0)
            return true;
    return false;
}

bool hs_key_set_meets(const hs_key_set *set, const hs_strmap *keys)
{
    for (unsigned i = 0; i < set->len; i++)
        if (hs_strmap_has(keys, set->keys[i]))
            return true;
    return false;
}

void hs_key_set_free(hs_key_set *set)
{
    free(set->keys);
    memset(set, 0, sizeof *set);
}

/* The key cursor `c` itself adds to a key set: a name's, or a call's ("r:hash"). */
static void collect_own_key(hs_walk *x, CXCursor c, hs_key_set *set)
{
    enum CXCursorKind k = hs_cursor_kind(c);
    const char *key = NULL;
    if (k == CXCursor_DeclRefExpr ||
        ((k == CXCursor_MemberRefExpr || k == CXCursor_ArraySubscriptExpr) && !x->no_member_keys)) {
        key = expr_key(x, c);
    } else if (k == CXCursor_CallExpr) {
        void *known = NULL;
        if (hs_ptrmap_find(x->node_keys, c.data[1], HS_CALL_KEY_KIND, &known)) {
            key = known;
        } else {
            char made[32];
            snprintf(made, sizeof made, "r:%u", clang_hashCursor(c));
            key = intern_key(x, made);
            hs_ptrmap_put(x->node_keys, c.data[1], HS_CALL_KEY_KIND, (void *)key);
        }
    }
    if (key)
        key_set_add(set, key);
}

typedef struct {
    hs_walk *x;
    hs_key_set *set;
} collect_args;

static enum CXChildVisitResult collect_keys_visitor(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    collect_args *a = data;
    hs_collect_keys(a->x, c, a->set);
    return CXChildVisit_Continue;
}

/* In preorder: the cursor's own key, then its children's, each a visit of its own. In a body
 * being walked, the children come from its list. */
void hs_collect_keys(hs_walk *x, CXCursor c, hs_key_set *set)
{
    collect_own_key(x, c, set);
    unsigned n = 0;
    const CXCursor *listed = body_children(c, &n);
    if (listed) {
        for (unsigned i = 0; i < n; i++)
            hs_collect_keys(x, listed[i], set);
        return;
    }
    collect_args a = {x, set};
    clang_visitChildren(c, collect_keys_visitor, &a);
}

/* The key is "kind:file:offset", made on the stack (one per fact; the map copies it). */
int hs_site_ordinal(hs_walk *x, const char *kind, const char *file, unsigned offset)
{
    char small[512], *key = small;
    size_t nk = strlen(kind), nf = strlen(file), need = nk + nf + 3 + HS_INT_TEXT_MAX;
    if (need > sizeof small)
        key = hs_xmalloc(need);
    memcpy(key, kind, nk);
    key[nk] = ':';
    memcpy(key + nk + 1, file, nf);
    char *p = key + nk + 1 + nf;
    *p++ = ':';
    p += hs_int_text(p, offset);
    *p = '\0';
    int n = (int)(intptr_t)hs_strmap_get(x->fact_sites, key);
    hs_strmap_put(x->fact_sites, key, (void *)(intptr_t)(n + 1));
    if (key != small)
        free(key);
    return n;
}

bool hs_in_loop(const hs_walk *x)
{
    for (int i = 0; i < x->nscopes; i++)
        if (x->scopes[i].is_loop)
            return true;
    return false;
}

char *hs_loop_path(const hs_walk *x)
{
    hs_buf b;
    hs_buf_init(&b);
    for (int i = 0; i < x->nscopes; i++)
        if (x->scopes[i].is_loop)
            hs_buf_printf(&b, "%s%u", b.len ? "/" : "", x->scopes[i].id);
    return hs_buf_take(&b);
}

json_t *hs_branch_path(const hs_walk *x)
{
    json_t *arr = json_array();
    for (int i = 0; i < x->nbranches; i++) {
        const hs_branch *b = &x->branches[i];
        json_t *entry = json_array();
        json_array_append_new(entry, json_integer(b->node_start));
        json_array_append_new(entry, json_integer(b->node_end));
        json_array_append_new(entry, json_integer(b->arm));
        json_array_append_new(entry, json_integer(b->exit_until));
        json_array_append_new(entry, json_boolean(b->sampled));
        json_array_append_new(arr, entry);
    }
    return arr;
}

bool hs_json_set_string(json_t *obj, const char *key, const char *s)
{
    json_t *v = s ? json_string(s) : NULL;
    return v && json_object_set_new_nocheck(obj, key, v) == 0;
}

/* ---- what collectors may read of the walk's context ------------------------------- */

CXTranslationUnit hs_walk_tu(const hs_walk *x)
{
    return x->tu;
}

const hs_ruledata *hs_walk_ruledata(const hs_walk *x)
{
    return x->rd;
}

const char *hs_walk_tu_file(const hs_walk *x)
{
    return x->tu_file;
}

bool hs_walk_compiled_out_use(hs_walk *x, const char *name, hs_pos *at)
{
    if (!x->inactive)
        x->inactive = hs_inactive_code_create(x, x->tu);
    return hs_inactive_code_mentions(x->inactive, name, at);
}

CXCursor hs_walk_function_cursor(const hs_walk *x)
{
    return x->fn ? x->fn->cursor : clang_getNullCursor();
}

const char *hs_walk_function_usr(const hs_walk *x)
{
    return x->fn ? x->fn->usr : NULL;
}

const char *hs_walk_function_name(const hs_walk *x)
{
    return x->fn ? x->fn->name : NULL;
}

unsigned hs_walk_loop_count(const hs_walk *x)
{
    unsigned n = 0;
    for (int i = 0; i < x->nscopes; i++)
        n += x->scopes[i].is_loop;
    return n;
}

unsigned hs_walk_loop_id(const hs_walk *x, unsigned i)
{
    for (int k = 0; k < x->nscopes; k++)
        if (x->scopes[k].is_loop && i-- == 0)
            return x->scopes[k].id;
    return 0;
}

unsigned hs_walk_branch_count(const hs_walk *x)
{
    return (unsigned)x->nbranches;
}

const hs_branch *hs_walk_branch(const hs_walk *x, unsigned i)
{
    return i < (unsigned)x->nbranches ? &x->branches[i] : NULL;
}

bool hs_walk_on_error_path(const hs_walk *x)
{
    return x->error_path > 0;
}

const char *hs_walk_rare(const hs_walk *x)
{
    return x->rare;
}

bool hs_walk_function_variadic(const hs_walk *x)
{
    return x->fn && clang_Cursor_isVariadic(x->fn->cursor);
}

json_t *hs_walk_guards_json(const hs_walk *x)
{
    if (x->nguards == 0)
        return NULL;
    json_t *arr = json_array();
    for (int i = 0; i < x->nguards; i++) {
        json_t *g = json_array();
        json_array_append_new(g, json_integer(x->guards[i].param));
        json_array_append_new(g, json_boolean(x->guards[i].nonzero));
        json_array_append_new(arr, g);
    }
    return arr;
}

/* The innermost loop's start offset, 0 outside loops. */
static unsigned innermost_loop_id(const hs_walk *x)
{
    for (int k = x->nscopes - 1; k >= 0; k--)
        if (x->scopes[k].is_loop)
            return x->scopes[k].id;
    return 0;
}

unsigned hs_walk_innermost_loop(const hs_walk *x)
{
    return innermost_loop_id(x);
}

/* What every call edge says about its context beyond the caller and the place. */
static void add_edge_context(hs_walk *x, json_t *edge, CXCursor call)
{
    if (x->rare)
        json_object_set_new_nocheck(edge, "rare", json_string(x->rare));
    unsigned loop = innermost_loop_id(x);
    if (loop)
        json_object_set_new_nocheck(edge, "loop", json_integer(loop));
    /* In a branch inside its innermost loop (or its function): a call that does not run on
     * every pass. */
    for (unsigned i = 0; i < hs_walk_branch_count(x); i++) {
        if (hs_walk_branch(x, i)->node_start > loop) {
            json_object_set_new_nocheck(edge, "cond", json_true());
            break;
        }
    }
    json_t *guards = hs_walk_guards_json(x);
    if (guards)
        json_object_set_new_nocheck(edge, "guards", guards);
    /* Constant arguments: a callee's arm that a parameter decides may be dead for this call. */
    int nargs = clang_Cursor_getNumArguments(call);
    json_t *consts = NULL;
    for (int i = 0; i < nargs && i < 32; i++) {
        long long v;
        if (!hs_condition_constant(clang_Cursor_getArgument(call, (unsigned)i), &v))
            continue;
        if (!consts)
            consts = json_array();
        json_t *pair = json_array();
        json_array_append_new(pair, json_integer(i));
        json_array_append_new(pair, json_integer(v));
        json_array_append_new(consts, pair);
    }
    if (consts)
        json_object_set_new_nocheck(edge, "const_args", consts);
}

bool hs_walk_in_condition(const hs_walk *x)
{
    return x->condition > 0;
}

bool hs_walk_in_loop_condition(const hs_walk *x)
{
    return x->loop_condition > 0;
}

bool hs_walk_in_comparison(const hs_walk *x)
{
    return x->comparison > 0;
}

bool hs_walk_in_equality(const hs_walk *x)
{
    return x->equality > 0;
}

bool hs_walk_in_mask(const hs_walk *x)
{
    return x->masked > 0;
}

unsigned hs_walk_lambda(const hs_walk *x)
{
    return x->lambda;
}

unsigned hs_walk_statement_start(const hs_walk *x)
{
    return x->stmt_start;
}

unsigned hs_walk_block_end(const hs_walk *x)
{
    return x->block_end;
}

CXCursor hs_walk_block(const hs_walk *x)
{
    return x->block;
}

const hs_cursor_list *hs_walk_children(const hs_walk *x)
{
    return x->kids;
}

enum CXCursorKind hs_walk_parent_kind(const hs_walk *x)
{
    return x->walk_parent_kind;
}

bool hs_walk_has_sink(const hs_walk *x)
{
    return x->has_sink;
}

CXCursor hs_walk_sink_value(const hs_walk *x)
{
    return x->has_sink ? x->sink_value : clang_getNullCursor();
}

/* Does expression `c` read one of the names in `keys` (hs_collect_keys' keys)? */
static bool reads_any(hs_walk *x, CXCursor c, const hs_strmap *keys)
{
    hs_key_set set = {0};
    hs_collect_keys(x, c, &set);
    bool hit = hs_key_set_meets(&set, keys);
    hs_key_set_free(&set);
    return hit;
}

/* The field a member expression names (`t->wake_date` -> wake_date), or a null cursor. */
static CXCursor member_field(CXCursor c)
{
    c = hs_strip_expr(c);
    if (hs_cursor_kind(c) != CXCursor_MemberRefExpr)
        return clang_getNullCursor();
    CXCursor field = clang_getCursorReferenced(c);
    return hs_cursor_kind(field) == CXCursor_FieldDecl ? field : clang_getNullCursor();
}

char *hs_walk_sink_field(const hs_walk *x)
{
    if (!x->has_sink || x->sink_is_decl)
        return NULL;
    CXCursor field = member_field(x->sink);
    return hs_cursor_is_null(field) ? NULL : hs_cursor_usr(field);
}

/* A parameter named as a whole (`start_time`), not through a member or an element. */
static bool names_parameter(CXCursor c)
{
    c = hs_strip_expr(c);
    return hs_cursor_kind(c) == CXCursor_DeclRefExpr &&
           hs_cursor_kind(clang_getCursorReferenced(c)) == CXCursor_ParmDecl;
}

bool hs_walk_subtracted_from_held(hs_walk *x, const hs_strmap *keys)
{
    const hs_vec *combinations = hs_walk_combinations(x);
    for (size_t i = 0; i < x->fn->pending_combiners.len; i++) {
        hs_pending *p = x->fn->pending_combiners.items[i];
        if (!p->difference || p->n != 2)
            continue;
        const hs_combination *operands = combinations->items[i];
        for (unsigned side = 0; side < 2; side++)
            if ((!hs_cursor_is_null(member_field(p->cursors[1 - side])) || names_parameter(p->cursors[1 - side])) &&
                hs_key_set_meets(&operands->sets[side], keys))
                return true;
    }
    return false;
}

json_t *hs_walk_fields_compared_with(hs_walk *x, const hs_strmap *keys)
{
    json_t *fields = NULL;
    const hs_vec *combinations = hs_walk_combinations(x);
    for (size_t i = 0; i < x->fn->pending_combiners.len; i++) {
        hs_pending *p = x->fn->pending_combiners.items[i];
        if (p->sum || p->n != 2)
            continue;
        /* Asked once for each reading and value call of the function: made once. */
        if (!p->fields_made) {
            p->fields_made = true;
            for (unsigned side = 0; side < 2; side++) {
                CXCursor field = member_field(p->cursors[side]);
                p->fields[side] = hs_cursor_is_null(field) ? NULL : hs_cursor_usr_cached(x, field);
            }
        }
        /* The combination's key sets are those of p's operands. */
        const hs_combination *operands = combinations->items[i];
        for (unsigned side = 0; side < 2; side++) {
            const char *field = p->fields[1 - side];
            if (field && hs_key_set_meets(&operands->sets[side], keys)) {
                if (!fields)
                    fields = json_array();
                json_array_append_new(fields, json_string(field));
            }
        }
    }
    return fields;
}

/* A local variable of automatic storage (not a parameter, not static). */
static bool is_automatic_local(CXCursor d)
{
    if (hs_cursor_kind(d) != CXCursor_VarDecl || clang_Cursor_hasVarDeclGlobalStorage(d) == 1)
        return false;
    enum CXTypeKind tk = clang_getCanonicalType(clang_getCursorType(d)).kind;
    return tk != CXType_LValueReference && tk != CXType_RValueReference;
}

CXCursor hs_walk_sink_local(const hs_walk *x, bool *named)
{
    *named = false;
    if (!x->has_sink)
        return clang_getNullCursor();
    if (x->sink_is_decl)
        return is_automatic_local(x->sink) ? x->sink : clang_getNullCursor();
    CXCursor c = hs_strip_expr(x->sink);
    if (hs_cursor_kind(c) == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(c) == CXUnaryOperator_Deref) {
        c = hs_strip_expr(hs_first_child(c));
        if (hs_cursor_kind(c) != CXCursor_UnaryOperator ||
            clang_getCursorUnaryOperatorKind(c) != CXUnaryOperator_AddrOf)
            return clang_getNullCursor();
        c = hs_strip_expr(hs_first_child(c));
    }
    if (hs_cursor_kind(c) != CXCursor_DeclRefExpr)
        return clang_getNullCursor();
    CXCursor d = clang_getCursorReferenced(c);
    *named = is_automatic_local(d);
    return *named ? d : clang_getNullCursor();
}

typedef struct {
    CXCursor decl;
    unsigned n;
} count_refs;

static enum CXChildVisitResult count_refs_visitor(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    count_refs *r = data;
    enum CXCursorKind k = hs_cursor_kind(c);
    if ((k == CXCursor_DeclRefExpr || k == CXCursor_VariableRef) &&
        clang_equalCursors(clang_getCursorReferenced(c), r->decl))
        r->n++;
    return CXChildVisit_Recurse;
}

unsigned hs_walk_count_references(const hs_walk *x, CXCursor decl)
{
    CXCursor fn = hs_walk_function_cursor(x);
    if (hs_cursor_is_null(fn) || hs_cursor_is_null(decl))
        return 0;
    count_refs r = {decl, 0};
    clang_visitChildren(fn, count_refs_visitor, &r);
    return r.n;
}

bool hs_walk_sink_static(const hs_walk *x)
{
    if (!x->has_sink)
        return false;
    if (!x->sink_is_decl)
        return hs_condition_static_storage(x->sink);
    if (hs_cursor_kind(x->sink) != CXCursor_VarDecl)
        return false;
    enum CXCursorKind pk = hs_cursor_kind(clang_getCursorSemanticParent(x->sink));
    enum CX_StorageClass sc = clang_Cursor_getStorageClass(x->sink);
    return pk == CXCursor_TranslationUnit || pk == CXCursor_Namespace || sc == CX_SC_Static || sc == CX_SC_Extern;
}

/* `&e` -> e; anything else as it is. */
static CXCursor strip_address_of(CXCursor c)
{
    c = hs_strip_expr(c);
    if (hs_cursor_kind(c) == CXCursor_UnaryOperator &&
        clang_getCursorUnaryOperatorKind(c) == CXUnaryOperator_AddrOf) {
        CXCursor kid = hs_first_child(c);
        if (!hs_cursor_is_null(kid))
            return kid;
    }
    return c;
}

/*
 * Down an object expression to the declaration its name refers to: through element
 * accesses, and through members (`members`) or dereferences (else); a null cursor for
 * anything else (a call, an implicit `this`).
 */
static CXCursor expr_root_decl(CXCursor c, bool members)
{
    for (int depth = 0; depth < 16; depth++) {
        c = hs_strip_expr(c);
        enum CXCursorKind k = hs_cursor_kind(c);
        if (k == CXCursor_DeclRefExpr)
            return clang_getCursorReferenced(c);
        bool through = k == CXCursor_ArraySubscriptExpr ||
                       (members ? k == CXCursor_MemberRefExpr : k == CXCursor_UnaryOperator);
        CXCursor kid = through ? hs_first_child(c) : clang_getNullCursor();
        if (hs_cursor_is_null(kid))
            return kid;
        c = kid;
    }
    return clang_getNullCursor();
}

CXCursor hs_expr_selector_root(CXCursor c)
{
    c = strip_address_of(c);
    for (int depth = 0; depth < 16; depth++) {
        c = hs_strip_expr(c);
        enum CXCursorKind k = hs_cursor_kind(c);
        if (k == CXCursor_DeclRefExpr) {
            CXCursor d = clang_getCursorReferenced(c);
            enum CXCursorKind dk = hs_cursor_kind(d);
            return dk == CXCursor_ParmDecl || (dk == CXCursor_VarDecl && clang_Cursor_hasVarDeclGlobalStorage(d) == 1)
                       ? d
                       : clang_getNullCursor();
        }
        if (k != CXCursor_MemberRefExpr)
            return clang_getNullCursor();
        c = hs_first_child(c);
    }
    return clang_getNullCursor();
}

bool hs_expr_internal_static(CXCursor c)
{
    CXCursor d = expr_root_decl(strip_address_of(c), true);
    if (hs_cursor_kind(d) != CXCursor_VarDecl)
        return false;
    enum CXLinkageKind l = clang_getCursorLinkage(d);
    return l == CXLinkage_Internal || l == CXLinkage_NoLinkage;
}

bool hs_walk_sink_internal_static(const hs_walk *x)
{
    if (!x->has_sink)
        return false;
    if (x->sink_is_decl) {
        enum CXLinkageKind l = clang_getCursorLinkage(x->sink);
        return l == CXLinkage_Internal || l == CXLinkage_NoLinkage;
    }
    return hs_expr_internal_static(x->sink);
}

bool hs_expr_static_storage(CXCursor c)
{
    return hs_condition_static_storage(strip_address_of(c));
}

bool hs_expr_through_parameter(CXCursor c)
{
    /* `*out`, `out[0]`: down to the name it starts from. A field of an object the parameter
     * points to (`&c->stamp`) is that object's state, not the caller's result. */
    CXCursor d = expr_root_decl(strip_address_of(c), false);
    return hs_cursor_kind(d) == CXCursor_ParmDecl &&
           clang_getCanonicalType(clang_getCursorType(d)).kind == CXType_Pointer;
}

bool hs_walk_sink_through_parameter(const hs_walk *x)
{
    if (!x->has_sink || x->sink_is_decl)
        return false;
    /* `*out = v`, `out[i] = v`: down to the name the sink starts from. A field of an object
     * (`obj->stamp = v`) is not the caller's own result: hs_walk_sink_field says which. */
    CXCursor c = x->sink;
    for (int depth = 0; depth < 16; depth++) {
        c = hs_strip_expr(c);
        enum CXCursorKind k = hs_cursor_kind(c);
        if (k == CXCursor_DeclRefExpr)
            return depth > 0 && hs_cursor_kind(clang_getCursorReferenced(c)) == CXCursor_ParmDecl;
        if (k != CXCursor_UnaryOperator && k != CXCursor_ArraySubscriptExpr)
            return false;
        hs_cursor_list kids;
        hs_children(c, &kids);
        bool ok = kids.len >= 1;
        if (ok)
            c = kids.items[0];
        hs_cursor_list_free(&kids);
        if (!ok)
            return false;
    }
    return false;
}

/* ---- attributes -------------------------------------------------------------------- */

const char *hs_spelled_text(hs_walk *x, CXCursor c, CXFile *file, unsigned *offset, size_t *size)
{
    CXSourceLocation start = hs_cursor_start(c);
    clang_getSpellingLocation(start, file, NULL, NULL, offset);
    if (!*file)
        return NULL;
    const char *text = hs_walk_file_contents(x, *file, size);
    return text && *offset < *size ? text : NULL;
}

/* The attribute's name as written: "hot" for __attribute__((hot)) and [[gnu::hot]]. */
static char *attribute_name(hs_walk *x, CXCursor attr)
{
    CXFile file;
    unsigned offset;
    size_t size;
    const char *text = hs_spelled_text(x, attr, &file, &offset, &size);
    if (!text)
        return NULL;
    size_t n = hs_identifier_length(text, size, offset);
    /* gnu::hot, clang::cold: the name follows the namespace and "::". */
    if ((n == 3 && strncmp(text + offset, "gnu", 3) == 0) || (n == 5 && strncmp(text + offset, "clang", 5) == 0)) {
        size_t i = offset + n;
        while (i < size && (text[i] == ' ' || text[i] == '\t'))
            i++;
        if (i + 1 < size && text[i] == ':' && text[i + 1] == ':') {
            i += 2;
            while (i < size && (text[i] == ' ' || text[i] == '\t'))
                i++;
            offset = (unsigned)i;
            n = hs_identifier_length(text, size, offset);
        }
    }
    return n ? hs_xstrndup(text + offset, n) : NULL;
}

static enum CXChildVisitResult attr_visitor(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    void **args = data;
    hs_walk *x = args[0];
    int *flags = args[1];
    if (!clang_isAttribute(hs_cursor_kind(c)))
        return CXChildVisit_Continue;
    char *name = attribute_name(x, c);
    if (name) {
        if (strcmp(name, "hot") == 0 || strcmp(name, "__hot__") == 0)
            *flags |= 1;
        if (strcmp(name, "cold") == 0 || strcmp(name, "__cold__") == 0)
            *flags |= 2;
        if (strcmp(name, "noreturn") == 0 || strcmp(name, "_Noreturn") == 0 ||
            strcmp(name, "__noreturn__") == 0)
            *flags |= 4;
    }
    free(name);
    return CXChildVisit_Continue;
}

/* In hs_walk.temperatures, apart from the cursor kinds of declarations. */
#define HS_TYPE_NORETURN_TAG (-1)

/*
 * Bit 1: hot, bit 2: cold, bit 4: never returns. GNU noreturn lives on the function
 * type rather than as an attribute cursor, so the type's spelling is checked too.
 */
static int function_temperature(hs_walk *x, CXCursor fn)
{
    /* Asked for every call's callee (does it return?): the type's spelling and the
     * attributes' text are read once per declaration. */
    int kind = (int)hs_cursor_kind(fn);
    uintptr_t cached = (uintptr_t)hs_ptrmap_get(x->temperatures, fn.data[0], kind);
    if (cached)
        return (int)(cached - 1);
    int flags = 0;
    void *args[2] = {x, &flags};
    /* A declaration's attribute cursors are its attributes (inherited ones too): with none,
     * visiting its children (a definition's parameters and body) finds nothing. */
    if (clang_Cursor_hasAttrs(fn))
        clang_visitChildren(fn, attr_visitor, args);
    /* Spelling a function type costs thousands of instructions, and most declarations share
     * their type with others (types are unique in a TU: the same type, the same data[0]). */
    CXType ftype = clang_getCursorType(fn);
    uintptr_t noreturn = (uintptr_t)hs_ptrmap_get(x->temperatures, ftype.data[0], HS_TYPE_NORETURN_TAG);
    if (!noreturn) {
        CXString type = clang_getTypeSpelling(ftype);
        noreturn = strstr(clang_getCString(type), "__attribute__((noreturn))") ? 2 : 1;
        clang_disposeString(type);
        hs_ptrmap_put(x->temperatures, ftype.data[0], HS_TYPE_NORETURN_TAG, (void *)noreturn);
    }
    if (noreturn == 2)
        flags |= 4;
    hs_ptrmap_put(x->temperatures, fn.data[0], kind, (void *)(uintptr_t)(flags + 1));
    return flags;
}

/* ---- the walk ---------------------------------------------------------------------- */

static void walk(hs_walk *x, CXCursor c);
static void mark_live(hs_walk *x, CXCursor ref);

/* Walks `kids`, the children of `c` (walk() lists each cursor's children once, for the
 * hooks and the handlers below). */
static void walk_children(hs_walk *x, CXCursor c, const hs_cursor_list *kids)
{
    enum CXCursorKind saved = x->parent_kind;
    x->parent_kind = hs_cursor_kind(c);
    for (unsigned i = 0; i < kids->len; i++)
        walk(x, kids->items[i]);
    x->parent_kind = saved;
}

/*
 * A location's expansion offset. One outside macros in the inclusion the walked function
 * starts in is read from its raw value (a file inclusion's locations are consecutive from
 * its start, as skipped_digest explains): the statements of a function are mostly there,
 * and clang_getExpansionLocation looks its FileID up each time.
 */
static unsigned offset_of(const hs_walk *x, CXSourceLocation loc)
{
    unsigned off = 0;
    if (!inclusion_offset(&x->body_file, loc, &off))
        clang_getExpansionLocation(loc, NULL, NULL, NULL, &off);
    return off;
}

static unsigned start_offset(const hs_walk *x, CXCursor c)
{
    return offset_of(x, hs_cursor_start(c));
}

static unsigned end_offset(const hs_walk *x, CXCursor c)
{
    return offset_of(x, clang_getRangeEnd(clang_getCursorExtent(c)));
}

/* The inclusion of `file` that location `at` is in, `offset` being where clang_getExpansionLocation
 * puts `at` in `file`; false for a macro's location. */
static bool inclusion_at(hs_walk *x, CXFile file, CXSourceLocation at, unsigned offset, hs_inclusion *out)
{
    size_t size = 0;
    if ((at.int_data & HS_MACRO_LOCATION_BIT) || at.int_data < offset || !hs_walk_file_contents(x, file, &size) ||
        size > UINT_MAX - (at.int_data - offset))
        return false;
    *out = (hs_inclusion){true, at.int_data - offset, (unsigned)size};
    return true;
}

/* body_file for function `fn`: the inclusion its name is written in, unless that is a
 * macro's or the one noted already. */
static void note_body_file(hs_walk *x, CXCursor fn)
{
    CXSourceLocation at = clang_getCursorLocation(fn);
    unsigned offset = 0;
    if ((at.int_data & HS_MACRO_LOCATION_BIT) || inclusion_offset(&x->body_file, at, &offset))
        return;
    CXFile file = NULL;
    clang_getExpansionLocation(at, &file, NULL, NULL, &offset);
    inclusion_at(x, file, at, offset, &x->body_file);
}

static bool push_scope(hs_walk *x, CXCursor c, bool is_loop)
{
    if (x->nscopes >= HS_MAX_NEST)
        return false;
    x->scopes[x->nscopes].id = start_offset(x, c);
    x->scopes[x->nscopes].end = end_offset(x, c);
    x->scopes[x->nscopes].is_loop = is_loop;
    x->nscopes++;
    return true;
}

/* Calls that end an error path: what precedes them in a statement list is not hot. */
static const char *const abort_calls[] = {
    "abort", "std::abort", "std::terminate", "__assert_fail", "__assert_rtn", "__builtin_unreachable",
    "__builtin_trap", "ut_error", "ut_dbg_assertion_failed", NULL};

static int function_temperature(hs_walk *x, CXCursor fn);

bool hs_function_never_returns(hs_walk *x, CXCursor fn)
{
    return (function_temperature(x, fn) & 4) != 0;
}

/* True for a statement or expression that is a call to an abort-like function. */
static bool is_abort_call(hs_walk *x, CXCursor c)
{
    c = hs_strip_expr(c);
    /* The usual crash macro: `do { log(...); abort(); } while (0)`. */
    if (hs_cursor_kind(c) == CXCursor_DoStmt) {
        hs_cursor_list kids;
        hs_children(c, &kids);
        long long v;
        bool once = kids.len == 2 && hs_condition_constant(kids.items[1], &v) && v == 0;
        bool aborts = false;
        if (once && hs_cursor_kind(kids.items[0]) == CXCursor_CompoundStmt) {
            hs_cursor_list body;
            hs_children(kids.items[0], &body);
            for (unsigned i = 0; i < body.len && !aborts; i++)
                aborts = is_abort_call(x, body.items[i]);
            hs_cursor_list_free(&body);
        }
        hs_cursor_list_free(&kids);
        return aborts;
    }
    if (hs_cursor_kind(c) != CXCursor_CallExpr)
        return false;
    CXCursor callee = clang_getCursorReferenced(c);
    if (hs_cursor_is_null(callee))
        return false;
    const char *q = hs_qualified_name(x, callee);
    for (size_t i = 0; abort_calls[i]; i++)
        if (strcmp(q, abort_calls[i]) == 0)
            return true;
    /* exit() is noreturn too, but ends normal runs (the end of main) as often as errors. */
    return strcmp(q, "exit") != 0 && strcmp(q, "std::exit") != 0 && hs_function_never_returns(x, callee);
}

static const char *const noreturn_calls[] = {
    "abort", "exit", "_exit", "_Exit", "quick_exit", "std::abort", "std::exit", "std::terminate",
    "std::quick_exit", "longjmp", "siglongjmp", "__assert_fail", "__builtin_unreachable",
    "__builtin_trap", "pthread_exit", "ut_error", NULL};

/*
 * Where control goes after `stmt` finishes, as the end offset up to which code that
 * follows is skipped: the function's end for return/throw/goto/noreturn calls, the
 * innermost loop's or switch's end for break, the loop's end for continue, 0 when
 * control falls through.
 */
static unsigned exit_until(hs_walk *x, CXCursor stmt)
{
    enum CXCursorKind k = hs_cursor_kind(stmt);
    switch (k) {
    case CXCursor_ReturnStmt:
    case CXCursor_GotoStmt:
    case CXCursor_IndirectGotoStmt:
    case CXCursor_CXXThrowExpr:
        return x->fn->body_end;
    case CXCursor_BreakStmt:
        return x->nscopes ? x->scopes[x->nscopes - 1].end : 0;
    case CXCursor_ContinueStmt:
        for (int i = x->nscopes - 1; i >= 0; i--)
            if (x->scopes[i].is_loop)
                return x->scopes[i].end;
        return 0;
    case CXCursor_CompoundStmt:
    case CXCursor_CaseStmt:
    case CXCursor_DefaultStmt:
    case CXCursor_LabelStmt: {
        hs_cursor_list kids;
        hs_children(stmt, &kids);
        unsigned r = kids.len ? exit_until(x, kids.items[kids.len - 1]) : 0;
        hs_cursor_list_free(&kids);
        return r;
    }
    case CXCursor_UnexposedExpr:
    case CXCursor_CallExpr: {
        CXCursor s = hs_strip_expr(stmt);
        if (hs_cursor_kind(s) == CXCursor_CXXThrowExpr)
            return x->fn->body_end;
        if (hs_cursor_kind(s) != CXCursor_CallExpr)
            return 0;
        CXCursor callee = clang_getCursorReferenced(s);
        if (hs_cursor_is_null(callee))
            return 0;
        const char *q = hs_qualified_name(x, callee);
        for (size_t i = 0; noreturn_calls[i]; i++)
            if (strcmp(q, noreturn_calls[i]) == 0)
                return x->fn->body_end;
        return hs_function_never_returns(x, callee) ? x->fn->body_end : 0;
    }
    default:
        return 0;
    }
}

/*
 * Walks `arm` as arm number `arm_index` of branch node `node`. The arm runs when `cond`
 * (a null cursor for switch arms) evaluates to `truth`: what that says about the arm (rare,
 * decided by a parameter) holds for everything inside it.
 */
static void walk_arm_when(hs_walk *x, CXCursor node, unsigned arm_index, CXCursor arm, unsigned exit,
                          bool sampled, CXCursor cond, bool truth)
{
    const char *saved_rare = x->rare;
    int saved_guards = x->nguards;
    if (!hs_cursor_is_null(cond)) {
        if (!x->rare)
            x->rare = hs_condition_rare(x->tu, cond, truth);
        if (!x->rare && hs_arm_returns_error(arm))
            x->rare = "error-check";
        if (!x->rare && truth && hs_arm_runs_once(cond, arm))
            x->rare = "once";
        hs_param_guard g;
        if (x->nguards < HS_MAX_NEST &&
            hs_condition_param_guard(x->tu, x->fn->cursor, cond, truth, &g.param, &g.nonzero))
            x->guards[x->nguards++] = g;
    }
    if (x->nbranches >= HS_MAX_NEST) {
        walk(x, arm);
    } else {
        x->branches[x->nbranches++] =
            (hs_branch){start_offset(x, node), end_offset(x, node), arm_index, (int)exit, sampled};
        walk(x, arm);
        x->nbranches--;
    }
    x->rare = saved_rare;
    x->nguards = saved_guards;
}

static void walk_arm(hs_walk *x, CXCursor node, unsigned arm_index, CXCursor arm,
                     unsigned exit)
{
    walk_arm_when(x, node, arm_index, arm, exit, false, clang_getNullCursor(), true);
}

static enum CXChildVisitResult find_sampling(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    if (hs_cursor_kind(c) == CXCursor_BinaryOperator) {
        enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(c);
        if (op == CXBinaryOperator_Rem || op == CXBinaryOperator_And) {
            *(bool *)data = true;
            return CXChildVisit_Break;
        }
    }
    return CXChildVisit_Recurse;
}

/* A condition with % or & (`i % 1024 == 0`, `n & 63`): work done on some iterations only. */
static bool is_sampling_condition(CXCursor cond)
{
    bool found = false;
    if (hs_cursor_kind(cond) == CXCursor_BinaryOperator) {
        void *unused = NULL;
        find_sampling(cond, clang_getNullCursor(), &found);
        (void)unused;
    }
    if (!found)
        clang_visitChildren(cond, find_sampling, &found);
    return found;
}

/* Names a condition reads; a value stored in one of them decides something. */
static hs_pending *pending_new(const CXCursor *cursors, unsigned n)
{
    hs_pending *p = hs_xcalloc(1, sizeof *p);
    p->cursors = hs_xcalloc(n ? n : 1, sizeof(CXCursor));
    memcpy(p->cursors, cursors, n * sizeof(CXCursor));
    p->n = n;
    return p;
}

/* A test that can end loop `loop_id`: its condition, or an if whose arm leaves it. */
static void note_loop_exit(hs_walk *x, CXCursor cond, unsigned loop_id)
{
    hs_pending *p = pending_new(&cond, 1);
    p->offset = loop_id;
    hs_vec_push(&x->fn->pending_exits, p);
}

/* Each operand of && and || on its own: each one can end a loop. */
static void split_logical(CXCursor c, hs_cursor_list *out)
{
    CXCursor s = hs_strip_expr(c);
    if (hs_cursor_kind(s) == CXCursor_BinaryOperator) {
        enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(s);
        if (op == CXBinaryOperator_LAnd || op == CXBinaryOperator_LOr) {
            hs_cursor_list kids;
            hs_children(s, &kids);
            for (unsigned i = 0; i < kids.len; i++)
                split_logical(kids.items[i], out);
            hs_cursor_list_free(&kids);
            return;
        }
    }
    hs_cursor_list_push(out, c);
}

bool hs_walk_loop_ends_only_on(hs_walk *x, unsigned loop_id, const hs_strmap *keys)
{
    size_t tests = 0;
    bool all = true;
    for (size_t i = 0; all && i < x->fn->pending_exits.len; i++) {
        hs_pending *p = x->fn->pending_exits.items[i];
        if (p->offset != loop_id)
            continue;
        hs_cursor_list parts = {0};
        split_logical(p->cursors[0], &parts);
        for (unsigned k = 0; all && k < parts.len; k++) {
            long long constant;
            if (hs_condition_constant(parts.items[k], &constant) && constant != 0)
                continue; /* `while (1)`: never what ends the loop */
            tests++;
            all = reads_any(x, parts.items[k], keys);
        }
        free(parts.items);
    }
    return all && tests > 0;
}

static void note_tested(hs_walk *x, CXCursor cond, bool wait)
{
    hs_pending *p = pending_new(&cond, 1);
    p->wait = wait;
    hs_vec_push(&x->fn->pending_tests, p);
}

/* Keys of the operands of == != & % inside a condition (version and parity tests). */
static enum CXChildVisitResult version_visitor(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    collect_args *a = data;
    if (hs_cursor_kind(c) == CXCursor_BinaryOperator) {
        enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(c);
        if (op == CXBinaryOperator_EQ || op == CXBinaryOperator_NE || op == CXBinaryOperator_And ||
            op == CXBinaryOperator_Rem) {
            hs_collect_keys(a->x, c, a->set);
            return CXChildVisit_Continue;
        }
    }
    return CXChildVisit_Recurse;
}

/* ---- names: the walk-owned name-key service (see walk.h) --------------------------- */

const hs_vec *hs_walk_combinations(hs_walk *x)
{
    hs_walk_function *fn = x->fn;
    if (!fn->combiners_made) {
        fn->combiners_made = true;
        for (size_t i = 0; i < fn->pending_combiners.len; i++) {
            hs_pending *p = fn->pending_combiners.items[i];
            hs_combination *c = hs_xcalloc(1, sizeof *c);
            c->n = p->n;
            if (p->n)
                clang_getExpansionLocation(clang_getRangeEnd(clang_getCursorExtent(p->cursors[p->n - 1])), NULL, NULL,
                                           NULL, &c->offset);
            c->sets = hs_xcalloc(p->n ? p->n : 1, sizeof *c->sets);
            for (unsigned k = 0; k < p->n; k++) {
                hs_collect_keys(x, p->cursors[k], &c->sets[k]);
                /* A value kept in static storage (a previous reading: a rate limit, a
                 * per-second cache) is marked so collectors can tell. */
                c->sets[k].static_storage = hs_condition_static_storage(p->cursors[k]);
                c->sets[k].sum = p->sum;
            }
            hs_vec_push(&fn->combiners, c);
        }
    }
    return &fn->combiners;
}

const hs_vec *hs_walk_writes(hs_walk *x)
{
    hs_walk_function *fn = x->fn;
    if (!fn->writes_made) {
        fn->writes_made = true;
        for (size_t i = 0; i < fn->pending_writes.len; i++) {
            hs_pending *p = fn->pending_writes.items[i];
            const char *key = expr_key(x, p->cursors[0]);
            if (key) {
                hs_write *w = hs_xcalloc(1, sizeof *w);
                *w = (hs_write){key, p->offset};
                hs_vec_push(&fn->writes, w);
            }
        }
    }
    return &fn->writes;
}

/*
 * tested_keys and version_keys from the conditions noted. A member's or an element's key is
 * its text ("m:a->b", hs_expr_key), which costs the reading of its tokens: about 30,000
 * instructions each on haproxy, where a member used in a macro spans the macro's body.
 * Only a question about such a key (`members`) needs them: the others are answered from
 * the keys less those, which are the same keys otherwise (a member or element key is
 * never NULL, and its children's keys are collected either way).
 */
static void make_tests(hs_walk *x, bool members)
{
    hs_walk_function *fn = x->fn;
    if (fn->tests_made == 2 || (fn->tests_made == 1 && !members))
        return;
    hs_strmap_delete(fn->tested_keys);
    hs_strmap_delete(fn->version_keys);
    fn->tests_made = members ? 2 : 1;
    x->no_member_keys = !members;
    /* The keys are the walk's strings, alive for the TU: the maps borrow them. */
    fn->tested_keys = hs_strmap_create_borrowing();
    fn->version_keys = hs_strmap_create_borrowing();
    hs_key_set set = {0}, versions = {0};
    for (size_t i = 0; i < fn->pending_tests.len; i++) {
        hs_pending *p = fn->pending_tests.items[i];
        set.len = 0;
        hs_collect_keys(x, p->cursors[0], &set);
        for (unsigned k = 0; k < set.len; k++)
            if (p->wait || !hs_strmap_has(fn->tested_keys, set.keys[k]))
                hs_strmap_put(fn->tested_keys, set.keys[k], (void *)(uintptr_t)(p->wait ? 2 : 1));
        collect_args args = {x, &versions};
        version_visitor(p->cursors[0], clang_getNullCursor(), &args);
        clang_visitChildren(p->cursors[0], version_visitor, &args);
    }
    for (unsigned k = 0; k < versions.len; k++)
        hs_strmap_put(fn->version_keys, versions.keys[k], (void *)1);
    hs_key_set_free(&set);
    hs_key_set_free(&versions);
    x->no_member_keys = false;
}

/* A member's or an element's key (make_tests). */
static bool is_member_key(const char *key)
{
    return strncmp(key, "m:", 2) == 0;
}

int hs_walk_tested(hs_walk *x, const char *key)
{
    make_tests(x, is_member_key(key));
    return (int)(uintptr_t)hs_strmap_get(x->fn->tested_keys, key) - 1;
}

bool hs_walk_version_key(hs_walk *x, const char *key)
{
    make_tests(x, is_member_key(key));
    return hs_strmap_has(x->fn->version_keys, key);
}

char *hs_sink_key(hs_walk *x)
{
    if (!x->has_sink)
        return NULL;
    if (x->sink_is_decl)
        return hs_strjoin3("v:", hs_cursor_usr_cached(x, x->sink), "");
    return hs_expr_key(x, x->sink);
}

char *hs_sink_text(hs_walk *x)
{
    if (!x->has_sink || !x->sink_plain)
        return NULL;
    if (x->sink_is_decl)
        return cursor_spelling(x->sink);
    return hs_cursor_source(x, x->sink);
}

/*
 * Whether the token `word` is written between the end of `from` and the start of `to`: 1
 * yes, 0 no, -1 cannot tell, when both ends are where one macro is expanded (an `if` inside
 * a statement macro's definition, `do { if (c) ...; else ...; } while (0)`) or in different
 * files.
 */
static int range_has_token(hs_walk *x, CXCursor from, CXCursor to, const char *word)
{
    CXSourceLocation a = clang_getRangeEnd(clang_getCursorExtent(from));
    CXSourceLocation b = hs_cursor_start(to);
    if (offset_of(x, b) <= offset_of(x, a))
        return -1;
    /* Tokenize the file as written: locations inside macro expansions point into the
     * macro's definition, so move both ends to where the expansion is. */
    CXFile fa, fb;
    unsigned oa, ob;
    clang_getExpansionLocation(a, &fa, NULL, NULL, &oa);
    clang_getExpansionLocation(b, &fb, NULL, NULL, &ob);
    if (!fa || fa != fb)
        return -1;
    if (!file_entry(x, fa)->has_start) {
        note_file_start(x, a);
        note_file_start(x, b);
    }
    a = hs_walk_location_at(x, fa, oa);
    b = hs_walk_location_at(x, fb, ob);
    CXToken *toks = NULL;
    unsigned n = 0;
    clang_tokenize(x->tu, clang_getRange(a, b), &toks, &n);
    bool found = false;
    for (unsigned i = 0; i < n && !found; i++) {
        CXString s = clang_getTokenSpelling(x->tu, toks[i]);
        found = strcmp(clang_getCString(s), word) == 0;
        clang_disposeString(s);
    }
    clang_disposeTokens(x->tu, toks, n);
    return found;
}

/*
 * Whether an if statement's children `kids` end in an else arm. libclang lists a condition
 * variable (`if (T v = f())`, a declaration) and an init statement (`if (auto v = f(); v)`)
 * before the condition, so the count alone is ambiguous in C++: the `else` token between
 * the last two children decides. Where the tokens cannot tell (the whole if in one macro
 * expansion), the children's kinds do: after the leading declarations come the condition,
 * the then arm and, when there are three, the else arm. (An init statement that is an
 * expression, `if (f(); c)`, written inside a macro, is the one shape this misreads.)
 */
static bool if_has_else(hs_walk *x, const hs_cursor_list *kids)
{
    unsigned n = kids->len;
    if (n < 3)
        return false;
    int token = range_has_token(x, kids->items[n - 2], kids->items[n - 1], "else");
    if (token >= 0)
        return token == 1;
    unsigned decls = 0;
    while (decls < n && (hs_cursor_kind(kids->items[decls]) == CXCursor_VarDecl ||
                         hs_cursor_kind(kids->items[decls]) == CXCursor_DeclStmt))
        decls++;
    return n - decls >= 3;
}

static void walk_if(hs_walk *x, CXCursor c, const hs_cursor_list *list)
{
    hs_cursor_list kids = *list;
    if (kids.len < 2) {
        for (unsigned i = 0; i < kids.len; i++)
            walk(x, kids.items[i]);
        return;
    }
    unsigned n = kids.len;
    bool has_else = if_has_else(x, &kids);
    unsigned then_index = has_else ? n - 2 : n - 1;
    /* In a loop, an if whose arm leaves the loop is the loop's real condition: a wait
     * (`if (done == n) break;`). */
    unsigned then_exit = exit_until(x, kids.items[then_index]);
    unsigned else_exit = has_else ? exit_until(x, kids.items[n - 1]) : 0;
    bool waits = hs_in_loop(x) && (then_exit || else_exit);
    if (waits && then_index > 0)
        note_loop_exit(x, kids.items[then_index - 1], innermost_loop_id(x));
    x->condition++;
    x->loop_condition += waits;
    for (unsigned i = 0; i < then_index; i++) {
        note_tested(x, kids.items[i], waits);
        walk(x, kids.items[i]); /* init and condition run on every path */
    }
    x->loop_condition -= waits;
    x->condition--;
    bool sampled = then_index > 0 && is_sampling_condition(kids.items[then_index - 1]);
    CXCursor cond = then_index > 0 ? kids.items[then_index - 1] : clang_getNullCursor();
    walk_arm_when(x, c, 0, kids.items[then_index], then_exit, sampled, cond, true);
    if (has_else) /* the else of `if (i % 1024 == 0)` runs on most iterations */
        walk_arm_when(x, c, 1, kids.items[n - 1], else_exit, false, cond, false);
}

static void walk_conditional(hs_walk *x, CXCursor c, const hs_cursor_list *list)
{
    hs_cursor_list kids = *list;
    if (kids.len == 3) {
        x->condition++;
        note_tested(x, kids.items[0], false);
        walk(x, kids.items[0]);
        x->condition--;
        walk_arm_when(x, c, 0, kids.items[1], 0, false, kids.items[0], true);
        walk_arm_when(x, c, 1, kids.items[2], 0, false, kids.items[0], false);
    } else {
        for (unsigned i = 0; i < kids.len; i++)
            walk(x, kids.items[i]);
    }
}

static bool is_case_label(CXCursor c)
{
    enum CXCursorKind k = hs_cursor_kind(c);
    return k == CXCursor_CaseStmt || k == CXCursor_DefaultStmt;
}

static void walk_switch(hs_walk *x, CXCursor c, const hs_cursor_list *list)
{
    hs_cursor_list kids = *list;
    if (kids.len == 0)
        return;
    x->condition++;
    for (unsigned i = 0; i + 1 < kids.len; i++)
        walk(x, kids.items[i]);
    x->condition--;
    CXCursor body = kids.items[kids.len - 1];
    bool pushed = push_scope(x, c, false);
    if (hs_cursor_kind(body) != CXCursor_CompoundStmt) {
        walk_arm(x, c, 0, body, 0);
    } else {
        hs_cursor_list stmts;
        hs_children(body, &stmts);
        /*
         * Each case label starts a segment; a segment that ends in break, return,
         * continue or goto ends its arm, one that falls through shares its arm with
         * the next (both run on one path). An arm's exit comes from its last statement.
         */
        unsigned arm = 0;
        unsigned i = 0;
        while (i < stmts.len) {
            unsigned j = i + 1;
            while (j < stmts.len && !is_case_label(stmts.items[j]))
                j++;
            unsigned exit = exit_until(x, stmts.items[j - 1]);
            bool ends_arm = exit != 0;
            if (exit == x->scopes[x->nscopes - 1].end && pushed)
                exit = 0; /* break leaves the switch: code after it still runs */
            for (unsigned k = i; k < j; k++)
                walk_arm(x, c, arm, stmts.items[k], exit);
            if (ends_arm)
                arm++;
            i = j;
        }
        hs_cursor_list_free(&stmts);
    }
    if (pushed)
        x->nscopes--;
}

/* Offsets of a for statement's two header semicolons (at parenthesis depth 1). */
static void for_header_semicolons(hs_walk *x, CXCursor stmt, CXCursor body, unsigned out[2])
{
    CXSourceLocation a = hs_cursor_start(stmt);
    CXSourceLocation b = hs_cursor_start(body);
    CXToken *toks = NULL;
    unsigned n = 0, found = 0, depth = 0;
    out[0] = out[1] = 0;
    clang_tokenize(x->tu, clang_getRange(a, b), &toks, &n);
    for (unsigned i = 0; i < n && found < 2; i++) {
        CXString s = clang_getTokenSpelling(x->tu, toks[i]);
        const char *t = clang_getCString(s);
        if (strcmp(t, "(") == 0)
            depth++;
        else if (strcmp(t, ")") == 0)
            depth--;
        else if (strcmp(t, ";") == 0 && depth == 1)
            out[found++] = offset_of(x, clang_getTokenLocation(x->tu, toks[i]));
        clang_disposeString(s);
    }
    clang_disposeTokens(x->tu, toks, n);
}

/* `do { ... } while (0)` and `while (0)`: statement macros, not loops. */
static bool condition_is_false(CXCursor cond)
{
    CXEvalResult ev = clang_Cursor_Evaluate(cond);
    if (!ev)
        return false;
    bool is_false = clang_EvalResult_getKind(ev) == CXEval_Int && clang_EvalResult_getAsLongLong(ev) == 0;
    clang_EvalResult_dispose(ev);
    return is_false;
}

static void walk_loop(hs_walk *x, CXCursor c, const hs_cursor_list *list)
{
    enum CXCursorKind k = hs_cursor_kind(c);
    hs_cursor_list kids = *list;
    CXCursor *cond = k == CXCursor_DoStmt && kids.len == 2      ? &kids.items[1]
                     : k == CXCursor_WhileStmt && kids.len >= 2 ? &kids.items[kids.len - 2]
                                                                : NULL;
    if (cond && condition_is_false(*cond)) {
        bool pushed = push_scope(x, c, false); /* still the target of break */
        for (unsigned i = 0; i < kids.len; i++)
            walk(x, kids.items[i]);
        if (pushed)
            x->nscopes--;
        return;
    }
    /*
     * Which child is what. Parts run once, before the first iteration: a for's init,
     * a range-for's range. The condition runs every iteration: a while's first
     * part(s), a do's last, what a for has between its two semicolons.
     */
    unsigned semis[2] = {0, 0};
    if (kids.len > 0 && k == CXCursor_ForStmt)
        for_header_semicolons(x, c, kids.items[kids.len - 1], semis);
    unsigned body_index = k == CXCursor_DoStmt ? 0 : (kids.len ? kids.len - 1 : 0);
    bool pushed = false;
    for (unsigned i = 0; i < kids.len; i++) {
        unsigned start = start_offset(x, kids.items[i]);
        bool once = i != body_index && ((k == CXCursor_ForStmt && start < semis[0]) ||
                                        k == CXCursor_CXXForRangeStmt);
        bool is_cond = i != body_index && !once &&
                       (k == CXCursor_WhileStmt || k == CXCursor_DoStmt ||
                        (k == CXCursor_ForStmt && start < semis[1]));
        if (!once && !pushed)
            pushed = push_scope(x, c, true);
        if (is_cond) {
            x->condition++;
            x->loop_condition++;
            note_tested(x, kids.items[i], true);
            note_loop_exit(x, kids.items[i], start_offset(x, c));
        }
        walk(x, kids.items[i]);
        if (is_cond) {
            x->condition--;
            x->loop_condition--;
        }
    }
    if (pushed)
        x->nscopes--;
}

static bool is_function_kind(enum CXCursorKind k)
{
    return k == CXCursor_FunctionDecl || k == CXCursor_CXXMethod || k == CXCursor_Constructor ||
           k == CXCursor_Destructor || k == CXCursor_ConversionFunction ||
           k == CXCursor_FunctionTemplate;
}

static void record_write(hs_walk *x, CXCursor target, unsigned offset)
{
    hs_pending *p = pending_new(&target, 1);
    p->offset = offset;
    hs_vec_push(&x->fn->pending_writes, p);
}

/* ---- indirect calls: slots, function addresses stored in them, overrides ------------ */

/* The only child of a unary operator (`*p`, `&f`), or the cursor itself. */
static CXCursor only_child(CXCursor c)
{
    hs_cursor_list kids;
    hs_children(c, &kids);
    CXCursor r = kids.len == 1 ? kids.items[0] : c;
    hs_cursor_list_free(&kids);
    return r;
}

/* Through parens, casts, implicit nodes, and `*`/`&` (`(*p)()`, `slot = &fn`). */
static CXCursor strip_value(CXCursor c)
{
    for (int guard = 0; guard < 16; guard++) {
        c = hs_strip_expr(c);
        if (hs_cursor_kind(c) != CXCursor_UnaryOperator)
            return c;
        enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(c);
        if (op != CXUnaryOperator_Deref && op != CXUnaryOperator_AddrOf)
            return c;
        CXCursor next = only_child(c);
        if (clang_equalCursors(next, c))
            return c;
        c = next;
    }
    return c;
}

/*
 * The slot an expression names: a variable with static storage (global, static,
 * local static; not a parameter or plain local), a field (`c->cmd->proc`), or an element of
 * either (`handlers[i]`). The slot's USR (cached), or NULL.
 */
static const char *slot_of(hs_walk *x, CXCursor e)
{
    e = strip_value(e);
    enum CXCursorKind k = hs_cursor_kind(e);
    if (k == CXCursor_ArraySubscriptExpr) {
        hs_cursor_list kids;
        hs_children(e, &kids);
        CXCursor base = kids.len ? kids.items[0] : clang_getNullCursor();
        hs_cursor_list_free(&kids);
        if (hs_cursor_is_null(base))
            return NULL;
        e = strip_value(base);
        k = hs_cursor_kind(e);
    }
    if (k != CXCursor_DeclRefExpr && k != CXCursor_MemberRefExpr)
        return NULL;
    CXCursor d = clang_getCursorReferenced(e);
    enum CXCursorKind dk = hs_cursor_kind(d);
    if (dk == CXCursor_FieldDecl || (dk == CXCursor_VarDecl && clang_Cursor_hasVarDeclGlobalStorage(d) == 1))
        return hs_cursor_usr_cached(x, d);
    return NULL;
}

/* The function a value names (`fn`, `&fn`, `(T)fn`), or a null cursor. */
static CXCursor function_of_value(CXCursor e)
{
    e = strip_value(e);
    if (hs_cursor_kind(e) != CXCursor_DeclRefExpr)
        return clang_getNullCursor();
    CXCursor d = clang_getCursorReferenced(e);
    return !hs_cursor_is_null(d) && is_function_kind(hs_cursor_kind(d)) ? d : clang_getNullCursor();
}

static void record_store(hs_walk *x, const char *slot, CXCursor fn, CXCursor at)
{
    const char *fusr = hs_cursor_usr_cached(x, fn);
    if (!slot || !slot[0] || !fusr[0])
        return;
    char *key = hs_printf("s|%s|%s", slot, fusr);
    bool fresh = !hs_strmap_has(x->stores_seen, key);
    hs_pos pos;
    if (fresh && hs_cursor_pos(x, at, &pos, NULL)) {
        hs_strmap_put(x->stores_seen, key, (void *)1);
        json_array_append_new(x->fn_stores,
                              json_pack("{s:s, s:s, s:s, s:s, s:i}", "slot", slot, "function", fusr,
                                        "function_name", hs_qualified_name(x, fn), "file", pos.file,
                                        "line", (json_int_t)pos.line));
    }
    free(key);
}

static enum CXVisitorResult field_visitor(CXCursor c, CXClientData data)
{
    hs_cursor_list_push(data, c);
    return CXVisit_Continue;
}

/*
 * A value stored into `slot` (NULL: a plain local, whose fields still count) of type `t`:
 * a function's address, or an initializer list whose elements go to the struct's fields
 * in order or by designator (`{"get", getCommand}`, `{.proc = f}`), or to the array's
 * elements (`{f, g}`: the array's own slot).
 */
static void record_stores_in(hs_walk *x, const char *slot, CXType t, CXCursor value, int depth)
{
    if (depth > 8 || x->no_indirect)
        return;
    CXCursor e = hs_strip_expr(value);
    if (hs_cursor_kind(e) != CXCursor_InitListExpr) {
        CXCursor fn = function_of_value(e);
        if (!hs_cursor_is_null(fn))
            record_store(x, slot, fn, e);
        return;
    }
    CXType ct = clang_getCanonicalType(t);
    hs_cursor_list kids;
    hs_children(e, &kids);
    if (ct.kind == CXType_Record) {
        hs_cursor_list fields = {0};
        clang_Type_visitFields(ct, field_visitor, &fields);
        unsigned next = 0;
        for (unsigned i = 0; i < kids.len; i++) {
            CXCursor v = kids.items[i];
            CXCursor field = clang_getNullCursor();
            hs_cursor_list parts;
            hs_children(v, &parts);
            /* A designated initializer: MemberRef designators, then the value. */
            if (hs_cursor_kind(v) == CXCursor_UnexposedExpr && parts.len >= 2 &&
                hs_cursor_kind(parts.items[0]) == CXCursor_MemberRef) {
                field = clang_getCursorReferenced(parts.items[parts.len - 2]);
                v = parts.items[parts.len - 1];
                CXCursor first = clang_getCursorReferenced(parts.items[0]);
                for (unsigned f = 0; f < fields.len; f++)
                    if (clang_equalCursors(fields.items[f], first))
                        next = f;
                next++;
            } else if (next < fields.len) {
                field = fields.items[next++];
            }
            hs_cursor_list_free(&parts);
            if (hs_cursor_is_null(field) || hs_cursor_kind(field) != CXCursor_FieldDecl)
                continue;
            record_stores_in(x, hs_cursor_usr_cached(x, field), clang_getCursorType(field), v, depth + 1);
        }
        free(fields.items);
    } else {
        CXType elem = clang_getArrayElementType(ct);
        bool array = elem.kind != CXType_Invalid;
        for (unsigned i = 0; i < kids.len; i++) {
            CXCursor v = kids.items[i];
            hs_cursor_list parts;
            hs_children(v, &parts);
            /* `[3] = f`: the value is the designated initializer's last child. */
            if (hs_cursor_kind(v) == CXCursor_UnexposedExpr && parts.len >= 2)
                v = parts.items[parts.len - 1];
            hs_cursor_list_free(&parts);
            record_stores_in(x, slot, array ? elem : t, v, depth + 1);
        }
    }
    hs_cursor_list_free(&kids);
}

/* A variable's (or field's default) initializer, among `kids` (the declaration's children):
 * stores into it and its fields. */
static void record_decl_stores(hs_walk *x, CXCursor decl, const hs_cursor_list *kids)
{
    for (unsigned i = 0; i < kids->len; i++) {
        if (!clang_isExpression(hs_cursor_kind(kids->items[i])))
            continue;
        /* Most declarations have no initializer: only those pay for the USR. */
        const char *slot = hs_cursor_kind(decl) == CXCursor_FieldDecl ||
                                   clang_Cursor_hasVarDeclGlobalStorage(decl) == 1
                               ? hs_cursor_usr_cached(x, decl)
                               : NULL;
        record_stores_in(x, slot, clang_getCursorType(decl), kids->items[i], 0);
    }
}

/* The methods a method overrides, each once per TU. */
static void record_overrides(hs_walk *x, CXCursor method)
{
    CXCursor *over = NULL;
    unsigned n = 0;
    clang_getOverriddenCursors(method, &over, &n);
    if (!n)
        return;
    const char *musr = hs_cursor_usr_cached(x, method);
    for (unsigned i = 0; i < n; i++) {
        const char *busr = hs_cursor_usr_cached(x, over[i]);
        char *key = hs_printf("o|%s|%s", musr, busr);
        if (!hs_strmap_has(x->stores_seen, key)) {
            hs_strmap_put(x->stores_seen, key, (void *)1);
            json_array_append_new(x->overrides, json_pack("{s:s, s:s, s:s, s:s}", "method", musr,
                                                          "method_name", hs_qualified_name(x, method),
                                                          "base", busr, "base_name",
                                                          hs_qualified_name(x, over[i])));
        }
        free(key);
    }
    clang_disposeOverriddenCursors(over);
}

/*
 * The callee as written ("c->cmd->proc"), or, when it is spelled across a macro's
 * definition and its use (REDISMODULE_GET_API(name) ... RedisModule_##name(...)), the
 * name of the variable or field called through.
 */
static char *via_text(hs_walk *x, CXCursor callee)
{
    CXSourceRange r = clang_getCursorExtent(callee);
    CXFile f1, f2;
    unsigned o1, o2;
    clang_getSpellingLocation(clang_getRangeStart(r), &f1, NULL, NULL, &o1);
    clang_getSpellingLocation(clang_getRangeEnd(r), &f2, NULL, NULL, &o2);
    if (f1 && clang_File_isEqual(f1, f2) && o2 >= o1 && o2 - o1 <= 200) {
        char *t = hs_cursor_text(x, callee);
        if (t && t[0] && strlen(t) <= 200)
            return t;
        free(t);
    }
    CXCursor e = strip_value(callee);
    if (hs_cursor_kind(e) == CXCursor_ArraySubscriptExpr) {
        hs_cursor_list kids;
        hs_children(e, &kids);
        if (kids.len)
            e = strip_value(kids.items[0]);
        hs_cursor_list_free(&kids);
    }
    return cursor_spelling(clang_getCursorReferenced(e));
}

CXCursor hs_first_child(CXCursor c)
{
    hs_cursor_list kids;
    hs_children(c, &kids);
    CXCursor r = kids.len ? kids.items[0] : clang_getNullCursor();
    hs_cursor_list_free(&kids);
    return r;
}

static void walk_call(hs_walk *x, CXCursor c, const hs_cursor_list *kids)
{
    CXCursor callee = clang_getCursorReferenced(c);
    bool names_function = !hs_cursor_is_null(callee) && is_function_kind(hs_cursor_kind(callee));
    const char *qname = names_function ? hs_qualified_name(x, callee) : NULL;
    hooks_call(x, c, callee, qname);
    if (names_function) {
        hs_pos pos;
        if (hs_cursor_pos(x, c, &pos, NULL)) {
            const char *usr = hs_cursor_usr_cached(x, callee);
            json_t *edge = json_object();
            if (hs_json_set_string(edge, "caller", x->fn->usr) && hs_json_set_string(edge, "callee", usr) &&
                hs_json_set_string(edge, "callee_name", qname) && hs_json_set_string(edge, "file", pos.file)) {
                json_object_set_new_nocheck(edge, "line", json_integer(pos.line));
                json_object_set_new_nocheck(edge, "column", json_integer(pos.column));
                json_object_set_new_nocheck(edge, "in_loop", json_boolean(hs_in_loop(x)));
                json_object_set_new_nocheck(edge, "error_path", json_boolean(x->error_path > 0));
                json_object_set_new_nocheck(edge, "callee_noreturn", json_boolean(hs_function_never_returns(x, callee)));
                if (clang_Cursor_isVariadic(callee))
                    json_object_set_new_nocheck(edge, "callee_variadic", json_true());
                /* A virtual call may reach any override: the merge adds those edges. */
                if (!x->no_indirect && hs_cursor_kind(callee) == CXCursor_CXXMethod &&
                    clang_Cursor_isDynamicCall(c))
                    json_object_set_new_nocheck(edge, "virtual", json_true());
                add_edge_context(x, edge, c);
                json_array_append_new(x->calls, edge);
            } else {
                json_decref(edge); /* what json_pack's "s" refused: a string that is not UTF-8 */
            }
        }
    } else {
        /* A call through a pointer held in a variable, field or array element: recorded by
         * its slot (no "callee"); the merge adds an edge to each function stored there. */
        CXCursor ce = kids->len ? kids->items[0] : clang_getNullCursor(); /* the callee expression */
        const char *slot = hs_cursor_is_null(ce) || x->no_indirect ? NULL : slot_of(x, ce);
        hs_pos pos;
        if (slot && slot[0] && hs_cursor_pos(x, c, &pos, NULL)) {
            char *via = via_text(x, ce);
            json_t *edge = json_object();
            if (hs_json_set_string(edge, "caller", x->fn->usr) && hs_json_set_string(edge, "slot", slot) &&
                hs_json_set_string(edge, "via", via ? via : "") && hs_json_set_string(edge, "file", pos.file)) {
                json_object_set_new_nocheck(edge, "line", json_integer(pos.line));
                json_object_set_new_nocheck(edge, "column", json_integer(pos.column));
                json_object_set_new_nocheck(edge, "in_loop", json_boolean(hs_in_loop(x)));
                json_object_set_new_nocheck(edge, "error_path", json_boolean(x->error_path > 0));
                add_edge_context(x, edge, c);
                json_array_append_new(x->calls, edge);
            } else {
                json_decref(edge);
            }
            free(via);
        }
    }
    /* Values passed together to one call may be combined (a diff function); a variadic
     * call (printf, a logger) only prints them. */
    int nargs = clang_Cursor_getNumArguments(c);
    bool variadic = !hs_cursor_is_null(callee) && clang_Cursor_isVariadic(callee);
    if (nargs >= 2 && !variadic) {
        CXCursor *args = hs_xcalloc((size_t)nargs, sizeof(CXCursor));
        for (int i = 0; i < nargs; i++)
            args[i] = clang_Cursor_getArgument(c, (unsigned)i);
        hs_vec_push(&x->fn->pending_combiners, pending_new(args, (unsigned)nargs));
        free(args);
    }
    /* Arguments passed by address may be written. */
    for (int i = 0; i < nargs; i++) {
        CXCursor a = hs_strip_expr(clang_Cursor_getArgument(c, (unsigned)i));
        if (hs_cursor_kind(a) == CXCursor_UnaryOperator &&
            clang_getCursorUnaryOperatorKind(a) == CXUnaryOperator_AddrOf)
            record_write(x, a, start_offset(x, c));
    }
    walk_children(x, c, kids);
}

static bool is_combining_operator(enum CXBinaryOperatorKind op)
{
    switch (op) {
    case CXBinaryOperator_Sub:
    case CXBinaryOperator_SubAssign:
    case CXBinaryOperator_LT:
    case CXBinaryOperator_GT:
    case CXBinaryOperator_LE:
    case CXBinaryOperator_GE:
    case CXBinaryOperator_EQ:
    case CXBinaryOperator_NE:
    case CXBinaryOperator_Cmp:
        return true;
    default:
        return false;
    }
}

/*
 * Walks `value`, written to `target` (an expression, or with `is_decl` a declared
 * variable): clock reads and atomic results in it flow into that name.
 */
static void walk_assigned_value(hs_walk *x, CXCursor target, bool is_decl, bool plain, CXCursor value)
{
    bool saved_has = x->has_sink, saved_decl = x->sink_is_decl, saved_plain = x->sink_plain;
    CXCursor saved = x->sink, saved_value = x->sink_value;
    x->has_sink = true;
    x->sink_is_decl = is_decl;
    x->sink_plain = plain;
    x->sink = target;
    x->sink_value = value;
    hooks_assigned(x, value);
    walk(x, value);
    x->has_sink = saved_has;
    x->sink_is_decl = saved_decl;
    x->sink_plain = saved_plain;
    x->sink = saved;
    x->sink_value = saved_value;
}

static void walk_binary(hs_walk *x, CXCursor c, const hs_cursor_list *list)
{
    enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(c);
    hs_cursor_list kids = *list;
    if (kids.len != 2) {
        walk_children(x, c, list);
        return;
    }
    if (is_combining_operator(op)) {
        hs_pending *p = pending_new(kids.items, 2);
        p->difference = op == CXBinaryOperator_Sub || op == CXBinaryOperator_SubAssign;
        hs_vec_push(&x->fn->pending_combiners, p);
    }
    /* `now + timeout`: a deadline. Offered marked, for what only cares that a value is
     * combined with another (a clock wrapper's call site), never as elapsed time. */
    if (op == CXBinaryOperator_Add || op == CXBinaryOperator_AddAssign) {
        hs_pending *sum = pending_new(kids.items, 2);
        sum->sum = true;
        hs_vec_push(&x->fn->pending_combiners, sum);
    }
    bool assigns = op >= CXBinaryOperator_Assign && op <= CXBinaryOperator_OrAssign;
    bool compares = (is_combining_operator(op) && op != CXBinaryOperator_Sub && op != CXBinaryOperator_SubAssign) ||
                    op == CXBinaryOperator_LAnd || op == CXBinaryOperator_LOr;
    bool equality = op == CXBinaryOperator_EQ || op == CXBinaryOperator_NE;
    bool masks = op == CXBinaryOperator_And || op == CXBinaryOperator_Rem;
    if (compares) {
        x->comparison++;
        x->equality += equality;
        walk(x, kids.items[0]);
        /* The right side of && and || runs only on some evaluations: an arm of its own,
         * so a read there is not on the path of what follows. */
        if (op == CXBinaryOperator_LAnd || op == CXBinaryOperator_LOr)
            walk_arm_when(x, c, 1, kids.items[1], 0, false, kids.items[0], op == CXBinaryOperator_LAnd);
        else
            walk(x, kids.items[1]);
        x->equality -= equality;
        x->comparison--;
    } else if (masks) {
        x->masked++;
        walk(x, kids.items[0]);
        walk(x, kids.items[1]);
        x->masked--;
    } else if (assigns) {
        if (op == CXBinaryOperator_Assign) {
            const char *slot = x->no_indirect ? NULL : slot_of(x, kids.items[0]);
            if (slot)
                record_stores_in(x, slot, clang_getCursorType(kids.items[0]), kids.items[1], 0);
        }
        record_write(x, kids.items[0], start_offset(x, c));
        walk(x, kids.items[0]);
        walk_assigned_value(x, kids.items[0], false, op == CXBinaryOperator_Assign, kids.items[1]);
    } else {
        walk(x, kids.items[0]);
        walk(x, kids.items[1]);
    }
}

static void walk_var_decl(hs_walk *x, CXCursor c, const hs_cursor_list *kids)
{
    record_decl_stores(x, c, kids);
    for (unsigned i = 0; i < kids->len; i++) {
        enum CXCursorKind k = hs_cursor_kind(kids->items[i]);
        if (clang_isExpression(k))
            walk_assigned_value(x, c, true, true, kids->items[i]);
        else
            walk(x, kids->items[i]);
    }
}

/*
 * A statement list (or comma expression) whose later element aborts: the elements
 * before it are an error path (`log_error(...); abort();`, assert macros).
 */
static enum CXChildVisitResult find_transfer(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    enum CXCursorKind k = hs_cursor_kind(c);
    if (k == CXCursor_ReturnStmt || k == CXCursor_GotoStmt || k == CXCursor_IndirectGotoStmt ||
        k == CXCursor_BreakStmt || k == CXCursor_ContinueStmt || k == CXCursor_CXXThrowExpr) {
        *(bool *)data = true;
        return CXChildVisit_Break;
    }
    if (k == CXCursor_LambdaExpr)
        return CXChildVisit_Continue;
    return CXChildVisit_Recurse;
}

/* Can control leave the sequence at this statement (return, goto, break, throw)? A label
 * is only a way in: code after `fail:` still runs into the abort. */
static bool transfers_control(CXCursor stmt)
{
    bool found = false;
    find_transfer(stmt, clang_getNullCursor(), &found);
    if (!found)
        clang_visitChildren(stmt, find_transfer, &found);
    return found;
}

static bool is_abort_call(hs_walk *x, CXCursor c);

/* A statement after which the next one is not reached by falling through; `aborts`: it is
 * a call to an abort-like function (is_abort_call). */
static bool always_leaves(CXCursor stmt, bool aborts)
{
    enum CXCursorKind k = hs_cursor_kind(stmt);
    if (k == CXCursor_ReturnStmt || k == CXCursor_GotoStmt || k == CXCursor_IndirectGotoStmt ||
        k == CXCursor_BreakStmt || k == CXCursor_ContinueStmt)
        return true;
    CXCursor e = hs_strip_expr(stmt);
    return hs_cursor_kind(e) == CXCursor_CXXThrowExpr || aborts;
}

static void walk_sequence(hs_walk *x, CXCursor c, const hs_cursor_list *list)
{
    hs_cursor_list kids = *list;
    /* Whether each statement aborts, asked once: for the error path and for the segments. */
    bool *aborts = hs_xcalloc(kids.len ? kids.len : 1, sizeof *aborts);
    unsigned abort_at = 0;
    for (unsigned i = 1; i < kids.len; i++) {
        aborts[i] = is_abort_call(x, kids.items[i]);
        if (aborts[i])
            abort_at = i;
    }
    /* Only what surely runs into the abort is its error path: nothing before a statement
     * that can return or jump away first. */
    unsigned error_from = 0;
    for (unsigned i = abort_at; i-- > 0;)
        if (transfers_control(kids.items[i])) {
            error_from = i + 1;
            break;
        }
    enum CXCursorKind saved = x->parent_kind;
    x->parent_kind = hs_cursor_kind(c);
    bool is_block = hs_cursor_kind(c) == CXCursor_CompoundStmt;
    unsigned saved_stmt = x->stmt_start, saved_block = x->block_end;
    CXCursor saved_block_cursor = x->block;
    unsigned block_start = is_block ? start_offset(x, c) : 0, block_end = is_block ? end_offset(x, c) : 0;
    /*
     * After a statement that always leaves (return, goto, break, continue, throw, abort)
     * the rest of the block is reached some other way (a label): a new segment, recorded
     * like a branch arm [block, end, segment, -1] so reads in different segments are
     * never on one path.
     */
    unsigned segment = 0;
    for (unsigned i = 0; i < kids.len; i++) {
        if (is_block) {
            x->stmt_start = start_offset(x, kids.items[i]);
            x->block_end = block_end;
            x->block = c;
        }
        bool on_error_path = i >= error_from && i < abort_at;
        if (on_error_path)
            x->error_path++;
        bool entry = is_block && segment > 0 && x->nbranches < HS_MAX_NEST;
        if (entry)
            x->branches[x->nbranches++] = (hs_branch){block_start, block_end, segment, -1, false};
        walk(x, kids.items[i]);
        if (entry)
            x->nbranches--;
        if (on_error_path)
            x->error_path--;
        if (is_block && always_leaves(kids.items[i], i > 0 ? aborts[i] : is_abort_call(x, kids.items[i])))
            segment++;
    }
    x->stmt_start = saved_stmt;
    x->block_end = saved_block;
    x->block = saved_block_cursor;
    x->parent_kind = saved;
    free(aborts);
}

static void walk_node(hs_walk *x, CXCursor c, enum CXCursorKind k, const hs_cursor_list *kids);

static bool is_unevaluated(hs_walk *x, CXCursor c)
{
    CXToken *tok = clang_getToken(x->tu, hs_cursor_start(c));
    if (!tok)
        return false;
    CXString s = clang_getTokenSpelling(x->tu, *tok);
    const char *t = clang_getCString(s);
    bool r = strcmp(t, "sizeof") == 0 || strcmp(t, "alignof") == 0 || strcmp(t, "_Alignof") == 0 ||
             strcmp(t, "__alignof__") == 0;
    clang_disposeString(s);
    clang_disposeTokens(x->tu, tok, 1);
    return r;
}

/*
 * Collectors see each cursor (the cursor hook, then the call hook inside walk_node) with
 * walk_parent_kind naming its parent; implicit wrappers (UnexposedExpr, parentheses) are
 * transparent, so `x.fetch_add(1);` sees a statement as its parent and `y = x++` an
 * operator.
 */
static void walk(hs_walk *x, CXCursor c)
{
    enum CXCursorKind k = hs_cursor_kind(c);
    enum CXCursorKind saved = x->parent_kind;
    enum CXCursorKind saved_walk_parent = x->walk_parent_kind;
    const hs_cursor_list *saved_kids = x->kids;
    /* Listed once here for the hooks (hs_walk_children) and the handlers below; in a body's
     * list, borrowed from it (the handlers only read it). */
    hs_cursor_list owned;
    unsigned n = 0;
    const CXCursor *listed = children_of(c, &owned, &n);
    hs_cursor_list kids = {(CXCursor *)listed, n, n};
    x->kids = &kids;
    x->walk_parent_kind = saved;
    if (k == CXCursor_DeclRefExpr && x->liveness)
        mark_live(x, clang_getCursorReferenced(c));
    hooks_cursor(x, c);
    x->kids = saved_kids;
    if (k != CXCursor_UnexposedExpr && k != CXCursor_ParenExpr)
        x->parent_kind = k;
    walk_node(x, c, k, &kids);
    x->parent_kind = saved;
    x->walk_parent_kind = saved_walk_parent;
    hs_cursor_list_free(&owned);
}

static void walk_node(hs_walk *x, CXCursor c, enum CXCursorKind k, const hs_cursor_list *kids)
{
    switch (k) {
    case CXCursor_ForStmt:
    case CXCursor_WhileStmt:
    case CXCursor_DoStmt:
    case CXCursor_CXXForRangeStmt:
        walk_loop(x, c, kids);
        return;
    case CXCursor_IfStmt:
        walk_if(x, c, kids);
        return;
    case CXCursor_SwitchStmt:
        walk_switch(x, c, kids);
        return;
    case CXCursor_ConditionalOperator:
        walk_conditional(x, c, kids);
        return;
    case CXCursor_CallExpr:
        walk_call(x, c, kids);
        return;
    case CXCursor_CompoundStmt:
        walk_sequence(x, c, kids);
        return;
    case CXCursor_BinaryOperator:
        if (clang_getCursorBinaryOperatorKind(c) == CXBinaryOperator_Comma) {
            walk_sequence(x, c, kids);
            return;
        }
        walk_binary(x, c, kids);
        return;
    case CXCursor_CompoundAssignOperator:
        walk_binary(x, c, kids);
        return;
    case CXCursor_VarDecl:
        walk_var_decl(x, c, kids);
        return;
    case CXCursor_UnaryExpr:
        /* sizeof, alignof and the like do not evaluate their operand (glibc's assert()
         * repeats its expression inside sizeof). */
        if (is_unevaluated(x, c))
            return;
        walk_children(x, c, kids);
        return;
    case CXCursor_LambdaExpr: {
        /* A lambda's body runs when it is called, not here: its own straight-line code. */
        unsigned saved = x->lambda;
        x->lambda = start_offset(x, c);
        /* Its loops and branches are its own: set the enclosing ones aside. */
        hs_scope scopes[HS_MAX_NEST];
        hs_branch branches[HS_MAX_NEST];
        int nscopes = x->nscopes, nbranches = x->nbranches;
        memcpy(scopes, x->scopes, sizeof scopes);
        memcpy(branches, x->branches, sizeof branches);
        x->nscopes = x->nbranches = 0;
        walk_children(x, c, kids);
        memcpy(x->scopes, scopes, sizeof scopes);
        memcpy(x->branches, branches, sizeof branches);
        x->nscopes = nscopes;
        x->nbranches = nbranches;
        x->lambda = saved;
        return;
    }
    case CXCursor_UnaryOperator: {
        enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(c);
        if ((op == CXUnaryOperator_PostInc || op == CXUnaryOperator_PostDec ||
             op == CXUnaryOperator_PreInc || op == CXUnaryOperator_PreDec) && kids->len == 1)
            record_write(x, kids->items[0], start_offset(x, c));
        walk_children(x, c, kids);
        return;
    }
    default:
        walk_children(x, c, kids);
        return;
    }
}

static void emit_function(hs_walk *x, CXCursor c, int temperature, bool defined)
{
    hs_pos pos, end;
    if (!hs_cursor_pos(x, c, &pos, &end))
        return;
    const char *usr = hs_cursor_usr_cached(x, c);
    json_t *f = json_object();
    if (!hs_json_set_string(f, "usr", usr) || !hs_json_set_string(f, "name", hs_qualified_name(x, c))) {
        json_decref(f);
        return;
    }
    json_object_set_new_nocheck(f, "defined", json_boolean(defined));
    json_object_set_new_nocheck(f, "hot", json_boolean((temperature & 1) != 0));
    json_object_set_new_nocheck(f, "cold", json_boolean((temperature & 2) != 0));
    json_object_set_new_nocheck(f, "noreturn", json_boolean((temperature & 4) != 0));
    hs_fact_set_position(f, &pos, NULL);
    json_array_append_new(x->functions, f);
}

static void free_function(hs_walk_function *fn)
{
    hs_vec *pending[4] = {&fn->pending_combiners, &fn->pending_writes, &fn->pending_tests,
                          &fn->pending_exits};
    for (int k = 0; k < 4; k++) {
        for (size_t i = 0; i < pending[k]->len; i++) {
            hs_pending *p = pending[k]->items[i];
            free(p->cursors);
            free(p);
        }
        hs_vec_free(pending[k]);
    }
    for (size_t i = 0; i < fn->combiners.len; i++) {
        hs_combination *c = fn->combiners.items[i];
        for (unsigned k = 0; k < c->n; k++)
            hs_key_set_free(&c->sets[k]);
        free(c->sets);
        free(c);
    }
    hs_vec_free(&fn->combiners);
    for (size_t i = 0; i < fn->writes.len; i++)
        free(fn->writes.items[i]);
    hs_vec_free(&fn->writes);
    hs_strmap_delete(fn->tested_keys);
    hs_strmap_delete(fn->version_keys);
    free(fn->usr);
    free(fn->name);
}

/*
 * ---- Header functions walked once -------------------------------------------------------
 *
 * A function defined in a header (a static inline helper) is in every TU that includes the
 * header, and the walk would query libclang about each of its cursors in each of them: on
 * haproxy most of the walk. The merge keeps every fact such a body gives once, by a key made
 * of where it is (file, offset, line, column), the function's and the variable's or callee's
 * USR and an ordinal among facts at one place, and keeps the first TU's in TU order
 * (program.c, hs_program_first_fact and the call, store and override keys); the rest of what
 * a body gives is folded (interval fields and timed sites by set union, function attributes
 * by "or", a variable's plain uses by their counts, of which the rule reads only "any", and
 * the first place, which stays the first TU's). So walking a body again in a later TU can
 * change the model only if it gives a fact with a key the earlier walk did not give.
 *
 * Workers take TUs in increasing index order, so the first TU in TU order that contains a
 * function is walked by its worker in full: it is that worker's first TU with the function.
 * A later TU skips the body only when the same worker walked a body with the same skip key
 * before and that TU's facts were delivered (commit): the key is the function's USR,
 * extent and hot/cold/noreturn attributes, the TU's command line and directory (which decide macros and include paths),
 * the digest of the ranges the preprocessor skipped in the function's file (#if arms; libclang
 * records them only with the detailed preprocessing record, else the list is empty and the
 * body digest alone tells arms apart), and a digest of the body's cursors in preorder: kinds
 * (an operator's too: `a OP b` with OP a macro), and for the cursors facts are made of where
 * each is written and where it is expanded (a macro defined differently is spelled elsewhere;
 * a token the preprocessor made, by ## or # or __LINE__, is written in no file, and goes in by
 * what it says), the kind and place of the declaration it refers to (a name bound to another
 * declaration) and a variable's type kind and type declaration (fp_visitor); a declaration a
 * system header gives or the compiler made at a first call goes in by USR and type instead of
 * place (fp_decl_place). Equal keys mean the two walks see the same cursors at the same places bound to the same
 * declarations, so they give facts with the same keys: the merge would have dropped the
 * later ones. The same holds for the function's own entry (USR, name, place, attributes,
 * folded per USR by the merge), so a skipped body leaves that out too: on haproxy about
 * 100,000 entries a scan wrote, read and dropped. A TU with compile errors neither skips
 * nor records (its AST may be partial). What a skipped body showed that a TU-level fact
 * rests on (the atomics' names, checked against the TU's compiled-out code) a collector keeps
 * in its worker memo (hs_walk_worker_memo) and reads back when told of the skip
 * (function_skipped).
 *
 * Making that digest visits every cursor of every header body in every TU: on redis it cost
 * more than the walks it saved. So a header is first asked as a whole: when this TU entered
 * the header in the same state as an earlier TU of this worker did (the prefix key of
 * header_prefix.c: command line, the main file's text before it, the files entered before
 * it), every body in it is the same and is skipped without a digest (the TU's keys are
 * recorded on commit, like the bodies'). Only when that fails is the body digested. Both say
 * "walked before"; the prefix key only says it sooner. HOTSCAN_BENCH_CHECK_HEADER_SKIP=1
 * digests the bodies a prefix key skipped too and counts those no walk had (bench only).
 * A C TU goes further (liveness, below): it digests only the header functions its code
 * refers to, and uses no prefix key.
 */
struct hs_extract_cache {
    hs_keyset *walked;   /* skip keys of bodies walked in TUs whose facts were delivered */
    hs_keyset *headers;  /* prefix keys of headers whose bodies such TUs walked or skipped */
    hs_keyset *learned_walked;  /* the same from other workers' TUs (key_log.c), when not */
    hs_keyset *learned_headers; /* in the two sets above */
    unsigned char (*pending)[16]; /* this TU's, until its facts are delivered: body keys */
    size_t npending, cap;
    unsigned char (*pending_headers)[16]; /* and prefix keys */
    size_t npending_headers, cap_headers;
    /* Of this TU's keys, those that stay in this worker (hs_walk_body_in_memo): body keys,
     * moved out of `pending`, and a flag per pending prefix key. */
    unsigned char (*kept)[16];
    size_t nkept, cap_kept;
    bool *headers_kept;           /* cap_headers of them */
    unsigned char (*shared_headers)[16]; /* hs_extract_cache_pending's answer */
    size_t kept_count, kept_headers_count; /* keys kept so far, for the stats */
    size_t walked_count, skipped_count, skipped_by_header;
    size_t skipped_learned;       /* skipped by a key only another worker's TU gave */
    size_t skipped_unreferenced;  /* not referred to in their TU (liveness), no digest made */
    size_t unreferenced_walks;    /* of those, walked as the first of their text key */
    hs_keyset *unreferenced_walked; /* text keys (text_key) of those walked, in TUs delivered */
    unsigned char (*pending_unreferenced)[16]; /* and in this TU, until delivered */
    size_t npending_unreferenced, cap_unreferenced;
    bool check_headers;           /* HOTSCAN_BENCH_CHECK_HEADER_SKIP: digest skipped bodies too */
    size_t header_disagreements;  /* bodies a prefix key skipped whose digest no walk had */
    hs_strmap *real_paths;        /* path as clang names it -> its realpath, "" if none */
    void **memos;                 /* hs_walk_worker_memo: one slot per collector, in table order */
};

hs_extract_cache *hs_extract_cache_create(void)
{
    hs_extract_cache *c = hs_xcalloc(1, sizeof *c);
    c->walked = hs_keyset_create();
    c->headers = hs_keyset_create();
    c->learned_walked = hs_keyset_create();
    c->learned_headers = hs_keyset_create();
    c->unreferenced_walked = hs_keyset_create();
    c->real_paths = hs_strmap_create();
    c->check_headers = getenv("HOTSCAN_BENCH_CHECK_HEADER_SKIP") != NULL;
    return c;
}

void hs_extract_cache_delete(hs_extract_cache *c)
{
    if (!c)
        return;
    hs_keyset_delete(c->walked);
    hs_keyset_delete(c->headers);
    hs_keyset_delete(c->learned_walked);
    hs_keyset_delete(c->learned_headers);
    hs_keyset_delete(c->unreferenced_walked);
    const char *path;
    void *real;
    for (size_t it = 0; hs_strmap_next(c->real_paths, &it, &path, &real);)
        free(real);
    hs_strmap_delete(c->real_paths);
    size_t ncollectors;
    const hs_collector *const *collectors = hs_collectors_all(&ncollectors);
    delete_memos(c->memos, collectors, ncollectors);
    free(c->pending);
    free(c->pending_headers);
    free(c->kept);
    free(c->headers_kept);
    free(c->shared_headers);
    free(c->pending_unreferenced);
    free(c);
}

void **hs_walk_worker_memo(hs_walk *x, const hs_collector *self)
{
    size_t i = 0;
    while (i < x->ncollectors && x->collectors[i] != self)
        i++;
    if (i == x->ncollectors)
        abort(); /* not a registered collector: a programming error */
    /* The worker's cache, also when this TU had errors (it records no keys, but later TUs may
     * skip bodies an earlier one walked). */
    hs_extract_cache *cache = x->worker_cache;
    void ***slots = cache ? &cache->memos : &x->tu_memos;
    if (!*slots)
        *slots = hs_xcalloc(x->ncollectors, sizeof(void *));
    return &(*slots)[i];
}

void hs_extract_cache_commit(hs_extract_cache *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->npending; i++)
        hs_keyset_add(c->walked, c->pending[i], sizeof c->pending[i]);
    for (size_t i = 0; i < c->nkept; i++)
        hs_keyset_add(c->walked, c->kept[i], sizeof c->kept[i]);
    for (size_t i = 0; i < c->npending_headers; i++) {
        hs_keyset_add(c->headers, c->pending_headers[i], sizeof c->pending_headers[i]);
        c->kept_headers_count += c->headers_kept[i];
    }
    for (size_t i = 0; i < c->npending_unreferenced; i++)
        hs_keyset_add(c->unreferenced_walked, c->pending_unreferenced[i], sizeof c->pending_unreferenced[i]);
    c->kept_count += c->nkept;
    c->npending = c->npending_headers = c->nkept = c->npending_unreferenced = 0;
}

void hs_extract_cache_discard(hs_extract_cache *c)
{
    if (c)
        c->npending = c->npending_headers = c->nkept = c->npending_unreferenced = 0;
}

size_t hs_extract_cache_kept(const hs_extract_cache *c, size_t *headers)
{
    *headers = c ? c->kept_headers_count : 0;
    return c ? c->kept_count : 0;
}

void hs_extract_cache_counts(const hs_extract_cache *c, size_t *walked, size_t *skipped)
{
    *walked = c ? c->walked_count : 0;
    *skipped = c ? c->skipped_count : 0;
}

size_t hs_extract_cache_unreferenced(const hs_extract_cache *c, size_t *walks)
{
    *walks = c ? c->unreferenced_walks : 0;
    return c ? c->skipped_unreferenced : 0;
}

size_t hs_extract_cache_skipped_by_header(const hs_extract_cache *c, size_t *disagreements)
{
    *disagreements = c ? c->header_disagreements : 0;
    return c ? c->skipped_by_header : 0;
}

size_t hs_extract_cache_skipped_learned(const hs_extract_cache *c)
{
    return c ? c->skipped_learned : 0;
}

void hs_extract_cache_pending(hs_extract_cache *c, const unsigned char (**body)[16], size_t *nbody,
                              const unsigned char (**headers)[16], size_t *nheaders)
{
    *body = c ? (const unsigned char (*)[16])c->pending : NULL;
    *nbody = c ? c->npending : 0;
    *headers = NULL;
    *nheaders = 0;
    if (!c || !c->npending_headers)
        return;
    free(c->shared_headers);
    c->shared_headers = hs_xmalloc(c->npending_headers * sizeof *c->shared_headers);
    size_t n = 0;
    for (size_t i = 0; i < c->npending_headers; i++)
        if (!c->headers_kept[i])
            memcpy(c->shared_headers[n++], c->pending_headers[i], sizeof *c->shared_headers);
    *headers = (const unsigned char (*)[16])c->shared_headers;
    *nheaders = n;
}

bool hs_extract_cache_learn(hs_extract_cache *c, bool header, const unsigned char key[16])
{
    if (!c)
        return false;
    hs_keyset *own = header ? c->headers : c->walked;
    if (hs_keyset_has(own, key, 16))
        return false; /* this worker's own (the supervisor shares every worker's records) */
    return hs_keyset_add(header ? c->learned_headers : c->learned_walked, key, 16);
}

/* Appends a 16-byte key to a growing array of them. */
static void push_key(unsigned char (**keys)[16], size_t *n, size_t *cap, const unsigned char key[16])
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        *keys = hs_xrealloc(*keys, *cap * sizeof **keys);
    }
    memcpy((*keys)[(*n)++], key, 16);
}

static void fp_add(XXH3_state_t *st, const void *p, size_t n)
{
    XXH3_128bits_update(st, p, n);
}

/* A location as the same numbers in every TU: the file's device, inode and time, and the
 * offset (HS_FP_LOC_BYTES bytes at `out`). */
static void fp_file_offset_bytes(unsigned char *out, CXFile file, unsigned offset)
{
    CXFileUniqueID id = {{0, 0, 0}};
    if (file)
        clang_getFileUniqueID(file, &id);
    memcpy(out, id.data, sizeof id.data);
    memcpy(out + sizeof id.data, &offset, sizeof offset);
}

static void fp_location_bytes(unsigned char *out, CXSourceLocation loc, bool spelling)
{
    CXFile file = NULL;
    unsigned offset = 0;
    if (spelling)
        clang_getSpellingLocation(loc, &file, NULL, NULL, &offset);
    else
        clang_getExpansionLocation(loc, &file, NULL, NULL, &offset);
    fp_file_offset_bytes(out, file, offset);
}

/*
 * A body's skip key, streamed: XXH3's update costs about as much per call as hashing a
 * hundred bytes, and the key takes 8 to 20 bytes at a time, so they are gathered here
 * first. The digest is the same however its input is cut.
 */
typedef struct {
    XXH3_state_t st;
    size_t len;
    unsigned char buf[2048];
} fp_sink;

static void fp_put(fp_sink *s, const void *p, size_t n)
{
    if (s->len + n > sizeof s->buf) {
        XXH3_128bits_update(&s->st, s->buf, s->len);
        s->len = 0;
        if (n > sizeof s->buf) {
            XXH3_128bits_update(&s->st, p, n);
            return;
        }
    }
    memcpy(s->buf + s->len, p, n);
    s->len += n;
}

static XXH128_hash_t fp_sink_digest(fp_sink *s)
{
    XXH3_128bits_update(&s->st, s->buf, s->len);
    s->len = 0;
    return XXH3_128bits_digest(&s->st);
}

/* The inclusion a body is named in, and its file's unique ID. */
typedef struct {
    hs_inclusion at;
    CXFileUniqueID id;
} fp_inclusion;

/*
 * A location's bytes when it stands for something that has no place in a file, followed by
 * `n` bytes of what it stands for (below): no file has this unique ID, so these never read
 * as a file location, and the length keeps the stream unambiguous.
 */
static void fp_put_placeless(fp_sink *s, const void *what, unsigned n)
{
    unsigned char b[sizeof(CXFileUniqueID)];
    memset(b, 0xff, sizeof b);
    fp_put(s, b, sizeof b);
    fp_put(s, &n, sizeof n);
    fp_put(s, what, n);
}

/*
 * What a literal the preprocessor made means, into the key: a string's contents as libclang
 * prints them (its spelling: every concatenated piece, escaped), a number's value. False
 * when libclang cannot say.
 */
static bool fp_put_literal_value(fp_sink *s, CXCursor c)
{
    if (hs_cursor_kind(c) == CXCursor_StringLiteral) {
        CXString text = clang_getCursorSpelling(c);
        const char *t = clang_getCString(text);
        bool done = t != NULL;
        if (done)
            fp_put_placeless(s, t, (unsigned)strlen(t));
        clang_disposeString(text);
        return done;
    }
    CXEvalResult ev = clang_Cursor_Evaluate(c);
    if (!ev)
        return false;
    bool done = true;
    switch (clang_EvalResult_getKind(ev)) {
    case CXEval_Int: {
        long long v = clang_EvalResult_getAsLongLong(ev);
        fp_put_placeless(s, &v, sizeof v);
        break;
    }
    case CXEval_Float: {
        double v = clang_EvalResult_getAsDouble(ev);
        fp_put_placeless(s, &v, sizeof v);
        break;
    }
    default:
        done = false;
    }
    clang_EvalResult_dispose(ev);
    return done;
}

/*
 * Where cursor `c`, at macro location `loc`, is written. A token the preprocessor made
 * (pasted with ##, stringized with #, __LINE__, __FILE__) is written in its scratch space,
 * not in a file: its offset there says only how much this TU had made before, which differs
 * from TU to TU for the same body (on haproxy most header bodies walked more than once were
 * walked again for that alone). What the parser read from it goes in instead: a literal's
 * value, else the token's text. When libclang gives neither, the offset, as before.
 */
static void fp_spelling(fp_sink *s, CXTranslationUnit tu, CXCursor c, CXSourceLocation loc)
{
    unsigned char b[HS_FP_LOC_BYTES];
    CXFile file = NULL;
    unsigned offset = 0;
    clang_getSpellingLocation(loc, &file, NULL, NULL, &offset);
    if (!file) {
        enum CXCursorKind k = hs_cursor_kind(c);
        if ((k == CXCursor_StringLiteral || k == CXCursor_IntegerLiteral || k == CXCursor_FloatingLiteral ||
             k == CXCursor_CharacterLiteral) &&
            fp_put_literal_value(s, c))
            return;
        CXToken *tok = clang_getToken(tu, loc);
        if (tok) {
            CXString text = clang_getTokenSpelling(tu, *tok);
            const char *t = clang_getCString(text);
            fp_put_placeless(s, t ? t : "", t ? (unsigned)strlen(t) : 0);
            clang_disposeString(text);
            clang_disposeTokens(tu, tok, 1);
            return;
        }
    }
    fp_file_offset_bytes(b, file, offset);
    fp_put(s, b, sizeof b);
}

/*
 * Where a cursor is expanded, then where it is written. A location that is not in a macro
 * (the top bit of the raw encoding libclang keeps in int_data clear: SourceLocation's
 * MacroIDBit) is its own spelling, so the same bytes go in twice without asking again.
 */
static void fp_expansion_and_spelling(fp_sink *s, CXTranslationUnit tu, const fp_inclusion *in, CXCursor c,
                                      CXSourceLocation loc)
{
    unsigned char b[HS_FP_LOC_BYTES];
    bool file_location = !(loc.int_data & HS_MACRO_LOCATION_BIT);
    unsigned offset;
    if (inclusion_offset(&in->at, loc, &offset)) {
        memcpy(b, in->id.data, sizeof in->id.data);
        memcpy(b + sizeof in->id.data, &offset, sizeof offset);
    } else {
        fp_location_bytes(b, loc, false);
    }
    fp_put(s, b, sizeof b);
    if (file_location) {
        fp_put(s, b, sizeof b);
        return;
    }
    fp_spelling(s, tu, c, loc);
}

static size_t fp_ref_slot(const void *decl, int kind, size_t cap)
{
    uintptr_t h = (uintptr_t)decl ^ (uintptr_t)kind;
    h ^= h >> 17;
    h *= (uintptr_t)0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 7) & (cap - 1);
}

static hs_fp_ref *fp_ref_find(hs_fp_refs *t, const void *decl, int kind)
{
    size_t j = fp_ref_slot(decl, kind, t->cap);
    while (t->slots[j].decl && (t->slots[j].decl != decl || t->slots[j].kind != kind))
        j = (j + 1) & (t->cap - 1);
    return &t->slots[j];
}

/*
 * Where declaration `d` is, into out[0, the length returned): its file location, except for
 * two kinds of declaration whose place says nothing about the code that names them and
 * differs between TUs that give a body the same facts. A system header's (`ssize_t` is
 * typedef'd in whichever of several system headers a TU includes first) and one the compiler
 * made (hs_decl_is_implicit: `__builtin_expect` is placed at its first use in the TU) go in
 * as what they are: their USR and canonical type, behind a marker no file has. No fact holds
 * either's place: hs_cursor_pos and hs_location_is_project say "not the project" for both
 * wherever they are, and the type holds what a fact reads of them (noreturn is in a function's
 * type). Without a USR the place goes in.
 */
static size_t fp_decl_place(unsigned char *out, CXCursor d)
{
    CXSourceLocation loc = clang_getCursorLocation(d);
    if (clang_Location_isInSystemHeader(loc) || hs_decl_is_implicit(d)) {
        CXString usr = clang_getCursorUSR(d);
        const char *u = clang_getCString(usr);
        bool named = u && u[0];
        if (named) {
            CXString type = clang_getTypeSpelling(clang_getCanonicalType(clang_getCursorType(d)));
            const char *t = clang_getCString(type);
            XXH3_state_t st;
            XXH3_INITSTATE(&st);
            XXH3_128bits_reset(&st);
            XXH3_128bits_update(&st, u, strlen(u) + 1);
            XXH3_128bits_update(&st, t ? t : "", t ? strlen(t) + 1 : 1);
            memset(out, 0xfe, sizeof(CXFileUniqueID));
            XXH128_canonicalFromHash((XXH128_canonical_t *)(out + sizeof(CXFileUniqueID)), XXH3_128bits_digest(&st));
            clang_disposeString(type);
        }
        clang_disposeString(usr);
        if (named)
            return sizeof(CXFileUniqueID) + 16;
    }
    fp_location_bytes(out, loc, false);
    return HS_FP_LOC_BYTES;
}

/*
 * The bytes fp_visitor adds for a reference to `ref` (its kind, where it is declared, and
 * for a variable, field or parameter its canonical type's kind and where that type is
 * declared), made on the declaration's first use in the TU; in *scratch for a cursor
 * that is not a declaration (a label's statement).
 */
static const hs_fp_ref *fp_ref_bytes(hs_fp_refs *t, CXCursor ref, hs_fp_ref *scratch)
{
    enum CXCursorKind rk = hs_cursor_kind(ref);
    /* A declaration cursor's place and type are its node's (data[0]); keep to those. */
    const void *decl = clang_isDeclaration(rk) ? ref.data[0] : NULL;
    if (decl && t->cap) {
        hs_fp_ref *e = fp_ref_find(t, decl, (int)rk);
        if (e->decl)
            return e;
    }
    unsigned char bytes[HS_FP_REF_MAX];
    size_t len = sizeof rk;
    memcpy(bytes, &rk, sizeof rk);
    len += fp_decl_place(bytes + len, ref);
    if (rk == CXCursor_VarDecl || rk == CXCursor_FieldDecl || rk == CXCursor_ParmDecl) {
        CXType type = clang_getCanonicalType(clang_getCursorType(ref));
        int tk = (int)type.kind;
        memcpy(bytes + len, &tk, sizeof tk);
        len += sizeof tk;
        CXCursor td = clang_getTypeDeclaration(type);
        if (!hs_cursor_is_null(td))
            len += fp_decl_place(bytes + len, td);
    }
    hs_fp_ref made = {decl, (int)rk, {0}};
    XXH128_canonicalFromHash((XXH128_canonical_t *)made.digest, XXH3_128bits(bytes, len));
    if (!decl) {
        *scratch = made;
        return scratch;
    }
    if (2 * (t->len + 1) > t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 256;
        hs_fp_refs grown = {hs_xcalloc(cap, sizeof(hs_fp_ref)), cap, t->len};
        for (size_t i = 0; i < t->cap; i++)
            if (t->slots[i].decl)
                *fp_ref_find(&grown, t->slots[i].decl, t->slots[i].kind) = t->slots[i];
        free(t->slots);
        *t = grown;
    }
    hs_fp_ref *e = fp_ref_find(t, decl, (int)rk);
    *e = made;
    t->len++;
    return e;
}

/* True for the cursors that name something or give a value: what facts are made of. */
static bool fp_detailed(enum CXCursorKind k)
{
    switch (k) {
    case CXCursor_CallExpr:
    case CXCursor_DeclRefExpr:
    case CXCursor_MemberRefExpr:
    case CXCursor_TypeRef:
    case CXCursor_MemberRef:
    case CXCursor_TemplateRef:
    case CXCursor_OverloadedDeclRef:
    case CXCursor_VariableRef:
    case CXCursor_LabelRef:
    case CXCursor_IntegerLiteral:
    case CXCursor_FloatingLiteral:
    case CXCursor_CharacterLiteral:
    case CXCursor_StringLiteral:
    case CXCursor_CXXBoolLiteralExpr:
    case CXCursor_VarDecl:
        return true;
    default:
        return false;
    }
}

/*
 * One cursor of a body into the skip key, in preorder: its kind and its parent's; for the
 * cursors facts are made of, also where it is expanded and where it is written (code from
 * a macro is written in the macro's definition, so a macro defined elsewhere shows), and
 * for a name the place and kind of the declaration it refers to, and for a variable the
 * kind of its type and where that type is declared (an _Atomic or std::atomic in one TU and
 * a plain integer in another).
 */
typedef struct {
    fp_sink *sink;
    CXTranslationUnit tu;
    fp_inclusion inclusion;
    hs_fp_refs *refs;
    hs_walk *walk;
} fp_args;

static enum CXChildVisitResult fp_visitor(CXCursor c, CXCursor parent, CXClientData data)
{
    fp_args *a = data;
    fp_sink *st = a->sink;
    int k[2] = {(int)hs_cursor_kind(c), (int)hs_cursor_kind(parent)};
    fp_put(st, k, sizeof k);
    /* An operator's kind: `a OP b` with OP a macro holds no name or literal written in
     * OP's definition, so where it is written would not tell `+` from `-`. */
    if (k[0] == CXCursor_BinaryOperator || k[0] == CXCursor_CompoundAssignOperator) {
        int op = (int)clang_getCursorBinaryOperatorKind(c);
        fp_put(st, &op, sizeof op);
    } else if (k[0] == CXCursor_UnaryOperator) {
        int op = (int)clang_getCursorUnaryOperatorKind(c);
        fp_put(st, &op, sizeof op);
    }
    if (!fp_detailed((enum CXCursorKind)k[0]))
        return CXChildVisit_Recurse;
    fp_expansion_and_spelling(st, a->tu, &a->inclusion, c, clang_getCursorLocation(c));
    /* A declaration refers to itself (clang_getCursorReferenced gives the cursor back; the
     * variable is the one declaration among the detailed kinds), and cursors of two kinds
     * are never equal: libclang is asked neither question when the answer is known. */
    if (k[0] == CXCursor_VarDecl)
        return CXChildVisit_Recurse;
    CXCursor ref = clang_getCursorReferenced(c);
    if (hs_cursor_is_null(ref) || (ref.kind == c.kind && clang_equalCursors(ref, c)))
        return CXChildVisit_Recurse;
    if (k[0] == CXCursor_DeclRefExpr)
        mark_live(a->walk, ref);
    hs_fp_ref scratch;
    const hs_fp_ref *r = fp_ref_bytes(a->refs, ref, &scratch);
    fp_put(st, r->digest, sizeof r->digest);
    return CXChildVisit_Recurse;
}

static int skipped_range_order(const void *a, const void *b)
{
    unsigned x = ((const hs_skipped_range *)a)->raw, y = ((const hs_skipped_range *)b)->raw;
    return (x > y) - (x < y);
}

/* The TU's skipped ranges, read once (clang_getAllSkippedRanges) and sorted by location. */
static void read_skipped_ranges(hs_walk *x)
{
    x->skipped_ranges_read = true;
    CXSourceRangeList *all = clang_getAllSkippedRanges(x->tu);
    if (!all)
        return;
    x->skipped_ranges = hs_xcalloc(all->count ? all->count : 1, sizeof *x->skipped_ranges);
    for (unsigned i = 0; i < all->count; i++) {
        CXSourceLocation start = clang_getRangeStart(all->ranges[i]);
        if (start.int_data & HS_MACRO_LOCATION_BIT) /* not a file location: none is */
            continue;
        hs_skipped_range *r = &x->skipped_ranges[x->nskipped_ranges++];
        r->raw = start.int_data;
        clang_getExpansionLocation(start, NULL, NULL, NULL, &r->begin);
        clang_getExpansionLocation(clang_getRangeEnd(all->ranges[i]), NULL, NULL, NULL, &r->end);
    }
    clang_disposeSourceRangeList(all);
    qsort(x->skipped_ranges, x->nskipped_ranges, sizeof *x->skipped_ranges, skipped_range_order);
}

/* Into `st`, the begin and end offsets of the TU's skipped ranges that start at raw
 * locations first .. first + size (read_skipped_ranges, on first use). */
static void hash_skipped_ranges(hs_walk *x, XXH3_state_t *st, unsigned first, unsigned size)
{
    if (!x->skipped_ranges_read)
        read_skipped_ranges(x);
    size_t lo = 0, hi = x->nskipped_ranges;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (x->skipped_ranges[mid].raw < first)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < x->nskipped_ranges && x->skipped_ranges[i].raw - first <= size; i++) {
        fp_add(st, &x->skipped_ranges[i].begin, sizeof x->skipped_ranges[i].begin);
        fp_add(st, &x->skipped_ranges[i].end, sizeof x->skipped_ranges[i].end);
    }
}

/*
 * Digest of the ranges the preprocessor skipped in the inclusion of `file` that holds a
 * function starting at `start` (`offset` in the file), once per inclusion and TU: what
 * makes the same body text compile to different code. A file location's raw encoding (the
 * int_data of a CXSourceLocation whose top bit, SourceManager's MacroIDBit, is clear) less
 * its offset is where its inclusion begins in libclang's location space, and the inclusion
 * covers the file's size from there; the TU's skipped ranges (read once, sorted) that begin
 * inside are the inclusion's, in order. clang_getSkippedRanges(tu, file) gave the same for a
 * file's first inclusion, but looked the file up among every inclusion and macro expansion
 * of the TU on each call (1.2% of a haproxy scan's instructions). A function starting in a
 * macro expansion has no such location: its file's ranges are asked that way still.
 */
static XXH128_hash_t skipped_digest(hs_walk *x, CXFile file, CXSourceLocation start, unsigned offset)
{
    hs_inclusion in = {false, 0, 0};
    bool by_inclusion = inclusion_at(x, file, start, offset, &in);
    unsigned first = in.start;
    size_t size = in.size;
    char key[40];
    /* Pointers never have the top bit set in user space; inclusion keys do. */
    hs_hex_key(key, (unsigned long long[]){by_inclusion ? (1ull << 63) | first : (uintptr_t)file}, 1);
    XXH128_hash_t *cached = hs_strmap_get(x->skipped, key);
    if (cached)
        return *cached;
    XXH3_state_t *st = XXH3_createState();
    XXH3_128bits_reset(st);
    if (by_inclusion) {
        hash_skipped_ranges(x, st, first, (unsigned)size);
    } else {
        CXSourceRangeList *ranges = clang_getSkippedRanges(x->tu, file);
        for (unsigned i = 0; ranges && i < ranges->count; i++) {
            unsigned b, e;
            clang_getExpansionLocation(clang_getRangeStart(ranges->ranges[i]), NULL, NULL, NULL, &b);
            clang_getExpansionLocation(clang_getRangeEnd(ranges->ranges[i]), NULL, NULL, NULL, &e);
            fp_add(st, &b, sizeof b);
            fp_add(st, &e, sizeof e);
        }
        if (ranges)
            clang_disposeSourceRangeList(ranges);
    }
    XXH128_hash_t *d = hs_xcalloc(1, sizeof *d);
    *d = XXH3_128bits_digest(st);
    XXH3_freeState(st);
    hs_strmap_put(x->skipped, key, d);
    return *d;
}

/*
 * Whether definition `fn` is a header's: its extent starts and ends in one project file that
 * is not the main file. Where: *file, its extent's start (*start) and end expanded in it
 * (*begin, *end), and the file's real path (*path, the file table's).
 */
static bool header_definition(hs_walk *x, CXCursor fn, CXFile *file, CXSourceLocation *start, unsigned *begin,
                              unsigned *end, const char **path)
{
    CXSourceRange r = clang_getCursorExtent(fn);
    CXFile end_file = NULL;
    *file = NULL;
    *begin = *end = 0;
    *start = clang_getRangeStart(r);
    clang_getExpansionLocation(*start, file, NULL, NULL, begin);
    clang_getExpansionLocation(clang_getRangeEnd(r), &end_file, NULL, NULL, end);
    *path = hs_project_file(x, *file);
    return *file && *file == end_file && (*path)[0] && strcmp(*path, x->main_real) != 0;
}

/* What extract_function does with a function definition's body. */
typedef enum {
    HS_BODY_WALK,    /* walk it: not a header's, or no cache */
    HS_BODY_SKIP,    /* skip it: an earlier TU whose facts were delivered walked it */
    HS_BODY_RECORD,  /* walk it, and record its skip key */
} hs_body_plan;

/*
 * Whether to walk a function body, and its skip key (HS_BODY_RECORD). A header's bodies are
 * skipped when this TU entered the header in the state an earlier TU did (the prefix key,
 * header_prefix.c: no body visited); failing that, when the body's own digest (below)
 * matches one walked before. Earlier TUs are this worker's and, through the key log, other
 * workers' (*learned: the key came only from those). Main file bodies are always walked.
 */
static hs_body_plan body_plan(hs_walk *x, CXCursor fn, const char *usr, int temperature, unsigned char out[16],
                              bool *learned, hs_file_entry **header)
{
    *learned = false;
    *header = NULL;
    if (!x->cache)
        return HS_BODY_WALK;
    CXFile file;
    CXSourceLocation start;
    unsigned b, e;
    const char *path;
    if (!header_definition(x, fn, &file, &start, &b, &e, &path))
        return HS_BODY_WALK;
    hs_file_entry *entry = file_entry(x, file);
    *header = entry;
    bool by_header = false;
    /* With liveness a TU walks only the header bodies its code refers to, so a prefix key
     * would not say that every body of the header was walked: not used. */
    if (entry->prefix > 0 && !x->liveness) {
        by_header = hs_keyset_has(x->cache->headers, entry->prefix_key, sizeof entry->prefix_key);
        if (!by_header && hs_keyset_has(x->cache->learned_headers, entry->prefix_key, sizeof entry->prefix_key))
            by_header = *learned = true;
        if (by_header)
            x->cache->skipped_by_header++;
        if (by_header && !x->cache->check_headers)
            return HS_BODY_SKIP;
        if (!by_header && !entry->prefix_pending) {
            hs_extract_cache *cache = x->cache;
            size_t cap = cache->cap_headers;
            push_key(&cache->pending_headers, &cache->npending_headers, &cache->cap_headers, entry->prefix_key);
            if (cache->cap_headers != cap)
                cache->headers_kept = hs_xrealloc(cache->headers_kept, cache->cap_headers * sizeof *cache->headers_kept);
            entry->prefix_pending_at = cache->npending_headers - 1;
            cache->headers_kept[entry->prefix_pending_at] = false;
            entry->prefix_pending = true;
        }
    }
    fp_sink sink, *st = &sink;
    XXH3_INITSTATE(&st->st);
    XXH3_128bits_reset(&st->st);
    st->len = 0;
    fp_put(st, &x->context, sizeof x->context);
    fp_put(st, usr, strlen(usr) + 1);
    /* Its hot/cold/noreturn attributes, inherited ones too (a TU's earlier prototype can
     * add them): the function entry a skip leaves out must be the walked TU's. */
    fp_put(st, &temperature, sizeof temperature);
    fp_put(st, path, strlen(path) + 1);
    fp_put(st, &b, sizeof b);
    fp_put(st, &e, sizeof e);
    XXH128_hash_t sk = skipped_digest(x, file, start, b);
    fp_put(st, &sk, sizeof sk);
    fp_args args = {st, x->tu, {{false, 0, 0}, {{0, 0, 0}}}, &x->fp_refs, x};
    if (!inclusion_at(x, file, start, b, &args.inclusion.at) || clang_getFileUniqueID(file, &args.inclusion.id) != 0)
        args.inclusion.at.known = false;
    clang_visitChildren(fn, fp_visitor, &args);
    XXH128_hash_t h = fp_sink_digest(st);
    XXH128_canonicalFromHash((XXH128_canonical_t *)out, h);
    bool by_body = hs_keyset_has(x->cache->walked, out, 16);
    bool by_learned_body = !by_body && hs_keyset_has(x->cache->learned_walked, out, 16);
    if (by_header) {
        /* HOTSCAN_BENCH_CHECK_HEADER_SKIP: the body digest must agree, and it is kept so
         * the check holds for later TUs too. */
        if (!by_body && !by_learned_body) {
            x->cache->header_disagreements++;
            push_key(&x->cache->pending, &x->cache->npending, &x->cache->cap, out);
        }
        return HS_BODY_SKIP;
    }
    *learned = by_learned_body;
    return by_body || by_learned_body ? HS_BODY_SKIP : HS_BODY_RECORD;
}

static bool has_basename(const char *arg, const char *base)
{
    const char *slash = strrchr(arg, '/');
    return strcmp(slash ? slash + 1 : arg, base) == 0;
}

/* Digest of what decides a header's preprocessing: the directory and the command line, less
 * the main file's name and the output files (which every TU has its own of). */
static XXH128_hash_t context_digest(const hs_tu_input *in)
{
    XXH3_state_t *st = XXH3_createState();
    XXH3_128bits_reset(st);
    const char *dir = in->directory ? in->directory : "";
    fp_add(st, dir, strlen(dir) + 1);
    const char *slash = strrchr(in->file, '/');
    const char *base = slash ? slash + 1 : in->file;
    static const char *const with_file[] = {"-o", "-MF", "-MT", "-MQ"};
    for (int i = 0; i < in->argc; i++) {
        const char *a = in->argv[i];
        bool skip_next = false, skip = has_basename(a, base);
        for (size_t k = 0; k < sizeof with_file / sizeof with_file[0]; k++) {
            size_t n = strlen(with_file[k]);
            if (strcmp(a, with_file[k]) == 0)
                skip_next = true;
            else if (strncmp(a, with_file[k], n) == 0 && (n == 2 || a[n] == '='))
                skip = true;
        }
        if (skip_next) {
            i++;
            continue;
        }
        if (!skip)
            fp_add(st, a, strlen(a) + 1);
    }
    fp_add(st, &in->default_flags, sizeof in->default_flags);
    XXH128_hash_t h = XXH3_128bits_digest(st);
    XXH3_freeState(st);
    return h;
}

/*
 * After a header body was walked (`walked`: its key is the last pending one) or skipped: when
 * a collector kept what the body gave it in the worker memo (hs_walk_body_in_memo), the keys
 * that would let another worker skip it stay in this one: the body's key, and the prefix key
 * of its header if this TU recorded one, since a worker skipping the header by that key
 * would skip this body too without the memo. Such a worker walks the body itself.
 */
static void keep_keys_in_worker(hs_walk *x, hs_file_entry *header, bool walked)
{
    if (!x->body_in_memo || !x->cache)
        return;
    hs_extract_cache *c = x->cache;
    if (walked && c->npending) {
        push_key(&c->kept, &c->nkept, &c->cap_kept, c->pending[c->npending - 1]);
        c->npending--;
    }
    if (header && header->prefix_pending)
        c->headers_kept[header->prefix_pending_at] = true;
}

void hs_walk_body_in_memo(hs_walk *x)
{
    x->body_in_memo = true;
}

/*
 * Walks definition `c`'s body (fn->usr set): its function entry, then each statement through
 * the collectors' hooks.
 */
static void walk_definition(hs_walk *x, CXCursor c, int temperature, hs_walk_function *fn)
{
    emit_function(x, c, temperature, true);
    fn->name = hs_xstrdup(hs_qualified_name(x, c));
    fn->cursor = c;
    note_body_file(x, c);
    fn->body_end = end_offset(x, c);
    x->fn = fn;
    x->nscopes = 0;
    x->nbranches = 0;
    x->has_sink = false;
    x->error_path = 0;
    x->rare = NULL;
    x->nguards = 0;
    x->condition = x->loop_condition = x->comparison = x->equality = x->masked = 0;
    x->lambda = 0;
    x->stmt_start = x->block_end = 0;
    x->block = clang_getNullCursor();
    hs_body body;
    if (body_list(&body, c))
        current_body = &body;
    hooks_function_start(x);

    hs_cursor_list kids;
    hs_children(c, &kids);
    for (unsigned i = 0; i < kids.len; i++) {
        enum CXCursorKind k = hs_cursor_kind(kids.items[i]);
        /* The body and constructor initializers; parameters and attributes hold no code. */
        if (k == CXCursor_CompoundStmt || k == CXCursor_MemberRef || clang_isExpression(k) ||
            k == CXCursor_CXXTryStmt)
            walk(x, kids.items[i]);
    }
    hs_cursor_list_free(&kids);
    hooks_function_end(x);
    if (current_body) {
        current_body = NULL;
        body_free(&body);
    }
    x->fn = NULL;
}

static bool defer_header_function(hs_walk *x, CXCursor c);

static void extract_function(hs_walk *x, CXCursor c)
{
    if (hs_cursor_kind(c) == CXCursor_CXXMethod && !x->no_indirect)
        record_overrides(x, c);
    int temperature = function_temperature(x, c);
    if (!clang_isCursorDefinition(c)) {
        if (temperature)
            emit_function(x, c, temperature, false);
        return;
    }
    hs_pos pos;
    if (!hs_cursor_pos(x, c, &pos, NULL))
        return;
    if (defer_header_function(x, c))
        return;
    hs_walk_function fn = {0};
    fn.usr = hs_xstrdup(hs_cursor_usr_cached(x, c));
    unsigned char key[16];
    bool learned;
    hs_file_entry *header;
    x->body_in_memo = false;
    hs_body_plan plan = body_plan(x, c, fn.usr, temperature, key, &learned, &header);
    switch (plan) {
    case HS_BODY_SKIP:
        /* Nor its function entry: the TU that walked the body gave the same one (its USR,
         * name, place and attributes are in the key), and the merge keeps one per USR. */
        x->cache->skipped_count++;
        x->cache->skipped_learned += learned;
        hooks_function_skipped(x, fn.usr);
        keep_keys_in_worker(x, header, false);
        json_array_append_new(x->skipped_bodies, json_string(fn.usr));
        free(fn.usr);
        return;
    case HS_BODY_RECORD:
        push_key(&x->cache->pending, &x->cache->npending, &x->cache->cap, key);
        x->cache->walked_count++;
        break;
    case HS_BODY_WALK:
        break;
    }
    walk_definition(x, c, temperature, &fn);
    keep_keys_in_worker(x, header, plan == HS_BODY_RECORD);
    free_function(&fn);
}

/*
 * ---- Liveness: a header's static functions, digested where code refers to them ------
 *
 * A C TU that includes a header with static (inline) functions has a definition of each,
 * and the header skip digests every one of them in every TU to prove it the same as one
 * walked before: on haproxy some 105,000 digests a scan, a quarter of the walk, of which
 * about 94% are of functions the TU never refers to. With liveness, a header's static
 * function is left for after the top level (deferred). Then the deferred ones that code
 * of the TU refers to (the main file's bodies, the initializers of file-scope variables
 * and, in turn, the header bodies so found, walked or digested) go through the header skip
 * as before, into the TU's facts. The others are not digested: a body left out this way
 * whose text key (text_key: the command line, the function, its file and extent and the
 * ranges the preprocessor skipped inside it) this worker has not seen left out before is
 * walked, into a document of its own (`unreferenced` in the TU's facts, docs/facts.md); the
 * rest are skipped as a digested body is (skipped_bodies, function_skipped hooks).
 *
 * The merge takes an unreferenced body's document only for a text key no earlier TU's
 * facts had, in TU order. The first TU (in TU order) that leaves out a body with a given
 * text key always walks it: TUs are handed to workers in TU order, so its worker has seen
 * that key left out in no earlier TU. So which documents reach the model does not depend
 * on how TUs land on workers, and every header function still reaches it at least once:
 * a static helper no TU of this configuration calls is still a use of what it touches
 * (haproxy's pat_ref_giveup(), called only from the Lua build, CASes the generation counter
 * pattern.h's other helper only adds to: without it the counter rule would call it a
 * counter). What changes: a variant of a header function (the same text compiled
 * differently, such as a struct only forward-declared) that only TUs which never call it
 * have, past the first of its text key, is not analyzed.
 *
 * Only C: in C++ an implicit call (a destructor, a conversion) names no function in the AST.
 * Only internal linkage: another TU may call an external function. Only functions whose
 * attributes say nothing of how they are reached: a constructor, `used`, `hot`, `cold`,
 * `noreturn` and any attribute not in the list below keep the function as before.
 */

/*
 * Whether the command compiles its file as C: a `.c` file, no -x naming another language,
 * and a driver that is not a C++ one (g++ and clang++ compile a .c file as C++). libclang
 * cannot say: clang_getCursorLanguage calls a C++ TU's plain functions and typedefs C.
 */
static bool compiled_as_c(const hs_tu_input *in)
{
    if (!has_suffix(in->file, ".c"))
        return false;
    const char *driver = in->argc > 0 ? strrchr(in->argv[0], '/') : NULL;
    driver = driver ? driver + 1 : in->argc > 0 ? in->argv[0] : "";
    if (strstr(driver, "++"))
        return false;
    for (int i = 1; i < in->argc; i++) {
        const char *a = in->argv[i];
        const char *lang = strcmp(a, "-x") == 0 && i + 1 < in->argc ? in->argv[i + 1]
                           : strncmp(a, "-x", 2) == 0 && a[2]        ? a + 2
                           : strncmp(a, "--language=", 11) == 0      ? a + 11
                                                                     : NULL;
        if (lang && strcmp(lang, "c") != 0)
            return false;
    }
    return true;
}

/* Attributes that do not make a function reachable, or change its facts. */
static bool attribute_is_plain(const char *name)
{
    static const char *const plain[] = {
        "always_inline", "noinline",    "unused", "maybe_unused", "pure",    "const",
        "nonnull",       "format",      "malloc", "warn_unused_result", "returns_nonnull",
        "nothrow",       "leaf",        "flatten", "artificial", "gnu_inline", "inline",
    };
    size_t n = strlen(name);
    /* __always_inline__ is always_inline. */
    if (n > 4 && strncmp(name, "__", 2) == 0 && strcmp(name + n - 2, "__") == 0) {
        name += 2;
        n -= 4;
    }
    for (size_t k = 0; k < sizeof plain / sizeof plain[0]; k++)
        if (strlen(plain[k]) == n && strncmp(name, plain[k], n) == 0)
            return true;
    return false;
}

static enum CXChildVisitResult plain_attr_visitor(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    void **args = data;
    if (!clang_isAttribute(hs_cursor_kind(c)))
        return CXChildVisit_Continue;
    char *name = attribute_name(args[0], c);
    bool plain = name && attribute_is_plain(name);
    free(name);
    if (plain)
        return CXChildVisit_Continue;
    *(bool *)args[1] = false;
    return CXChildVisit_Break;
}

/* Liveness: `ref` (what a name refers to) is a function code of this TU refers to. */
static void mark_live(hs_walk *x, CXCursor ref)
{
    if (!x->liveness || hs_cursor_kind(ref) != CXCursor_FunctionDecl)
        return;
    hs_ptrmap_put(x->live, clang_getCanonicalCursor(ref).data[0], 0, (void *)1);
}

static enum CXChildVisitResult mark_live_visitor(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    if (hs_cursor_kind(c) == CXCursor_DeclRefExpr)
        mark_live(data, clang_getCursorReferenced(c));
    return CXChildVisit_Recurse;
}

/* Whether definition `c` is a header's static function, left for process_deferred. */
static bool defer_header_function(hs_walk *x, CXCursor c)
{
    if (!x->liveness || x->in_deferred || clang_getCursorLinkage(c) != CXLinkage_Internal)
        return false;
    CXFile file;
    CXSourceLocation start;
    unsigned begin, end;
    const char *path;
    if (!header_definition(x, c, &file, &start, &begin, &end, &path))
        return false;
    if (clang_Cursor_hasAttrs(c)) {
        bool plain = true;
        void *args[2] = {x, &plain};
        clang_visitChildren(c, plain_attr_visitor, args);
        if (!plain)
            return false;
    }
    if (x->ndeferred == x->cap_deferred) {
        x->cap_deferred = x->cap_deferred ? 2 * x->cap_deferred : 256;
        x->deferred = hs_xrealloc(x->deferred, x->cap_deferred * sizeof *x->deferred);
    }
    x->deferred[x->ndeferred++] =
        (hs_deferred){c, clang_getCanonicalCursor(c).data[0], start, begin, end, path, false};
    return true;
}

/*
 * A left-out body's text key: the command line, its USR and attributes, file and extent, and
 * the ranges the preprocessor skipped inside it (an #if arm the TU did not take). What a
 * compiled body is made of besides (the macros and declarations its names find) is the body
 * digest's, which this saves. The skipped ranges are the TU's (read once, sorted by their
 * raw location) whose start lies in the body's extent: a body whose start is a file location
 * (no macro) has consecutive raw locations from there, so no file is looked up. One that
 * starts in a macro expansion puts none in.
 */
static void text_key(hs_walk *x, const hs_deferred *d, const char *usr, unsigned char out[16])
{
    CXSourceLocation start = d->start;
    unsigned b = d->begin, e = d->end;
    const char *path = d->path;
    int temperature = function_temperature(x, d->fn);
    XXH3_state_t st;
    XXH3_INITSTATE(&st);
    XXH3_128bits_reset(&st);
    XXH3_128bits_update(&st, &x->context, sizeof x->context);
    XXH3_128bits_update(&st, usr, strlen(usr) + 1);
    XXH3_128bits_update(&st, &temperature, sizeof temperature);
    XXH3_128bits_update(&st, path, strlen(path) + 1);
    XXH3_128bits_update(&st, &b, sizeof b);
    XXH3_128bits_update(&st, &e, sizeof e);
    if (!(start.int_data & HS_MACRO_LOCATION_BIT) && e >= b)
        hash_skipped_ranges(x, &st, start.int_data, e - b);
    XXH128_canonicalFromHash((XXH128_canonical_t *)out, XXH3_128bits_digest(&st));
}

/*
 * Walks left-out definition `c` into a facts document of its own: the walk's lists and each
 * collector's state (tu_start .. tu_end) are its own for the walk, so nothing of it reaches
 * the TU's document. What a collector keeps in its worker memo does, as from any walk.
 */
static json_t *walk_unreferenced(hs_walk *x, CXCursor c, const char *usr)
{
    json_t *functions = x->functions, *calls = x->calls, *fn_stores = x->fn_stores, *overrides = x->overrides;
    hs_strmap *fact_sites = x->fact_sites, *stores_seen = x->stores_seen;
    void **states = x->states;
    x->functions = json_array();
    x->calls = json_array();
    x->fn_stores = json_array();
    x->overrides = json_array();
    x->fact_sites = hs_strmap_create();
    x->stores_seen = hs_strmap_create();
    x->states = collectors_start(x);
    hs_walk_function fn = {0};
    fn.usr = hs_xstrdup(usr);
    walk_definition(x, c, function_temperature(x, c), &fn);
    free_function(&fn);
    json_t *doc = json_object();
    json_object_set_new_nocheck(doc, "functions", x->functions);
    json_object_set_new_nocheck(doc, "calls", x->calls);
    json_object_set_new_nocheck(doc, "fn_stores", x->fn_stores);
    json_object_set_new_nocheck(doc, "overrides", x->overrides);
    collectors_end(x, x->states, doc);
    hs_strmap_delete(x->fact_sites);
    hs_strmap_delete(x->stores_seen);
    x->functions = functions;
    x->calls = calls;
    x->fn_stores = fn_stores;
    x->overrides = overrides;
    x->fact_sites = fact_sites;
    x->stores_seen = stores_seen;
    x->states = states;
    return doc;
}

/*
 * After the top level: the deferred functions code refers to go through extract_function
 * (the header skip), which may find more referred to, until none is left; then the rest.
 */
static void process_deferred(hs_walk *x)
{
    x->in_deferred = true;
    for (bool more = true; more;) {
        more = false;
        for (size_t i = 0; i < x->ndeferred; i++) {
            hs_deferred *d = &x->deferred[i];
            if (d->done || !hs_ptrmap_get(x->live, d->canonical, 0))
                continue;
            d->done = more = true;
            extract_function(x, d->fn);
        }
    }
    for (size_t i = 0; i < x->ndeferred; i++) {
        hs_deferred *d = &x->deferred[i];
        if (d->done)
            continue;
        const char *usr = hs_cursor_usr_cached(x, d->fn);
        unsigned char key[16];
        text_key(x, d, usr, key);
        /* Not the same text twice in one TU: another function has another USR. Until the
         * TU's facts are delivered its keys wait (a TU lost would take its documents). */
        if (!hs_keyset_has(x->cache->unreferenced_walked, key, sizeof key)) {
            hs_extract_cache *cache = x->cache;
            push_key(&cache->pending_unreferenced, &cache->npending_unreferenced, &cache->cap_unreferenced, key);
            char hex[33];
            for (int k = 0; k < 16; k++)
                snprintf(hex + 2 * k, 3, "%02x", key[k]);
            json_t *entry = json_object();
            json_object_set_new_nocheck(entry, "usr", json_string(usr));
            json_object_set_new_nocheck(entry, "key", json_string(hex));
            json_object_set_new_nocheck(entry, "facts", walk_unreferenced(x, d->fn, usr));
            json_array_append_new(x->unreferenced, entry);
            x->cache->unreferenced_walks++;
        }
        x->cache->skipped_count++;
        x->cache->skipped_unreferenced++;
        x->body_in_memo = false;
        hooks_function_skipped(x, usr);
        json_array_append_new(x->skipped_bodies, json_string(usr));
    }
    x->in_deferred = false;
}

static enum CXChildVisitResult top_visitor(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    hs_walk *x = data;
    enum CXCursorKind k = hs_cursor_kind(c);
    bool scope = k == CXCursor_Namespace || k == CXCursor_ClassDecl || k == CXCursor_StructDecl ||
                 k == CXCursor_UnionDecl || k == CXCursor_ClassTemplate || k == CXCursor_LinkageSpec ||
                 k == CXCursor_ClassTemplatePartialSpecialization || k == CXCursor_UnexposedDecl;
    /* The kinds below are all the walk looks at: the others (the preprocessing record's
     * macro expansions and inclusions, typedefs, enums) are passed without asking where. */
    if (!scope && !is_function_kind(k) && k != CXCursor_VarDecl && k != CXCursor_FieldDecl)
        return CXChildVisit_Continue;
    CXSourceLocation loc = clang_getCursorLocation(c);
    if (!hs_location_is_project(x, loc))
        return CXChildVisit_Continue;
    if (is_function_kind(k)) {
        extract_function(x, c);
        return CXChildVisit_Continue;
    }
    if (scope)
        return CXChildVisit_Recurse;
    /* Declarations outside functions: globals and fields (the atomic and event collectors'). */
    if (k == CXCursor_VarDecl || k == CXCursor_FieldDecl) {
        hooks_declaration(x, c);
        hs_cursor_list kids;
        hs_children(c, &kids);
        record_decl_stores(x, c, &kids);
        hs_cursor_list_free(&kids);
        if (x->liveness) /* a function named in an initializer is referred to */
            clang_visitChildren(c, mark_live_visitor, x);
    }
    return CXChildVisit_Continue;
}

/*
 * The first few errors, so a person can see why a TU's findings may be incomplete.
 * "unknown argument" errors come from gcc-only options in the compile database: they
 * do not change the AST, so they are listed apart (`ignored_arguments`), not as errors.
 */
static json_t *parse_errors(CXTranslationUnit tu, json_t *ignored_arguments)
{
    json_t *errors = json_array();
    unsigned n = clang_getNumDiagnostics(tu);
    for (unsigned i = 0; i < n && json_array_size(errors) < 5; i++) {
        CXDiagnostic d = clang_getDiagnostic(tu, i);
        char *name = NULL;
        if (hs_diagnostic_unknown_argument(d, &name) && name) {
            json_array_append_new(ignored_arguments, json_string(name));
        } else if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error) {
            CXString s = clang_formatDiagnostic(d, CXDiagnostic_DisplaySourceLocation | CXDiagnostic_DisplayColumn);
            json_array_append_new(errors, json_string(clang_getCString(s)));
            clang_disposeString(s);
        }
        free(name);
        clang_disposeDiagnostic(d);
    }
    return errors;
}

/* Errors that are not about unknown driver options: what a fix-it must not add to. */
static unsigned count_errors(CXTranslationUnit tu)
{
    unsigned n = clang_getNumDiagnostics(tu), errors = 0;
    for (unsigned i = 0; i < n; i++) {
        CXDiagnostic d = clang_getDiagnostic(tu, i);
        errors += clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error && !hs_diagnostic_unknown_argument(d, NULL);
        clang_disposeDiagnostic(d);
    }
    return errors;
}

/* libclang's failure codes as hotscan's, with the message a person reads. */
static hs_extract_error parse_error_of(enum CXErrorCode code, const char **message)
{
    switch (code) {
    case CXError_Crashed:
        *message = "libclang crashed while parsing";
        return HS_EXTRACT_CRASHED;
    case CXError_InvalidArguments:
        *message = "libclang rejected the command line";
        return HS_EXTRACT_REJECTED;
    case CXError_ASTReadError:
        *message = "libclang could not read the AST";
        return HS_EXTRACT_AST_UNREADABLE;
    default:
        *message = "libclang could not parse the file";
        return HS_EXTRACT_FAILED;
    }
}

static void set_code(hs_extract_error *code, hs_extract_error value)
{
    if (code)
        *code = value;
}

/* A directory a command can run in: it exists, is a directory and may be searched. */
static bool usable_directory(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) != 0)
        return false;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return false;
    }
    return access(dir, X_OK) == 0;
}

/*
 * A TU libclang gave up on leaves no diagnostics to ask for; parsed again by an index that
 * prints them, with standard error sent to a temporary file, its error lines are clang's own
 * account ("fatal error: file 'x.pch' is not a valid precompiled PCH file"). NULL when there
 * is none. (Runs in a worker process, whose standard error nothing else writes meanwhile.)
 */
static char *clang_says_why(const char *const *argv, int argc, struct CXUnsavedFile *unsaved, unsigned n_unsaved,
                            unsigned options)
{
    FILE *capture = tmpfile();
    if (!capture)
        return NULL;
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    if (saved < 0 || dup2(fileno(capture), STDERR_FILENO) < 0) {
        if (saved >= 0)
            close(saved);
        fclose(capture);
        return NULL;
    }
    CXIndex loud = clang_createIndex(0, 1);
    CXTranslationUnit tu = NULL;
    clang_parseTranslationUnit2FullArgv(loud, NULL, argv, argc, unsaved, n_unsaved, options, &tu);
    if (tu)
        clang_disposeTranslationUnit(tu);
    clang_disposeIndex(loud);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    hs_buf why;
    hs_buf_init(&why);
    char line[1024];
    rewind(capture);
    while (why.len < 600 && fgets(line, sizeof line, capture)) {
        line[strcspn(line, "\n")] = '\0';
        if (!strstr(line, "error: "))
            continue;
        hs_buf_printf(&why, "%s%s", why.len ? "; " : "", line);
    }
    fclose(capture);
    if (!why.len) {
        hs_buf_free(&why);
        return NULL;
    }
    return hs_buf_take(&why);
}

/*
 * `detailed`: keep the preprocessing record, for the skipped ranges (inactive.c).
 * `filter` (or NULL): leave out the options libclang does not know (arg_filter.c); the
 * unknown arguments left out are appended to `ignored`, as parse_errors lists those the
 * driver reports.
 */
static CXTranslationUnit parse_tu(CXIndex index, const hs_tu_input *in, struct CXUnsavedFile *unsaved,
                                  unsigned n_unsaved, bool detailed, hs_arg_filter *filter, json_t *ignored,
                                  hs_extract_error *code, char **err)
{
    /*
     * The command runs in its database entry's directory: relative file names and -I
     * paths are relative to it. clang is told so (-working-directory) instead of the
     * process changing its own directory, which would move the caller's relative paths
     * and make each TU depend on the one parsed before it.
     */
    const char *dir = in->directory && in->directory[0] ? in->directory : NULL;
    if (dir && !usable_directory(dir)) {
        *err = hs_printf("cannot enter the build directory %s: %s", dir, strerror(errno));
        set_code(code, HS_EXTRACT_BAD_DIRECTORY);
        return NULL;
    }
    /* hotscan's own flags after the command's (parse_options.h says why each). */
    const char *extra[] = {HS_PARSE_EXTRA_ARGS};
    int nextra = (int)(sizeof extra / sizeof extra[0]);
    const char *gcc[] = {HS_PARSE_GCC_ARGS};
    int ngcc = in->argc > 0 && hs_compiler_is_gcc(in->argv[0]) ? (int)(sizeof gcc / sizeof gcc[0]) : 0;
    const char **argv = hs_xcalloc((size_t)(in->argc + nextra + ngcc + 3), sizeof(char *));
    int argc = 0;
    hs_arg_verdict *verdicts = NULL;
    if (filter && in->argc > 0) {
        verdicts = hs_xcalloc((size_t)in->argc, sizeof *verdicts);
        hs_arg_filter_classify(filter, index, in->argv, in->argc, verdicts);
    }
    for (int i = 0; i < in->argc; i++) {
        if (verdicts && verdicts[i] != HS_ARG_KEEP) {
            if (verdicts[i] == HS_ARG_UNKNOWN_OPTION && ignored)
                json_array_append_new(ignored, json_string(in->argv[i]));
            continue;
        }
        argv[argc++] = in->argv[i];
        /* Right after the compiler's name: a -working-directory of the command's own,
         * later on its line, still wins. */
        if (i == 0 && dir) {
            argv[argc++] = "-working-directory";
            argv[argc++] = dir;
        }
    }
    free(verdicts);
    /* Extra flags go before the source file is fine for the driver: it accepts any order. */
    for (int i = 0; i < nextra; i++)
        argv[argc++] = extra[i];
    for (int i = 0; i < ngcc; i++)
        argv[argc++] = gcc[i];
    CXTranslationUnit tu = NULL;
    unsigned options = HS_PARSE_OPTIONS;
    if (!detailed)
        options &= ~(unsigned)CXTranslationUnit_DetailedPreprocessingRecord;
    enum CXErrorCode status =
        clang_parseTranslationUnit2FullArgv(index, NULL, argv, argc, unsaved, n_unsaved, options, &tu);
    if (status != CXError_Success || !tu) {
        const char *message;
        set_code(code, parse_error_of(status == CXError_Success ? CXError_Failure : status, &message));
        char *why = status == CXError_Crashed ? NULL : clang_says_why(argv, argc, unsaved, n_unsaved, options);
        *err = why ? hs_printf("%s: %s", message, why) : hs_xstrdup(message);
        free(why);
        free(argv);
        return NULL;
    }
    free(argv);
    set_code(code, HS_EXTRACT_OK);
    return tu;
}

static void add_input(CXFile included, CXSourceLocation *stack, unsigned depth, CXClientData data);

int hs_count_errors_with(CXIndex index, const hs_tu_input *in, hs_arg_filter *args,
                         struct CXUnsavedFile *unsaved, unsigned n_unsaved, char **first_error, json_t *inputs,
                         hs_extract_error *code, char **err)
{
    CXTranslationUnit tu = parse_tu(index, in, unsaved, n_unsaved, false, args, NULL, code, err);
    if (!tu)
        return -1;
    int n = (int)count_errors(tu);
    json_t *ignored = json_array();
    json_t *errors = parse_errors(tu, ignored);
    if (json_array_size(errors) > 0)
        *first_error = hs_xstrdup(json_string_value(json_array_get(errors, 0)));
    json_decref(errors);
    json_decref(ignored);
    if (inputs)
        clang_getInclusions(tu, add_input, inputs);
    clang_disposeTranslationUnit(tu);
    return n;
}

/* Every file the parse read (the main file and each inclusion, system headers too), as real
 * paths: what the facts cache checks before it trusts an entry (facts_cache.c). */
static void add_input(CXFile included, CXSourceLocation *stack, unsigned depth, CXClientData data)
{
    (void)stack;
    (void)depth;
    json_t *inputs = data;
    CXString name = clang_File_tryGetRealPathName(included);
    const char *n = clang_getCString(name);
    if (!n || !n[0]) {
        clang_disposeString(name);
        name = clang_getFileName(included);
        n = clang_getCString(name);
    }
    if (n && n[0])
        json_array_append_new(inputs, json_string(n));
    clang_disposeString(name);
}

/* hs_header_prefix_keys' callback: the state each file was entered in. */
static void note_prefix_key(CXFile file, const unsigned char *key, void *user)
{
    hs_file_entry *e = file_entry(user, file);
    e->prefix = key != NULL;
    if (key)
        memcpy(e->prefix_key, key, sizeof e->prefix_key);
}

json_t *hs_extract_tu(CXIndex index, const hs_tu_input *in, const hs_ruledata *rd,
                      const char *root, hs_extract_error *code, char **err)
{
    return hs_extract_tu_cached(index, in, rd, root, NULL, NULL, code, err);
}

json_t *hs_extract_tu_cached(CXIndex index, const hs_tu_input *in, const hs_ruledata *rd,
                             const char *root, hs_extract_cache *cache, hs_arg_filter *args,
                             hs_extract_error *code, char **err)
{
    hs_extract_cache_discard(cache);
    json_t *ignored = json_array();
    CXTranslationUnit tu = parse_tu(index, in, NULL, 0, true, args, ignored, code, err);
    if (!tu) {
        json_decref(ignored);
        return NULL;
    }
    hs_walk x = {0};
    x.block = clang_getNullCursor();
    char *main_real = NULL;
    unsigned errors = count_errors(tu);
    if (cache && errors == 0) {
        main_real = hs_realpath(in->file);
        if (main_real) {
            x.cache = cache;
            x.main_real = main_real;
            x.context = context_digest(in);
            x.skipped = hs_strmap_create();
        }
    }
    x.tu = tu;
    x.liveness = x.cache && compiled_as_c(in) && !getenv("HOTSCAN_BENCH_NO_LIVENESS");
    x.live = hs_ptrmap_create();
    x.unreferenced = json_array();
    x.worker_cache = cache;
    x.real_paths = cache ? cache->real_paths : NULL;
    if (x.cache) {
        char *main_dir = hs_xstrdup(main_real);
        char *slash = strrchr(main_dir, '/');
        if (slash)
            slash[slash == main_dir ? 1 : 0] = '\0';
        hs_header_prefix_keys(tu, &x.context, sizeof x.context, main_dir, note_prefix_key, &x);
        free(main_dir);
    }
    x.rd = rd;
    x.root = root;
    x.tu_file = in->file;
    x.directory = in->directory && in->directory[0] ? in->directory : NULL;
    x.qualnames = hs_ptrmap_create();
    x.key_strings = hs_strmap_create();
    x.node_keys = hs_ptrmap_create();
    x.usrs = hs_ptrmap_create();
    x.temperatures = hs_ptrmap_create();
    x.fact_sites = hs_strmap_create();
    x.functions = json_array();
    x.calls = json_array();
    x.fn_stores = json_array();
    x.skipped_bodies = json_array();
    x.no_indirect = getenv("HOTSCAN_BENCH_NO_INDIRECT") != NULL;
    x.check_text = getenv("HOTSCAN_BENCH_CHECK_TEXT") != NULL;
    x.overrides = json_array();
    x.stores_seen = hs_strmap_create();
    json_t *facts = json_object();
    json_object_set_new_nocheck(facts, "facts_version", json_integer(HS_FACTS_VERSION));
    json_object_set_new_nocheck(facts, "tu", json_string(in->file));
    json_object_set_new_nocheck(facts, "default_flags", json_boolean(in->default_flags));
    x.collectors = hs_collectors_all(&x.ncollectors);
    x.states = collectors_start(&x);
    clang_visitChildren(clang_getTranslationUnitCursor(tu), top_visitor, &x);
    if (x.ndeferred)
        process_deferred(&x);
    json_object_set_new_nocheck(facts, "functions", x.functions);
    json_object_set_new_nocheck(facts, "calls", x.calls);
    json_object_set_new_nocheck(facts, "fn_stores", x.fn_stores);
    if (json_array_size(x.skipped_bodies))
        json_object_set_new_nocheck(facts, "skipped_bodies", x.skipped_bodies);
    else
        json_decref(x.skipped_bodies);
    if (json_array_size(x.unreferenced))
        json_object_set_new_nocheck(facts, "unreferenced", x.unreferenced);
    else
        json_decref(x.unreferenced);
    json_object_set_new_nocheck(facts, "overrides", x.overrides);
    /* Each family's lists, in table order: clock_reads, atomics, events, event_objects. */
    collectors_end(&x, x.states, facts);
    delete_memos(x.tu_memos, x.collectors, x.ncollectors);
    if (x.check_text)
        fprintf(stderr, "hotscan: text check: %s: %u texts, %u differ\n", in->file, x.texts_checked, x.texts_differ);
    json_object_set_new_nocheck(facts, "parse_errors", parse_errors(tu, ignored));
    json_object_set_new_nocheck(facts, "error_count", json_integer(errors));
    json_object_set_new_nocheck(facts, "ignored_arguments", ignored);
    if (in->argc > 0 && hs_compiler_is_gcc(in->argv[0]))
        json_object_set_new_nocheck(facts, "gcc_lenient", json_true());
    json_t *inputs = json_array();
    clang_getInclusions(tu, add_input, inputs);
    json_object_set_new_nocheck(facts, "inputs", inputs);
    const char *key;
    void *value;
    file_table_free(&x.files);
    free(x.fp_refs.slots);
    for (size_t it = 0; hs_ptrmap_next(x.qualnames, &it, &value);)
        free(value);
    hs_ptrmap_delete(x.qualnames);
    hs_strmap_delete(x.key_strings);
    hs_ptrmap_delete(x.node_keys);
    for (size_t it = 0; hs_ptrmap_next(x.usrs, &it, &value);)
        free(value);
    hs_ptrmap_delete(x.usrs);
    hs_ptrmap_delete(x.temperatures);
    hs_ptrmap_delete(x.live);
    free(x.deferred);
    hs_strmap_delete(x.fact_sites);
    hs_strmap_delete(x.stores_seen);
    hs_inactive_code_delete(x.inactive);
    if (x.skipped) {
        for (size_t it = 0; hs_strmap_next(x.skipped, &it, &key, &value);)
            free(value);
        hs_strmap_delete(x.skipped);
    }
    free(x.skipped_ranges);
    free(main_real);
    clang_disposeTranslationUnit(tu);
    return facts;
}
