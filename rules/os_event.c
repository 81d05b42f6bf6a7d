/*
 * os_event.c - os-event: uses of InnoDB's os_event API (placeholder; see issue 3).
 */
#include "hotscan/rules.h"

static void judge(hs_judge_ctx *ctx)
{
    (void)ctx;
}

const hs_rule hs_rule_os_event = {
    .id = "os-event",
    .summary = "A use of InnoDB's os_event API, to move to a condition variable and a mutex.",
    .description = "os_event (MDEV-21452) to be replaced by condition variables.",
    .doc = "docs/rules/os-event.md",
    .judge = judge,
};
