/*
 * inactive.h - the identifiers in code a TU's configuration compiles out (inactive.c),
 * private to the extractor: collectors ask through hs_walk_compiled_out_use (walk.h).
 */
#ifndef HOTSCAN_INACTIVE_H
#define HOTSCAN_INACTIVE_H

#include <stdbool.h>

#include "hotscan/walk.h"

typedef struct hs_inactive_code hs_inactive_code;

/* Reads the TU's skipped preprocessor ranges in project files (the parse must have asked
 * for the detailed preprocessing record). */
hs_inactive_code *hs_inactive_code_create(hs_walk *w, CXTranslationUnit tu);
/* Whether `name` is an identifier in that code; *at (if given) is its first place. */
bool hs_inactive_code_mentions(const hs_inactive_code *ic, const char *name, hs_pos *at);
void hs_inactive_code_delete(hs_inactive_code *ic);

#endif
