/*
 * conditions.h - what a branch condition says about the arm it guards (conditions.c):
 * whether the arm is rare (an error check, unlikely(), a threshold), and whether one of
 * the function's parameters decides it. Used by the walk (extract.c) only.
 */
#ifndef HOTSCAN_CONDITIONS_H
#define HOTSCAN_CONDITIONS_H

#include "hotscan/walk.h"

/* Why the arm that runs when `cond` evaluates to `truth` is rare ("unlikely",
 * "error-check", "threshold"), or NULL. The string is static. */
const char *hs_condition_rare(CXTranslationUnit tu, CXCursor cond, bool truth);

/* Whether that arm runs only when parameter *param of `fn` is non-zero (*nonzero) or zero. */
bool hs_condition_param_guard(CXTranslationUnit tu, CXCursor fn, CXCursor cond, bool truth, int *param,
                              bool *nonzero);

/* An arm that ends by returning a negative constant (`return -1;`, `return C_ERR;`): an
 * error return, whatever its condition. */
bool hs_arm_returns_error(CXCursor arm);

/* An arm, taken when `cond` holds, that sets a static its condition tests: `if (!inited) {
 * ...; inited = true; }`, `if (ready == 0)`, `if (once_start(&once)) { ...; once_done(&once);
 * }`. It runs once per run of the program (a lazy initialisation), not per request. */
bool hs_arm_runs_once(CXCursor cond, CXCursor arm);

/* A variable with static storage (a global, a static local), or a member of one. */
bool hs_condition_static_storage(CXCursor c);

/* A constant integer argument or operand (literal, enumerator, NULL, true/false, -1). */
bool hs_condition_constant(CXCursor c, long long *value);

#endif
