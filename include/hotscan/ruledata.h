/*
 * ruledata.h - the API lists the rules consult, loaded from the rules/ folder's JSON files.
 *
 * Lists are data so that a project can add its own clock wrappers, blocking calls and
 * hot roots with `--rules DIR` and no recompilation. Every JSON file may hold any of
 * the sections below; later files extend earlier ones, and an entry with a name
 * already present replaces it. See docs/rule-data.md for the format.
 */
#ifndef HOTSCAN_RULEDATA_H
#define HOTSCAN_RULEDATA_H

#include "hotscan/common.h"
#include "hotscan/strmap.h"

/* How expensive one read of a clock is, worst first. */
typedef enum {
    HS_COST_SYSCALL = 0, /* a real kernel entry: clock(), CPU-time clocks, times() */
    HS_COST_VDSO = 1,    /* user-space read of the kernel's clock page: tens of ns */
    HS_COST_COARSE = 2,  /* a coarse clock: a memory load */
    HS_COST_CYCLE = 3,   /* a cycle counter (rdtsc): cheap, but still serializing-ish */
    HS_COST_COUNT
} hs_cost;

const char *hs_cost_name(hs_cost c);
bool hs_cost_parse(const char *s, hs_cost *out);

typedef struct {
    char *name;         /* qualified name; a trailing '*' matches any suffix */
    char *clock;        /* what it reads, for messages ("process CPU time") */
    hs_cost cost;
    int clock_id_arg;   /* argument holding a clockid_t, or -1 */
    int out_arg;        /* argument the result is written through, or -1 */
    char *origin;       /* the rule-data file that declared it */
} hs_timer_api;

typedef struct {
    char *name;         /* qualified name */
    char *kind;         /* "set", "reset", "wait", "wait_time", "create", "destroy", "is_set", ... */
    int object_arg;     /* argument that names the event object, or -1 (create: the result) */
    char *origin;
} hs_event_api;

/* A project-declared replacement, offered with --fix-level=aggressive. */
typedef struct {
    char *function;     /* enclosing function it applies in, or NULL for anywhere */
    char *timer;        /* timer API it replaces */
    char *replacement;  /* expression text */
    char *description;
} hs_timer_replacement;

typedef struct hs_ruledata {
    hs_vec timers;            /* hs_timer_api* */
    hs_strmap *clock_ids;     /* clock id name -> (hs_cost + 1) cast to pointer */
    hs_strmap *blocking;      /* names of calls that block (sleep, poll, cond wait) */
    hs_vec hot_functions;     /* char*: hot roots declared by the project */
    hs_vec atomic_wrappers;   /* json_t* entries, interpreted by the atomic extractor */
    hs_strmap *relaxed_types; /* types whose operations are already relaxed */
    hs_vec events;            /* hs_event_api* */
    hs_strmap *event_types;   /* type names whose objects are events (os_event_t) */
    hs_vec replacements;      /* hs_timer_replacement* */
    hs_vec files;             /* char*: the files loaded, in order */
    hs_strmap *calibration;   /* "clock()", "clock_gettime(CLOCK_MONOTONIC)", ... -> double*:
                                 ns per call measured on this host (hotscan calibrate) */
    char *calibration_host;   /* where it was measured, or NULL */
} hs_ruledata;

hs_ruledata *hs_ruledata_create(void);
void hs_ruledata_delete(hs_ruledata *rd);

/* Loads one JSON file; on failure returns false and sets *err to "file:line:col: problem". */
bool hs_ruledata_load_file(hs_ruledata *rd, const char *path, char **err);
/* The same from text already read; `path` names it in errors. (The rule-data fuzz target
 * calls this.) */
bool hs_ruledata_load_text(hs_ruledata *rd, const char *path, const char *text, size_t size,
                           char **err);
/* Loads every *.json in a directory, in name order. */
bool hs_ruledata_load_dir(hs_ruledata *rd, const char *dir, char **err);
/* The bundled rule data, then each of `extra` (a folder of *.json, or one .json file), as
 * `--rules` gives them; NULL with *err naming the file and the problem. */
hs_ruledata *hs_ruledata_load_all(char *const *extra, size_t n, char **err);

/* The timer API a callee with this qualified name is, or NULL. */
const hs_timer_api *hs_ruledata_find_timer(const hs_ruledata *rd, const char *qualified_name);
const hs_event_api *hs_ruledata_find_event(const hs_ruledata *rd, const char *qualified_name);
bool hs_ruledata_is_blocking(const hs_ruledata *rd, const char *qualified_name);
/* Cost of a clock id such as "CLOCK_MONOTONIC"; false when unknown. */
bool hs_ruledata_clock_id_cost(const hs_ruledata *rd, const char *clock_id, hs_cost *out);

/* The measured cost of a read named as hs_clock_read_name names it ("clock()"); false
 * when no calibration holds it. */
bool hs_ruledata_calibrated_ns(const hs_ruledata *rd, const char *read_name, double *ns);

/* Where the bundled rule data lives: rules/ next to the executable, else the source tree. */
char *hs_ruledata_default_dir(void);

#endif
