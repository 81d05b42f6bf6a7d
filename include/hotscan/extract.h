/*
 * extract.h - turns one translation unit into a facts document (plain JSON).
 *
 * Extraction is a pure function of the TU's inputs: it never looks at other TUs, so
 * facts can be cached per TU and produced on different machines (sharding), then
 * merged once. The document's shape is described in docs/architecture.md.
 *
 * Only files under the project root and outside system headers are visited.
 */
#ifndef HOTSCAN_EXTRACT_H
#define HOTSCAN_EXTRACT_H

#include <clang-c/Index.h>
#include <jansson.h>

#include "hotscan/arg_filter.h"
#include "hotscan/ruledata.h"

/* One translation unit to parse, as discovered from the compile database. */
typedef struct {
    char *file;        /* absolute path of the main source file */
    char *directory;   /* working directory for the command */
    int argc;
    char **argv;       /* full compiler command line, argv[0] is the compiler */
    bool default_flags;/* true when the file was not in the compile database */
} hs_tu_input;

void hs_tu_input_free(hs_tu_input *in);

/* Flags for a file hotscan parses without a compile database entry. */
void hs_tu_input_set_default_flags(hs_tu_input *in);

/* Why a TU gave no facts at all. */
typedef enum {
    HS_EXTRACT_OK = 0,
    HS_EXTRACT_BAD_DIRECTORY,   /* the command's directory cannot be entered */
    HS_EXTRACT_REJECTED,        /* libclang rejected the command line */
    HS_EXTRACT_AST_UNREADABLE,  /* libclang could not read the AST (e.g. a foreign PCH) */
    HS_EXTRACT_CRASHED,         /* libclang crashed and recovered: its state is suspect */
    HS_EXTRACT_FAILED,          /* any other libclang failure */
} hs_extract_error;

/*
 * Parses `in` with `index` and returns its facts, or NULL with *code (when not NULL) and
 * *err set when the TU could not be parsed at all. A TU that parses with errors still yields facts; its
 * first errors are listed in the "parse_errors" member, and "inputs" lists every file the
 * parse read (real paths; the worker moves it to the facts cache and drops it).
 */
json_t *hs_extract_tu(CXIndex index, const hs_tu_input *in, const hs_ruledata *rd,
                      const char *root, hs_extract_error *code, char **err);

/*
 * A worker's memory of the header functions walked (extract.c, "Header functions walked
 * once"): a TU parsed with the cache does not walk the body of a function defined in a
 * header when an earlier TU whose facts were delivered, of the same process
 * (hs_extract_cache_commit) or of another worker of the run (hs_extract_cache_learn),
 * entered the header in the same state (the prefix key: compile flags, the main file's text
 * before it and the files entered before it, header_prefix.c) or walked a body with the
 * same key (USR, place, compile flags, the header's preprocessor-skipped ranges and a digest
 * of the body's cursors, their places, types and what they refer to). The merge keeps each
 * such fact once, from the first TU in TU order, which walked it: the model is the same.
 * TUs with compile errors neither use nor fill the cache.
 */
typedef struct hs_extract_cache hs_extract_cache;
hs_extract_cache *hs_extract_cache_create(void);
void hs_extract_cache_delete(hs_extract_cache *c);
/* The last TU's facts reached the merge: its walked header functions count as walked. */
void hs_extract_cache_commit(hs_extract_cache *c);
/* The last TU's facts were lost: forget what it walked. */
void hs_extract_cache_discard(hs_extract_cache *c);
/* Header function bodies walked and skipped so far (committed or not). */
void hs_extract_cache_counts(const hs_extract_cache *c, size_t *walked, size_t *skipped);
/* Of the skipped, those skipped by their header's prefix key, without a body digest; with
 * HOTSCAN_BENCH_CHECK_HEADER_SKIP=1 (bench only) their digests are made anyway, and
 * *disagreements counts those no earlier walk had. */
size_t hs_extract_cache_skipped_by_header(const hs_extract_cache *c, size_t *disagreements);
/* Of the skipped, those no code of their TU refers to (liveness in extract.c), not digested;
 * *walks of them were walked, into their own documents, as the first of their text key. */
size_t hs_extract_cache_unreferenced(const hs_extract_cache *c, size_t *walks);
/* Of the skipped, those skipped by a key only other workers' TUs gave (hs_extract_cache_learn). */
size_t hs_extract_cache_skipped_learned(const hs_extract_cache *c);
/* The keys the last TU recorded (body keys, header prefix keys) that other workers may have,
 * until commit or discard: what the worker shares with the others once its facts are
 * written (key_log.c). Not those of bodies a collector keeps in the worker memo
 * (hs_walk_body_in_memo), which stay this worker's. Valid until the next call. */
void hs_extract_cache_pending(hs_extract_cache *c, const unsigned char (**body)[16], size_t *nbody,
                              const unsigned char (**headers)[16], size_t *nheaders);
/* Keys committed but kept from the other workers so far: body keys, and *headers prefix keys. */
size_t hs_extract_cache_kept(const hs_extract_cache *c, size_t *headers);
/* A key another worker committed for a TU before the next one this worker extracts, whose
 * facts were merged (header: a prefix key, else a body key); true when it was new. */
bool hs_extract_cache_learn(hs_extract_cache *c, bool header, const unsigned char key[16]);
/* hs_extract_tu with a cache (NULL: none, the same as hs_extract_tu) and an option filter
 * (arg_filter.h; NULL: the command's options as written). The options the filter leaves
 * out change no fact; the unknown arguments among them are listed as ignored all the same. */
json_t *hs_extract_tu_cached(CXIndex index, const hs_tu_input *in, const hs_ruledata *rd,
                             const char *root, hs_extract_cache *cache, hs_arg_filter *args,
                             hs_extract_error *code, char **err);

/*
 * Parses `in` with `unsaved` files replacing their on-disk contents and returns the
 * number of compile errors (not counting unknown-option errors), or -1 with *code and
 * *err set as for hs_extract_tu.
 * *first_error gets the first error's text when there is one. With `inputs` (a json array,
 * or NULL) the files the parse read are appended to it, as real paths: what the facts cache
 * keeps a verdict's inputs by (facts_cache.c).
 */
int hs_count_errors_with(CXIndex index, const hs_tu_input *in, hs_arg_filter *args,
                         struct CXUnsavedFile *unsaved, unsigned n_unsaved, char **first_error, json_t *inputs,
                         hs_extract_error *code, char **err);

#endif
