/*
 * timer_facts.h - the timers family's facts: one hs_clock_read per call that reads a clock,
 * as the collector (collect_timers.c) saw it and the merge kept it, once per place.
 *
 * Read from the TU's "clock_reads" JSON member by timer_facts.c, the only code that knows
 * those keys (docs/facts.md). Strings are interned in the program model.
 */
#ifndef HOTSCAN_TIMER_FACTS_H
#define HOTSCAN_TIMER_FACTS_H

#include <stdbool.h>
#include <stddef.h>

#include "hotscan/facts.h"
#include "hotscan/program.h"
#include "hotscan/ruledata.h"

/* A branch the read sits in, outermost first: which arm of which if/switch/?: or block. */
typedef struct {
    long long node, node_end;  /* offsets of the branching statement */
    long long arm;             /* which arm (or block segment) the read is in */
    long long exit_until;      /* > 0: the arm always leaves (return/break/...) before this
                                  offset; -1: a block segment after an always-leaving
                                  statement; 0: neither */
    bool sampled;              /* the condition samples (`i % N == 0`) */
} hs_read_branch;

typedef struct hs_clock_wrapper hs_clock_wrapper;

/* A call that gets a reading as one of its arguments. */
typedef struct {
    const char *callee;        /* USR, interned */
    unsigned arg;
} hs_passed_to;

/* A function that stores one of its parameters (or a value computed from it) into static
 * storage every time it runs: redis' updateCachedTimeWithUs(..., ustime). */
typedef struct {
    const char *function, *text;
    unsigned param;
    bool file_only;
} hs_param_cache;

/* An argument of a candidate call that may choose the clock its callee reads
 * (`xclock_gettime(c->id, ts)`: `c->id`). */
typedef struct {
    unsigned pos;              /* which argument */
    int param;                 /* the caller's parameter it comes from, or -1 (a static) */
    bool hard;                 /* passed by value, not as an address: it must choose the clock */
    const char *text;          /* as written, interned */
} hs_clock_selector;

typedef struct {
    hs_site site;              /* the call */
    const char *text;          /* the call as written */
    bool macro;                /* written through a macro */
    const char *macro_name;    /* that macro, as the source names it, or NULL */
    long long ordinal;         /* how many reads the function had before this one */
    size_t tu_index;           /* the TU that saw it first: where its fix is verified */

    const char *api;           /* qualified name of the clock function */
    const char *clock;         /* which clock, in words */
    const char *clock_id;      /* the clock argument's name (CLOCK_MONOTONIC), or NULL */
    const char *cost;          /* cost class: "syscall", "vdso", "coarse", "cycles" */
    const char *type;          /* the call's type */

    const char *function;      /* USR of the enclosing function */
    const char *function_name;

    bool in_loop;              /* inside a loop of its function */
    bool loop_blocking;        /* and that loop also blocks (sleeps, polls): paced */
    bool decides_loop_exit;    /* the reading decides when the loop ends (a deadline spin,
                                  a retry): the loop exists to read the clock */
    bool sampled_in_loop;      /* inside a sampling branch of the innermost loop */
    const char *loop_path;     /* the loop nest, "" outside loops */
    long long lambda;          /* offset of the enclosing lambda, 0 when none */
    hs_read_branch *branches;
    size_t n_branches;
    bool error_path;           /* before an abort-like call */
    const char *rare;          /* in an arm that runs rarely: "error-check", "unlikely",
                                  "threshold"; NULL otherwise */
    hs_param_guard *guards;    /* arms one of the function's parameters decides */
    size_t n_guards;
    bool function_blocks;      /* the function blocks unconditionally somewhere */
    bool function_waits;       /* the function has a loop that blocks on every pass (a wait) */
    long long seq;             /* calls made before it in the function */
    long long blocking_seq;    /* blocking or slow calls made before it */
    long long blocking_work_seq; /* of those, the ones that are no event wait (hs_timer_is_event_wait) */

    bool in_variadic;          /* the function takes `...`: a logger or a formatter */
    bool returned;             /* the reading is returned: the function is a clock wrapper */
    bool printed;              /* the reading is passed to a variadic call (printed) */
    bool vs_static;            /* the reading is compared with or subtracted from a value in
                                  static storage: a rate limit's or a cache's last reading */
    bool result_used;          /* the reading is used (not a discarded call) */
    const char *sink;          /* name key of what receives the reading, or NULL */
    const char *sink_text;     /* its text, or NULL when the reading lands nowhere named */
    bool out_param;            /* the reading is written through a pointer argument */
    long long sink_modified_at;/* offset of the next write to the sink, -1 when none */
    size_t n_elapsed_with;     /* readings it is combined with (an elapsed-time pair) */

    bool has_clock_arg;        /* the clock argument, when it is a plain name */
    unsigned clock_arg_offset, clock_arg_length;
    const char *clock_arg_text;

    long long stmt_offset;     /* the statement holding the call (its block's), for fixes */
    const char *stmt_indent;
    long long block_end;

    bool candidate;            /* a call that reads a clock if its callee is a clock wrapper */
    const char *callee;        /* a candidate's callee (USR), NULL when called through a pointer */
    bool out_to_caller;        /* the reading is written through a pointer parameter */
    bool sink_static;          /* the reading lands in static storage */
    bool vs_field;             /* a field is subtracted from the reading, or it from a field */
    const char *cached_in;     /* a static-storage name given the reading or a value computed
                                  from it (`server.mstime`), or NULL */
    bool cached_file_only;     /* that name is visible in its file only (a `static` global) */
    long long *elapsed;        /* ordinals of the readings and candidates it is combined with */
    size_t n_elapsed_fresh;    /* of n_elapsed_with, those not kept in static storage */
    size_t n_elapsed;
    const hs_clock_wrapper *wrapper; /* a resolved candidate: the wrapper it calls */
    int clock_id_param;        /* an API read: the function's parameter its clock id comes from, or -1 */
    hs_clock_selector *selectors; /* a candidate's arguments that may choose the clock */
    size_t n_selectors;
    const char *selected;      /* a resolved candidate: what chooses its wrapper's clock (the
                                  arguments it passes, `&monotonic_clock`, or the wrapper's own
                                  choice), NULL when the wrapper reads one clock */
    hs_passed_to *passed_to;   /* the project functions the reading is passed to, later on */
    size_t n_passed_to;
} hs_clock_read;

/*
 * A clock wrapper: a function whose result is a clock reading, directly (its read is
 * returned or written through a pointer parameter: redis' ustime()) or through another
 * wrapper (mstime() returns ustime()/1000). Found in the program, not listed by hand.
 */
struct hs_clock_wrapper {
    const char *usr, *name;    /* interned */
    const hs_clock_wrapper *next; /* the wrapper it calls, NULL when it reads the clock itself */
    /* The clock read at the bottom of the chain, as its read was recorded. */
    const char *api, *clock, *clock_id, *cost, *base_text;
    /* The read (or wrapper call) that makes this function a wrapper: its arms decided by
     * a parameter (`if (us == 0) us = ustime();`), borrowed from the read. */
    const hs_param_guard *guards;
    size_t n_guards;
    unsigned depth;            /* wrappers between it and the clock API: 0 when it reads it */
    bool out;                  /* it writes the reading through a pointer parameter, not returns it */
    unsigned selector_params;  /* its parameters (bit i: the i-th) that only name the clock it
                                  reads (`xclock_gettime(clock_t id, ...)`, `time_msec__(struct
                                  clock *c)`): its callers may pass them without making the
                                  reading theirs */
    const char *selected;      /* the clock it chooses for the wrapper it calls (`&monotonic_clock`
                                  in time_msec), or NULL */
};

/* A static-storage name refreshed from a clock reading: the program's cached time. */
typedef struct {
    const char *text;          /* as the source names it: "server.mstime" */
    const char *function;      /* USR of the function refreshing it */
    const char *function_name;
    const char *family;        /* the clock it caches (hs_clock_family) */
    const char *api;           /* the API or wrapper the refreshing read calls */
    const char *file;          /* where it is refreshed: a `static` cache serves that file only */
    bool file_only;
    bool periodic;             /* its refresher runs in a loop, or is reached only through a
                                  pointer (a timer callback, a clock thread) */
    const char *loop_caller;   /* a function calling the refresher from a loop, or NULL */
    const char *callback;      /* or a function nothing calls that leads to it (a timer
                                  callback), or NULL */
} hs_clock_cache;

/*
 * Which clock a read reads, as a family: "wall", "monotonic", "cpu", "cycles", or NULL when
 * it cannot tell (a clock id held in a variable). From the clock id, else from the words of
 * the rule data's "clock" ("wall-clock seconds", "monotonic time", "process CPU time").
 */
const char *hs_clock_family(const char *clock, const char *clock_id);
/* Nanoseconds one unit of the read's value stands for, as far as the API says (time(): 1e9,
 * gettimeofday(): 1e3, clock_gettime(): 1), or 0 when unknown (a wrapper's scaled value). */
double hs_clock_resolution_ns(const char *api, const char *clock);

/* Every clock read of the program, each once, in merge order; after hs_timer_resolve,
 * also each candidate whose callee is a clock wrapper. */
typedef struct {
    hs_clock_read *reads;
    size_t len, cap;
    hs_clock_read *candidates; /* calls that may be clock wrappers' (hs_clock_read.candidate) */
    size_t n_candidates, cap_candidates;
    bool resolved;             /* hs_timer_resolve ran */
    size_t n_api_reads;        /* reads[0 .. n_api_reads) call a clock API; the rest wrappers */
    hs_strmap *wrappers;       /* USR -> hs_clock_wrapper* */
    hs_strmap *by_function;    /* USR -> hs_vec* of indexes into reads */
    hs_strmap *blocking;       /* hs_timers_blocking_functions, made once by hs_timer_resolve */
    hs_clock_cache *caches;
    size_t n_caches;
    hs_param_cache *param_caches;
    size_t n_param_caches, cap_param_caches;
    /* Call sites of calls with no arguments, by how their value is used: where a clock
     * wrapper's reading is half of an interval measurement, or passed on. */
    hs_strmap *timed_sites;   /* "file:line:column" -> interned use ("timed", "to-caller",
                                 "guarded", "field") */
    hs_strmap *site_fields;   /* "file:line:column" -> interned field USR, for "field" sites */
    hs_strmap *interval_fields; /* names of fields compared with a fresh value anywhere */
} hs_timer_store;

/* How the value of the call at file:line:column is used ("timed", "to-caller",
 * "guarded"; see collect_timers.c), or NULL when it is none of those. A site that stores
 * into a field reads as "timed" when that field is an interval field, else NULL. Valid
 * once every TU is merged. */
const char *hs_timer_site_use(const hs_timer_store *s, const char *file, unsigned line, unsigned column);
/* The call at file:line:column stores its value into a field that holds a start time
 * somewhere in the program (one subtracted from or compared with a fresh value). */
bool hs_timer_site_interval_field(const hs_timer_store *s, const char *file, unsigned line, unsigned column);

extern const hs_fact_family hs_family_timers;

/*
 * Once the program is merged (and its indirect calls resolved): finds the clock wrappers,
 * turns each candidate that calls one into a read of the wrapper's clock, counts the
 * readings each read is combined with among the reads that are real, and finds the
 * program's cached clocks. Runs once; the rules of the family call it first.
 */
void hs_timer_resolve(hs_timer_store *s, const hs_program *p, const hs_ruledata *rd);

/* The wrapper chain of a read through a wrapper: "mstime -> ustime -> gettimeofday". */
char *hs_clock_wrapper_chain(const hs_clock_wrapper *w);

/* The indexes into s->reads (as uintptr_t) of the reads in the function `usr`, or NULL. */
const hs_vec *hs_timer_reads_of(const hs_timer_store *s, const char *usr);

/* The function at `usr` is a clock wrapper. */
const hs_clock_wrapper *hs_timer_wrapper(const hs_timer_store *s, const char *usr);

/* A cached clock a fresh read of `r`'s clock could use instead, or NULL: the same clock, and
 * not refreshed by the read's own function. */
const hs_clock_cache *hs_timer_cache_for(const hs_timer_store *s, const hs_clock_read *r);

/* `r`'s reading is passed to the function and parameter that `c` stores. */
bool hs_timer_hands_to(const hs_clock_read *r, const hs_param_cache *c);

/* `name` is a system call an event loop waits in for its next events (poll, epoll_wait,
 * kevent, ...): the time read right after one is the iteration's time, where event loops
 * refresh their cached clock, not a stamp of slow work done. */
bool hs_timer_is_event_wait(const char *name);

/* How messages name a read: "clock()", "clock_gettime(CLOCK_MONOTONIC)". Caller frees. */
char *hs_clock_read_name(const hs_clock_read *r);

/*
 * Functions that may block: a blocking API of the rule data (sleep, poll, file and socket
 * I/O, fork), or a function that calls one, transitively, outside error paths and rare
 * arms (a logger that writes a file, redis' redisFork). USR -> (void *)1; caller deletes.
 */
hs_strmap *hs_timers_blocking_functions(const hs_program *p, const hs_ruledata *rd);

/* Does `f` call a function in `blocking` from its loop `loop_id` (the loop's offset)? */
bool hs_timers_loop_calls_blocking(const hs_function *f, unsigned loop_id, const hs_strmap *blocking);

/* The innermost loop of a read's loop path ("120/388" -> 388), 0 outside loops. */
unsigned hs_clock_read_loop(const hs_clock_read *r);

static inline const hs_timer_store *hs_timer_facts(const hs_program *p)
{
    return hs_program_store(p, &hs_family_timers);
}

#endif
