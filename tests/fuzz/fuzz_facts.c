/*
 * fuzz_facts.c - libFuzzer target for the facts loader: one TU's facts document (what a
 * worker writes, or a --facts-dir file) merged into the program model (hs_merge_tu_result,
 * each family's reader), then every rule judged over it: the readers must give the rules
 * typed facts they can trust whatever the document holds (a clock read without "cost" once
 * reached timer-hot-path's strcmp as NULL). The document is read as scans read it
 * (hs_facts_loadb), and where the faster reader reads it at all it must make exactly the
 * tree jansson's json_loadb makes (analyzer/model/facts_json.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "hotscan/facts.h"
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
    json_t *fast = hs_facts_loadb_fast((const char *)data, size);
    json_t *want = json_loadb((const char *)data, size, 0, &jerr);
    if (fast) {
        char *a = want ? json_dumps(want, JSON_COMPACT) : NULL, *b = json_dumps(fast, JSON_COMPACT);
        if (!a || !b || strcmp(a, b) != 0)
            abort(); /* read what jansson refuses, or to another tree */
        free(a);
        free(b);
    }
    json_decref(fast);
    json_decref(want);
    json_t *doc = hs_facts_loadb((const char *)data, size, &jerr);
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
    hs_judge_options jo = {.hot = hot, .n_hot = 3};
    json_t *extra = NULL;
    json_t *findings = hs_judge_run(m.program, rd, &jo, &extra);
    json_decref(findings);
    json_decref(extra);
    hs_merge_free(&m);
    hs_vec_free(&disc.tus);
    return 0;
}
