/*
 * profile.h - the profile stage: a measured CPU profile (perf script output with call chains,
 * or folded stacks) read in one streamed pass into distinct stacks with counts, then mapped
 * onto the merged program: hot roots by inclusive share, sampled call edges, and each
 * finding's self, inclusive and clock-symbol share, by which reports are ranked.
 * docs/formats/profiles.md describes the formats.
 */
#ifndef HOTSCAN_PROFILE_H
#define HOTSCAN_PROFILE_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "hotscan/common.h"
#include "hotscan/program.h"
#include "hotscan/strmap.h"

typedef enum { HS_PROFILE_PERF_SCRIPT, HS_PROFILE_FOLDED } hs_profile_format;

typedef struct {
    char *name;    /* as the profile spells it, without offset, dso or folded annotation */
    char *file;    /* its source file when the profile has source lines, else NULL */
} hs_profile_frame;

typedef struct {
    uint32_t *frames;           /* frame ids, leaf first */
    size_t n;
    unsigned long long samples;
} hs_profile_stack;

typedef struct {
    hs_profile_format format;
    char *path;
    unsigned long long samples;     /* every sample read */
    hs_profile_frame *frames;       /* distinct (name, file) pairs */
    size_t n_frames, cap_frames;
    hs_profile_stack *stacks;       /* distinct stacks with their counts */
    size_t n_stacks, cap_stacks;
    hs_strmap *frame_index;         /* "name\x1f" "file" -> id + 1 */
    hs_strmap *stack_index;         /* the ids as a key -> stack index + 1 */
} hs_profile;

/* Reads a profile from `path` ("-": standard input), detecting its format; NULL and *err
 * ("FILE:LINE: what is wrong") when it is neither format or cannot be read. */
hs_profile *hs_profile_load(const char *path, char **err);
/* The same from an open stream; `name` is used in messages. */
hs_profile *hs_profile_read(FILE *in, const char *name, char **err);
/* The same without the fast path (every sample read line by line, nothing cached but frame
 * lines): the reference the tests and bench/profile_parse compare the fast path against. */
hs_profile *hs_profile_read_by_lines(FILE *in, const char *name, char **err);
void hs_profile_delete(hs_profile *prof);
const char *hs_profile_format_name(hs_profile_format format);

/* Writes the profile as folded stacks ("root;...;leaf COUNT"), one line per distinct stack. */
bool hs_profile_write_folded(const hs_profile *prof, FILE *out);

/*
 * A profile symbol reduced to the form hotscan's functions are named by: offset, symbol
 * version (@@GLIBC_2.17), compiler clone suffixes (.constprop.0, [clone .isra.0]), the
 * parameter list and qualifiers, template arguments and a return type are dropped, and a
 * lambda is its enclosing function. "void ns::f<int>(int) const" -> "ns::f". A new string.
 */
char *hs_profile_reduce_name(const char *symbol);

/* The profile joined to the program (hs_profile_map_program). */
typedef struct hs_profile_map hs_profile_map;

/*
 * Maps the profile's frames to the program's defined functions (by reduced name; several
 * functions of one name are told apart by the frame's source file when it has one), marks
 * functions whose inclusive share is at least `threshold_pct` as profile roots
 * (hs_function.profile_root), and adds the sampled caller -> callee pairs the static call
 * graph lacks as edges (hs_call_edge.sampled). Call before hs_judge_run.
 */
hs_profile_map *hs_profile_map_program(const hs_profile *prof, hs_program *p, double threshold_pct);
void hs_profile_map_delete(hs_profile_map *m);

/*
 * Adds each finding's "profile" object (self and inclusive share of its function, the clock
 * or atomic symbol's own share under it when the profile has one, and the share it is ranked
 * by); a finding in a function never sampled becomes low confidence unless `keep_unsampled`.
 * Call after hs_judge_run, while the program is alive.
 */
void hs_profile_annotate(hs_profile_map *m, json_t *findings, bool keep_unsampled);

/* The summary's "profile" object: file, format, samples, mapped, unmapped, threshold, roots. */
json_t *hs_profile_summary(const hs_profile_map *m);

/* Orders finalized findings by their profile share, highest first (stable: equal shares keep
 * the file order); findings without one come last. */
void hs_findings_rank_by_profile(json_t *findings);

#endif
