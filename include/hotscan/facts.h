/*
 * facts.h - what every fact family shares: the string interner of the program model, the
 * position of a fact in the source, the fact-family interface the merge dispatches to, and
 * the helpers a family's reader uses to read the JSON facts files.
 *
 * A TU's facts travel as a JSON document (docs/facts.md): written by the extractor in a
 * worker, read once by the merge. Each family's reader (rules/<family>/<family>_facts.c)
 * is the only code that knows the JSON keys of its facts; it turns them into the C structs
 * its header declares, with strings interned, and the rules read those typed fields.
 */
#ifndef HOTSCAN_FACTS_H
#define HOTSCAN_FACTS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* The version of the facts document; a reader refuses any other. */
#define HS_FACTS_VERSION 7

/* Interned strings: each distinct string stored once; pointers compare equal iff the
 * strings do, and live as long as the interner. */
typedef struct hs_intern hs_intern;
hs_intern *hs_intern_create(void);
void hs_intern_delete(hs_intern *in);
/* The interned copy of `s`; NULL for NULL. */
const char *hs_intern_str(hs_intern *in, const char *s);
size_t hs_intern_count(const hs_intern *in);

/* Where a fact is: the code a finding points at. Lines and columns 1-based, offsets
 * 0-based bytes in `file` (a real path, interned). */
typedef struct {
    const char *file;
    unsigned line, column, end_line, end_column;
    unsigned offset, length;
} hs_site;

/* A place named by a fact (a declaration, an earlier use). */
typedef struct {
    const char *file;   /* NULL when the fact names no place */
    unsigned line, column;
} hs_place;

typedef struct hs_program hs_program;

/*
 * A fact family: the facts one collector writes and its rules read. The program model
 * holds one store per family (created and deleted with the model) and hands every TU's
 * document to each family's merge, which reads its members and keeps each fact once
 * however many TUs saw it (hs_program_first_fact). The table is in rules/registry.c.
 */
typedef struct hs_fact_family {
    const char *name;
    void *(*create)(void);
    void (*destroy)(void *store);
    void (*merge)(void *store, hs_program *p, json_t *tu_facts, size_t tu_index);
    /* Optional: every TU is merged (hs_program_end_merge); frees what only the merge used. */
    void (*end_merge)(void *store);
} hs_fact_family;

const hs_fact_family *const *hs_fact_families(size_t *count);

/* An arm that runs only when parameter `param` is non-zero (`nonzero`) or zero. */
typedef struct {
    int param;
    bool nonzero;
} hs_param_guard;

/* A call's argument that is a constant integer (0, 1, -1, NULL, an enumerator). */
typedef struct {
    unsigned index;
    long long value;
} hs_const_arg;

/* A facts document read from bytes or a file: the tree json_loadb (flags 0) makes, built
 * by a faster reader when it can prove jansson would read the same, else by jansson itself
 * (analyzer/model/facts_json.c). NULL with *err as jansson sets it. */
json_t *hs_facts_loadb(const char *buf, size_t n, json_error_t *err);
json_t *hs_facts_load_file(const char *path, json_error_t *err);
/* Only the top-level members `names` (NULL-ended) of the facts document at `path`, the
 * others stepped over unread: what `hotscan judge` needs to order the files. */
json_t *hs_facts_load_members(const char *path, const char *const *names, json_error_t *err);
/* The faster reader alone: NULL where it leaves the bytes to jansson (for its tests). */
json_t *hs_facts_loadb_fast(const char *buf, size_t n);
/* json_dumps(doc, JSON_COMPACT), byte for byte, written without jansson's per-value
 * bookkeeping (what a worker writes its facts with); NULL where json_dumps gives NULL. */
char *hs_facts_dumps(json_t *doc);

/* Reading typed values from a facts object. Absent keys read as NULL, 0 or false, the
 * values the extractor leaves out; a family reader is the only caller. */
const char *hs_facts_str(hs_intern *in, json_t *obj, const char *key);
long long hs_facts_int(json_t *obj, const char *key, long long absent);
unsigned hs_facts_uint(json_t *obj, const char *key);
bool hs_facts_bool(json_t *obj, const char *key);
bool hs_facts_has(json_t *obj, const char *key);   /* present and not null */
/* file, line, column, end_line, end_column, offset, length of `obj`. */
void hs_facts_site(hs_intern *in, json_t *obj, hs_site *out);
/* {file, line, column} under `key`, or an empty place. */
void hs_facts_place(hs_intern *in, json_t *obj, const char *key, hs_place *out);
/* [[param, nonzero], ...] and [[index, value], ...]; NULL (and *n = 0) when absent. */
hs_param_guard *hs_facts_guards(json_t *arr, size_t *n);
hs_const_arg *hs_facts_const_args(json_t *arr, size_t *n);

/* True when a call with these constant arguments never runs code under these guards. */
bool hs_guards_contradicted(const hs_param_guard *guards, size_t n_guards, const hs_const_arg *args,
                            size_t n_args);

#endif
