/*
 * fuzz_facts.c - libFuzzer target for the facts loader: one TU's facts document (what a
 * worker writes, or a --facts-dir file) merged into the program model (hs_merge_tu_result,
 * each family's reader), then hotness computed over it.
 *
 * The rules are not run: they trust the readers' typed facts (a clock read without "cost"
 * reaches timer-hot-path's strcmp as NULL). Build with -DHOTSCAN_FUZZ_FACTS_JUDGE to run
 * them too.
 */
#include <stdint.h>
#include <stdlib.h>

#include <jansson.h>

#include "hotscan/judge.h"
#include "hotscan/merge.h"

static hs_ruledata *rd;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!rd) {
        rd = hs_ruledata_create();
        char *err = NULL;
        if (!hs_ruledata_load_dir(rd, HOTSCAN_FUZZ_RULES_DIR, &err))
            abort();
    }
    json_error_t jerr;
    json_t *doc = json_loadb((const char *)data, size, 0, &jerr);
    if (!doc)
        return 0;
    hs_tu_input tu = {.file = "/p/a.c", .directory = "/p"};
    hs_discovery disc = {0};
    hs_vec_push(&disc.tus, &tu);
    hs_merge m;
    hs_merge_init(&m, &disc, "/p", NULL, NULL);
    hs_tu_result r = {.facts = doc};
    hs_merge_tu_result(0, &r, &m);
    char *hot[] = {"f", "main", "dispatch_command"};
#ifdef HOTSCAN_FUZZ_FACTS_JUDGE
    hs_judge_options jo = {.hot = hot, .n_hot = 3};
    json_t *extra = NULL;
    json_t *findings = hs_judge_run(m.program, rd, &jo, &extra);
    json_decref(findings);
    json_decref(extra);
#else
    hs_program_compute_hotness(m.program, hot, 3);
#endif
    hs_merge_free(&m);
    hs_vec_free(&disc.tus);
    return 0;
}
