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
 * Parses `in` with `unsaved` files replacing their on-disk contents and returns the
 * number of compile errors (not counting unknown-option errors), or -1 with *code and
 * *err set as for hs_extract_tu.
 * *first_error gets the first error's text when there is one.
 */
int hs_count_errors_with(CXIndex index, const hs_tu_input *in, struct CXUnsavedFile *unsaved,
                         unsigned n_unsaved, char **first_error, hs_extract_error *code, char **err);

#endif
