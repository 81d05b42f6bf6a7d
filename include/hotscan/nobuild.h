/*
 * nobuild.h - the no-build mode (`scan --no-build`, analyzer/syntax/nobuild.c): facts from
 * tree-sitter alone, for a tree with no compile database. Each C/C++ file (sources and
 * headers) becomes one "TU" whose facts document has the members the extractor writes
 * (docs/facts.md), so the merge and the rules run unchanged; findings made from them are
 * marked (hs_nobuild_mark_findings).
 */
#ifndef HOTSCAN_NOBUILD_H
#define HOTSCAN_NOBUILD_H

#include <jansson.h>
#include <stdbool.h>

#include "hotscan/discover.h"
#include "hotscan/ruledata.h"
#include "hotscan/workers.h"

/* The files of a no-build scan: every C/C++ source and header under PATHs (files or
 * folders; `root` when there are none), each once by real path, sorted, as default-flag
 * TUs (a FIFO, device or dangling link named like one is a TU too, under its own name:
 * reading it is its error). False with *err naming a missing PATH or one that is no C/C++
 * file. */
bool hs_nobuild_discover(char **paths, int npaths, const char *root, hs_discovery *out, char **err);

/* Parses every TU with tree-sitter (two passes: an index of the tree's functions, fields,
 * globals and macros, then each file's facts) and hands each document to on_result in TU
 * order, as the extraction pool does (opt->on_result, opt->user, opt->rd, opt->root). A
 * file that cannot be read is that TU's error. */
void hs_nobuild_extract_all(hs_tu_input **tus, size_t n, const hs_pool_options *opt);

/* Marks findings made from syntax only: "from_syntax": true, confidence at most medium,
 * fixes removed (with "fix_unavailable" saying why). */
void hs_nobuild_mark_findings(json_t *findings);

#endif
