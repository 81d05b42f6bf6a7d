/*
 * atomic_seqcst_counter.c - atomic-seqcst-counter (placeholder; see issue 3).
 */
#include "hotscan/rules.h"

static void judge(hs_judge_ctx *ctx)
{
    (void)ctx;
}

const hs_rule hs_rule_atomic_seqcst_counter = {
    .id = "atomic-seqcst-counter",
    .summary = "A sequentially consistent operation on an atomic used only as a counter.",
    .description = "Counters need no ordering; relaxed operations suffice (MySQL bug 100432).",
    .doc = "docs/rules/atomic-seqcst-counter.md",
    .judge = judge,
};
