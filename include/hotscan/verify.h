/*
 * verify.h - the fix stage: every fix-it a rule proposed is checked by reparsing the TU
 * that saw its finding with the fix's edits applied in memory (libclang unsaved files),
 * in the same isolated worker processes as extraction. A fix that adds a compile error is
 * dropped and its finding says why (`fix_unavailable`); the content hash of every file a
 * kept fix edits goes into the report's "files" map, so `hotscan apply` can refuse a file
 * that changed since.
 */
#ifndef HOTSCAN_VERIFY_H
#define HOTSCAN_VERIFY_H

#include <jansson.h>
#include <stdio.h>

#include "hotscan/extract.h"
#include "hotscan/workers.h"

/*
 * `findings` carry "tu_index" (the TU their fact was first seen in), removed here.
 * `baseline[i]` is TU i's compile-error count without edits. Warnings go to `log`.
 */
void hs_fix_verify(json_t *findings, hs_tu_input **tus, const int *baseline, const hs_pool_options *pool,
                   json_t *files_map, const char *root, FILE *log);

#endif
