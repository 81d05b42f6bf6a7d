/*
 * atomic_facts.h - the atomics family's facts: one hs_atomic_op per operation on an atomic
 * variable, and one per integer variable summarizing its plain (non-atomic) uses over the
 * whole program, as the collector (collect_atomics.c) saw them and the merge kept them: each
 * operation once per place, each TU's plain summary of a variable folded into that one.
 *
 * Read from the TU's "atomics" JSON member by atomic_facts.c, the only code that knows
 * those keys (docs/facts.md). Strings are interned in the program model; a
 * string the collector left out (or could not write, such as source text that is not
 * UTF-8) is NULL unless its comment says otherwise.
 */
#ifndef HOTSCAN_ATOMIC_FACTS_H
#define HOTSCAN_ATOMIC_FACTS_H

#include <stdbool.h>
#include <stddef.h>

#include "hotscan/facts.h"
#include "hotscan/program.h"

/* The operation ("op"), normalized by the collector. */
typedef enum {
    HS_AOP_UNLISTED,   /* none of these: a wrapper's own "op" from rule data, or none (op_name) */
    HS_AOP_FETCH_ADD,  /* x.fetch_add(n), x++: returns the old value */
    HS_AOP_ADD_FETCH,  /* ++x, x += n, __atomic_add_fetch: returns the new value */
    HS_AOP_FETCH_SUB,
    HS_AOP_SUB_FETCH,
    HS_AOP_LOAD,
    HS_AOP_STORE,
    HS_AOP_EXCHANGE,
    HS_AOP_CAS,        /* compare-and-swap */
    HS_AOP_BITWISE,    /* and/or/xor/nand */
    HS_AOP_WAIT,       /* wait or notify */
    HS_AOP_OTHER,      /* an operation the collector does not model */
    HS_AOP_ESCAPE,     /* the address or a reference goes where hotscan does not follow */
    HS_AOP_PLAIN,      /* a TU's summary of plain uses: see `plain` */
    HS_AOP_INACTIVE,   /* not an operation: the name appears in code a TU's configuration
                          compiles out (site: the first such place in that TU) */
    HS_AOP_RETURNS,    /* not an operation: `function` returns the variable's value (an
                          accessor: `bool pending_io() const { return n_pending_ios; }`), so a
                          call of it in a condition in any TU is a load of the variable there */
} hs_atomic_opkind;

/* The memory order ("order"). */
typedef enum {
    HS_AORDER_UNLISTED,  /* none of these (a wrapper's order from rule data), or none */
    HS_AORDER_RELAXED,
    HS_AORDER_CONSUME,
    HS_AORDER_ACQUIRE,
    HS_AORDER_RELEASE,
    HS_AORDER_ACQ_REL,
    HS_AORDER_SEQ_CST,
    HS_AORDER_UNKNOWN,   /* "unknown": an order argument the collector could not decode */
    HS_AORDER_NA,        /* "n/a": escapes and plain summaries */
} hs_atomic_order;

/* How the operation's result is used ("use"). */
typedef enum {
    HS_AUSE_NONE,            /* not recorded (plain summaries) */
    HS_AUSE_DISCARDED,       /* a statement of its own */
    HS_AUSE_VALUE,           /* used as a value */
    HS_AUSE_RETURNED,
    HS_AUSE_CONDITION,       /* decides an if, ?:, comparison, or a name later tested */
    HS_AUSE_LOOP_CONDITION,  /* decides a loop condition */
    HS_AUSE_VERSION_CHECK,   /* a load compared for equality or masked in a test */
} hs_atomic_use;

/* How the operation is written ("form"). */
typedef enum {
    HS_AFORM_NONE,          /* not recorded (plain summaries) */
    HS_AFORM_MEMBER,        /* x.fetch_add(n, order) on std::atomic */
    HS_AFORM_OPERATOR,      /* ++x, x += n, x = v, operator T on std::atomic */
    HS_AFORM_C11,           /* atomic_fetch_add(&x, n) and the _explicit forms */
    HS_AFORM_C11_OPERATOR,  /* ++x, x += n, x = v, plain reads of an _Atomic object */
    HS_AFORM_GNU,           /* __atomic_* builtins */
    HS_AFORM_SYNC,          /* __sync_* builtins */
    HS_AFORM_WRAPPER,       /* a wrapper listed in rule data */
    HS_AFORM_ESCAPE,        /* an escape, not an operation */
    HS_AFORM_ACCESSOR,      /* a call, in a condition, to a function that returns the variable's
                               value (`while (space->pending_io())`): a load, never reported */
} hs_atomic_form;

/* One kind of plain use in the program's summary of a variable. */
typedef struct {
    long long count;  /* how many, summed over the TUs' summaries; 0 when none */
    hs_place first;   /* the first one in the first TU that has one (file NULL when none) */
} hs_plain_uses;

/* One plain update of a variable (`x++;`, `s->n += k;`), where it is ("updates_sites"). */
typedef struct {
    hs_site site;
    const char *function_name;  /* the function it is in ("" for none) */
    const char *text;           /* the update as written ("" when it could not be kept) */
    bool beside;                /* in one arm of a branch whose other arm updates the variable
                                   atomically (`if (shared) atomic_add(&x); else x++;`) */
} hs_plain_update;

/* The plain (non-atomic) uses of an integer global or field ("plain"), every TU's summary
 * added up: a header's use counts once per TU that includes it. */
typedef struct {
    hs_plain_uses reads;                 /* read as a value */
    hs_plain_uses loads_condition;       /* read in an if, ?: or comparison */
    hs_plain_uses loads_limit;           /* of those, compared (< > <= >=) with a value other than
                                            -1, 0, 1: a gauge held to a limit */
    hs_plain_uses loads_bounds_index;    /* of loads_limit, compared with a local or parameter
                                            that the function also indexes an array with
                                            (`if (key > count) return NULL; return &a[key - 1];`) */
    hs_plain_uses loads_loop_condition;  /* read in a loop condition */
    hs_plain_uses writes_constant;       /* assigned a constant */
    hs_plain_uses writes_computed;       /* assigned a computed value, or ++/-- whose value is used,
                                            or of a local copy's field */
    hs_plain_uses updates;               /* ++, --, += or -= as a statement of its own, on a shared
                                            object (a global's, or a field through a pointer) */
    hs_plain_uses decrements;            /* of those, -- and -= */
    hs_plain_update *update_sites;       /* where the updates are: each TU's first few, each place
                                            once (owned by the store) */
    size_t update_sites_len;
    hs_plain_uses address_taken;         /* its address is taken */
} hs_atomic_plain;

/* A piece of source a fix-it rewrites ("span", "spelled"). */
typedef struct {
    const char *file;         /* "spelled" only: the file holding the macro definition */
    unsigned offset, length;  /* bytes in that file (for "span": in site.file) */
    const char *text;         /* the source as written */
} hs_atomic_text;

/* Members ordered by size, not by meaning (a synthetic tree keeps about ten a TU): 288
 * bytes, not 336. */
typedef struct hs_atomic_op {
    hs_site site;               /* the operation; a plain summary: file = the first TU's main file, offset 0, no line */
    hs_place var_decl;          /* the variable's declaration, or its path's root's (file NULL when
                                   outside project code) */
    hs_atomic_text span;        /* has_span: the operation as written (file unused: site.file) */
    hs_atomic_text spelled;     /* has_spelled: the call as the macro's definition spells it */

    const char *text;           /* the operation as written */
    const char *var;            /* the variable's USR: the identity across TUs ("" when none) */
    const char *var_name;       /* its qualified name */
    const char *var_field;      /* an object path's (`g.m_u32`): the atomic field's own USR, which
                                   accesses through pointers (`p->m_u32`) use as `var`; else NULL */
    const char *op_name;        /* the operation as the facts name it ("fetch_add", a wrapper's own) */
    const char *api;            /* the name as written: fetch_add, operator++, atomic_fetch_add, "&" */
    const char *value_text;     /* the stored or added value's text (NULL: none written, as in ++x) */
    const char *object_text;    /* the atomic object expression's text (member, operator forms) */
    const char *sink;           /* name key of what receives the result */
    const char *function;       /* USR of the enclosing function ("" for a global's initializer) */
    const char *function_name;  /* its qualified name */
    const char *macro_name;     /* the project macro it is written in */
    const char *accessor_of;    /* a call in a condition whose callee (this USR) no accessor of
                                   the TU's own was known for: the rule resolves it against every
                                   TU's HS_AOP_RETURNS facts; the op has no variable ("") */
    const char *dependent_member; /* a load in a condition of a member of a dependent type in a
                                   template (`t->refs_`, `T *t`): the member's name; the rule
                                   applies it to every atomic field of that name; no variable */
    const char *callee;         /* an escape into a project function: its USR ("callee"), else NULL */
    const struct hs_atomic_op *via; /* the rule's own: an operation a wrapper does on the object
                                       this call passes (the call's escape), else NULL */
    hs_atomic_plain *plain;     /* op == HS_AOP_PLAIN: the summary (owned by the store); NULL otherwise */

    long long ordinal;          /* keeps two operations at one place (one macro expansion) apart */
    size_t tu_index;            /* the TU that saw it first: where its fix is verified */
    long long value;            /* has_value: the stored integer constant */

    hs_atomic_opkind op;        /* the operation */
    hs_atomic_order order;      /* the memory order */
    hs_atomic_form form;        /* how it is written */
    hs_atomic_use use;          /* how its result is used */
    unsigned order_offset, order_length; /* has_order_arg: where the order argument is written */
    int arg;                    /* callee: the argument the object is passed as ("arg") */

    bool macro;                 /* written through a macro */
    bool var_visible;           /* the variable is declared in project code */
    bool limit_test;            /* use == CONDITION or LOOP_CONDITION, as an operand of < > <= >=
                                   against a value other than -1, 0, 1 (`if (used < max)`) */
    bool bounds_index;          /* a limit_test load whose other operand, a local or parameter,
                                   also indexes an array in the function ("bounds_index") */
    bool alias_pair;            /* made through a local pointer to one of two atomics
                                   (`p = c ? &X : &Y`): the same operation is also Y's
                                   ("alias_targets": 2) */
    bool dead_store;            /* use == VALUE, stored into a local nothing else in the function
                                   names: the result is in effect discarded ("dead_store") */
    bool through_sink;          /* the use is a condition's through a local the result went to
                                   (`limit = n.load(); while (i < limit)`) */
    bool value_constant;        /* a store of a constant (false for anything else) */
    bool value_parameter;       /* a store of an integer parameter of the enclosing function, as
                                   given: a setter's new total ("value_parameter") */
    bool has_value;             /* a store of an integer constant: `value` is it */
    bool value_narrow;          /* the atomic's value type is narrower than int ("value_narrow") */
    bool through_pointer;       /* `var` is a field or global holding a pointer to the atomic
                                   (`*c += 1`): the operation is on what it points to ("through_pointer") */
    bool has_operand;           /* the operation has a value operand (x += n, fetch_add(n)),
                                   whether or not its text could be recorded */
    bool has_span;              /* the code as written could be read: `span` */
    bool has_spelled;           /* written in a project macro whose definition can be read: `spelled` */
    bool has_order_arg;         /* the order is a written argument: order_offset, order_length */
    /* An add, subtract or store written as an operator (++x, x -= n, x = 0): what its
     * rewrite as a call keeps (collect_atomics.c, note_rewrite_shape). */
    bool whole_statement;       /* discarded in every configuration: a statement of its own, not
                                   in a macro, no preprocessor directive beside it ("whole_statement") */
    bool operand_integer;       /* its operand is an integer ("operand_integer") */
    bool sum_keeps_type;        /* `old + n` has the operator's own type ("sum_keeps_type") */
    bool operand_repeatable;    /* its operand may be evaluated twice ("operand_repeatable") */
} hs_atomic_op;

/* Every atomic-operation fact of the program, each once, in merge order; a variable's plain
 * summary sits where the first TU that used it plainly put it. */
typedef struct {
    hs_atomic_op *ops;
    size_t len, cap;
    hs_strmap *plain_at;  /* the merge's own (NULL once it ended): var USR -> 1 + index in ops
                             of its plain summary */
    hs_strmap *tus_of;    /* var USR -> hs_atomic_tus: how many TUs have facts of it */
    hs_strmap *vars_in;   /* the merge's own (NULL once it ended): function USR -> hs_vec of the (interned) variables
                             its operations are on, so a TU whose worker skipped a header
                             function's body (it walked it for an earlier TU) still counts */
} hs_atomic_store;

/* How many TUs have any fact of a variable (a header's operation counts in each TU). */
typedef struct {
    size_t count;
    size_t last_tu;  /* the merge's own: the last TU counted */
} hs_atomic_tus;

/* The number of TUs with facts of the variable `var` (0 when none). */
size_t hs_atomic_tu_count(const hs_atomic_store *s, const char *var);

extern const hs_fact_family hs_family_atomics;

static inline const hs_atomic_store *hs_atomic_facts(const hs_program *p)
{
    return hs_program_store(p, &hs_family_atomics);
}

#endif
