/*
 * program.h - the whole-program model: every TU's facts merged into one call graph
 * and one list of each kind of fact, with what several TUs saw (a header's inline
 * function, a header's clock read) counted once.
 */
#ifndef HOTSCAN_PROGRAM_H
#define HOTSCAN_PROGRAM_H

#include <jansson.h>

#include "hotscan/common.h"
#include "hotscan/facts.h"
#include "hotscan/keyset.h"
#include "hotscan/strmap.h"

typedef struct hs_function hs_function;

/* Members ordered by size (a synthetic tree keeps about 21 edges a TU): 104 bytes, not 120. */
typedef struct {
    hs_function *caller;
    hs_function *callee;
    const char *file;  /* interned in the model's strings */
    const char *rare;  /* in an arm that runs rarely ("error-check", "unlikely",
                          "threshold"; interned), else NULL: weak evidence of hotness */
    hs_const_arg *const_args; /* constant arguments, owned by the edge */
    size_t n_const_args;
    hs_param_guard *guards;   /* arms of the caller's parameters the call sits in, owned */
    size_t n_guards;
    /* Added by hs_program_resolve_indirect (via, targets, indirect, is_virtual): a call
     * through a function pointer (to a function stored in its slot) or a virtual call (to an
     * override of the method it names). */
    const char *via;   /* interned: the callee as written ("c->cmd->proc") or the method's name */
    /* Added by hs_profile_map_program (samples, sampled): a call the profile sampled that the
     * static graph lacks (often an indirect one); its place is the caller's definition. */
    unsigned long long samples;
    unsigned line, column;
    unsigned loop;     /* the innermost loop around the call (its offset), 0 outside loops */
    unsigned targets;  /* how many functions the call may reach (0 for a plain direct call) */
    bool in_loop;
    bool error_path;   /* followed by an abort-like call: never part of a hot path */
    bool conditional;  /* in a branch inside its innermost loop (or its function) */
    bool dead;         /* every strong hot caller of the caller passes a constant that rules
                          out the arm the call is in (hs_program_compute_hotness) */
    bool once;         /* made outside any loop by a hot root that only main calls (the
                          program's event loop): it runs once per run of that loop
                          (hs_program_compute_hotness) */
    bool indirect;
    bool is_virtual;   /* a virtual call: this edge, or the one to the named method itself */
    bool sampled;
} hs_call_edge;

/* An indirect call with more possible targets than this is weak evidence of hotness. */
#define HS_WIDE_INDIRECT_TARGETS 16

/* Members ordered by size: 112 bytes, not 128. */
struct hs_function {
    const char *usr;   /* these three are interned in the model's strings */
    const char *name;  /* qualified name */
    const char *file;  /* definition, or first declaration seen; NULL when never seen */
    hs_vec callees;    /* hs_call_edge* going out */
    hs_vec callers;    /* hs_call_edge* coming in */
    /* Filled by hs_program_compute_hotness (hot_via, hot_weak_why, hot_depth and the flags
     * from hot_root on). */
    hs_call_edge *hot_via;   /* the edge the shortest hot path arrives by */
    const char *hot_weak_why;/* when reached but not hot_narrow: why the path is weak, as
                                words for messages ("only in an error-check branch") */
    unsigned line, column;
    int hot_depth;           /* calls from the nearest hot root; -1 when not reachable */
    bool defined;
    bool hot_attr, cold_attr;
    bool variadic;           /* takes `...`: a logger or a formatter; a call of it is output */
    bool profile_root;       /* its inclusive share of a --profile reaches the threshold
                                (hs_profile_map_program): a hot root */
    bool hot_root;
    bool hot_narrow;         /* reached by a strong path: no indirect call of more than
                                HS_WIDE_INDIRECT_TARGETS targets, no call in a rare arm */
    bool cold_only;          /* cold, or reachable only through cold functions */
};

struct hs_program {
    hs_intern *strings;    /* every string of the typed facts, once */
    void **stores;         /* one per fact family, in hs_fact_families() order */
    hs_strmap *functions;  /* USR -> hs_function* */
    hs_vec function_list;  /* hs_function*, in insertion order */
    hs_vec edges;          /* hs_call_edge* */
    hs_keyset *seen;       /* digests of the de-duplication keys of merged facts; NULL once
                              hs_program_end_merge ran */
    hs_buf fact_key;       /* scratch for hs_program_first_fact's keys */
    size_t translation_units;
    /* Indirect calls, until hs_program_resolve_indirect turns them into edges. */
    hs_vec indirect_sites;   /* hs_indirect_site* : calls through a slot */
    hs_vec virtual_edges;    /* hs_call_edge* : virtual calls, to the method they name */
    hs_strmap *slot_targets; /* slot USR -> hs_vec* of hs_function* stored there */
    hs_strmap *overriders;   /* method USR -> hs_vec* of hs_function* overriding it directly */
    bool indirect_resolved;
    size_t indirect_edges;   /* edges the resolution added */
};

/* A call through a function pointer held in a slot (a variable or field's USR). */
typedef struct {
    hs_function *caller;
    const char *slot, *via, *file; /* interned */
    unsigned line, column;
    bool in_loop, error_path, conditional;
    const char *rare;              /* interned, or NULL */
    unsigned loop;
    hs_const_arg *const_args;      /* owned by the site; each resolved edge gets a copy */
    size_t n_const_args;
    hs_param_guard *guards;        /* likewise */
    size_t n_guards;
} hs_indirect_site;

hs_program *hs_program_create(void);
void hs_program_delete(hs_program *p);

/* Adds one TU's facts: functions and calls here, then each fact family's members. */
void hs_program_merge(hs_program *p, json_t *facts);

/*
 * Every TU is merged: frees what only merging needs (the de-duplication keys, the
 * families' merge indexes; hs_fact_family.end_merge) before the rules run. Idempotent;
 * hs_program_merge after it is a programming error (it aborts).
 */
void hs_program_end_merge(hs_program *p);

/* A family's store (what its merge built), for its rules. Aborts once it was released. */
void *hs_program_store(const hs_program *p, const hs_fact_family *family);

/* Frees a family's store when no rule will read it again (the judge, judge.c); the rest of
 * the model stays. Reading it afterwards is a programming error (hs_program_store aborts). */
void hs_program_release_store(hs_program *p, const hs_fact_family *family);

/*
 * True the first time a fact is offered: a fact from a header that several TUs include
 * is merged once. Its identity is where it is (its "file" and "offset") and what it is
 * (`kind`, and its "function" USR, "var" USR and "ordinal" at that place); absent members
 * count as "" or 0. The one definition of a fact's identity, for every family's reader.
 */
bool hs_program_first_fact(hs_program *p, const char *kind, json_t *fact);

/* Finds or creates a function by USR (used by the merge and the unit tests). */
hs_function *hs_program_function(hs_program *p, const char *usr, const char *name);
hs_call_edge *hs_program_add_call(hs_program *p, hs_function *caller, hs_function *callee,
                                  const char *file, unsigned line, unsigned column, bool in_loop);
/* Every call of `f` is made by main (and there is at least one): `f` is entered once per
 * run of the program, as its event loop is. */
bool hs_function_called_only_from_main(const hs_function *f);
/* An edge that is weak evidence of hotness: a wide indirect call, a call in a rare arm, one
 * in an arm its caller's strong hot callers rule out with constant arguments, one a hot root
 * only main calls makes outside its loops, or (with `loggers`) a call of a function taking
 * `...`. */
bool hs_call_edge_weak(const hs_call_edge *e, bool loggers);

/*
 * Marks hot roots (hot attribute, profile_root, or a name in `hot_names`: qualified or
 * unqualified),
 * then the shortest path from a root to every function reachable without passing
 * through a cold function, and which functions are reachable only from cold code.
 */
void hs_program_compute_hotness(hs_program *p, char **hot_names, size_t n_hot_names);
/* Whether a --hot name names some function of the program (its whole qualified name, or its
 * last components: `DBImpl::Get` names `rocksdb::DBImpl::Get`; `::f` only a global f). */
bool hs_program_names_function(const hs_program *p, const char *name);

/*
 * Once all TUs are merged: an edge from each call through a slot to every function stored
 * in that slot anywhere in the program, and from each virtual call to every override
 * (transitively) of the method it names. Runs once; hs_program_compute_hotness calls it.
 */
void hs_program_resolve_indirect(hs_program *p);

/* The hot path to `f`, root first: hs_call_edge* in order. Caller frees with hs_vec_free. */
void hs_program_hot_path(const hs_function *f, hs_vec *edges_out);

#endif
