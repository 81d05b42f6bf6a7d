/*
 * atomic_vars.h - the atomics family's variables as its rules judge them: every operation
 * fact grouped by the variable it is on, with accessor calls made loads of what they return,
 * a template's tests of a member applied to each atomic field of that name, wrapper calls
 * replaced by the wrapper's operations on the object passed, and object paths linked to the
 * field that accesses through pointers share (atomic_vars.c). atomic-seqcst-counter and
 * atomic-mixed-access read the same variables.
 */
#ifndef HOTSCAN_ATOMIC_VARS_H
#define HOTSCAN_ATOMIC_VARS_H

#include "hotscan/common.h"
#include "hotscan/strmap.h"
#include "atomic_facts.h"

typedef struct hs_atomic_var {
    hs_vec uses;          /* its own operations: const hs_atomic_op* */
    const char *field;    /* an object path's: the atomic field's USR (var_field), else NULL */
    hs_vec paths;         /* a field's: the object paths through it (struct hs_atomic_var*) */
    hs_vec judged;        /* what its verdict reads: its uses, and those of the objects that
                             may be the same (see link_paths) */
} hs_atomic_var;

typedef struct {
    hs_strmap *by_usr;    /* the variable's USR -> hs_atomic_var* */
    hs_vec order;         /* the variables' USRs (interned), in first-use order */
    hs_vec made;          /* operations made here (accessor loads, wrapper expansions): owned */
} hs_atomic_vars;

/* The program's variables from its atomics facts; hs_atomic_vars_delete frees them. */
hs_atomic_vars *hs_atomic_vars_create(const hs_atomic_store *atomics);
void hs_atomic_vars_delete(hs_atomic_vars *vars);

/* Whether a variable's USR is a wrapper's pointer parameter ("param:..."), judged only as
 * what each call passes. */
bool hs_atomic_var_is_parameter(const char *usr);

#endif
