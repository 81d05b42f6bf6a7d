/*
 * fuzz_ruledata.c - libFuzzer target for the rule-data loader (ruledata.c's
 * hs_ruledata_load_text), over the bundled data so overrides are exercised too, then the
 * lookups the rules make.
 */
#include <stdint.h>
#include <stdlib.h>

#include "hotscan/ruledata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    hs_ruledata *rd = hs_ruledata_create();
    char *err = NULL;
    bool ok = hs_ruledata_load_text(rd, "fuzz.json", (const char *)data, size, &err);
    if (!ok && !err)
        abort(); /* a refusal always says why */
    if (ok) {
        hs_cost cost;
        hs_ruledata_find_timer(rd, "clock_gettime");
        hs_ruledata_find_timer(rd, "my_timer_now");
        hs_ruledata_find_event(rd, "os_event_wait");
        hs_ruledata_is_blocking(rd, "poll");
        hs_ruledata_clock_id_cost(rd, "CLOCK_MONOTONIC", &cost);
    }
    free(err);
    hs_ruledata_delete(rd);
    return 0;
}
