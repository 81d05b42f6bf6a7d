/*
 * baseline.h - an earlier report as a baseline (--baseline): findings whose fingerprints it
 * holds are old and left out, so a CI step fails only on what a change brings.
 */
#ifndef HOTSCAN_BASELINE_H
#define HOTSCAN_BASELINE_H

#include <jansson.h>
#include <stdbool.h>

#include "hotscan/strmap.h"

/* Reads the fingerprints of a hotscan JSON report (findings[].fingerprint) or SARIF log
 * (runs[].results[].partialFingerprints["hotscan/v1"]) into `fingerprints` (keys). False
 * with *err naming the file and the problem. */
bool hs_baseline_load(const char *path, hs_strmap *fingerprints, char **err);

/* Sets "baselined": true on each finalized finding whose fingerprint is a key of
 * `fingerprints`; returns how many. */
size_t hs_baseline_mark(json_t *findings, const hs_strmap *fingerprints);

#endif
