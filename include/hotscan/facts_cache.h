/*
 * facts_cache.h - TU facts kept across runs (analyzer/extract/facts_cache.c): a rerun reads
 * an unchanged TU's facts instead of parsing it. Opened by the supervisor before the
 * workers fork; each worker looks its TUs up and stores what it extracted.
 */
#ifndef HOTSCAN_FACTS_CACHE_H
#define HOTSCAN_FACTS_CACHE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "hotscan/extract.h"
#include "hotscan/ruledata.h"

typedef struct hs_facts_cache hs_facts_cache;

/* Creates `dir` if needed; NULL with *err when it cannot. The key covers this binary and
 * the rule data `rd` loaded. */
hs_facts_cache *hs_facts_cache_open(const char *dir, const hs_ruledata *rd, char **err);
void hs_facts_cache_close(hs_facts_cache *c);
/* Where a damaged entry, dropped and recomputed, is said (NULL, the default: nowhere). */
void hs_facts_cache_set_log(hs_facts_cache *c, FILE *log);
/* When the TU has an entry and every file its parse read is unchanged, puts its facts
 * document at `dest` (a hard link, or a copy) and returns true; false for no entry, a
 * damaged one (its files' digests do not match: dropped) or a changed input. */
bool hs_facts_cache_fetch(hs_facts_cache *c, const hs_tu_input *in, const char *root, const char *dest);
/* Now, as the cache compares it with file times (CLOCK_REALTIME, ns): taken before a parse
 * and handed to the put that stores its result. */
long long hs_facts_cache_clock(void);
/* Stores facts with the files the parse read (`inputs`, real paths), begun at
 * `parse_start_ns` (hs_facts_cache_clock); false when not stored, among others when an
 * input was modified after that (it may not be what was parsed). */
bool hs_facts_cache_put(hs_facts_cache *c, const hs_tu_input *in, const char *root, json_t *facts,
                        json_t *inputs, long long parse_start_ns);

/* A fix-it verification's verdict ({"errors": N, "first": "..."}) for the TU `in` parsed with
 * `unsaved` ([{"file", "content"}], verify.c) when one was kept and every file that parse read
 * is unchanged; NULL otherwise (the caller reparses; a damaged verdict is dropped). */
json_t *hs_facts_cache_verdict_get(hs_facts_cache *c, const hs_tu_input *in, const char *root, json_t *unsaved);
/* Keeps a verification worker's result ({"errors", "first", "inputs"}) of a reparse begun
 * at `parse_start_ns`; false when not kept. */
bool hs_facts_cache_verdict_put(hs_facts_cache *c, const hs_tu_input *in, const char *root, json_t *unsaved,
                                json_t *result, long long parse_start_ns);

#endif
