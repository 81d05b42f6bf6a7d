/*
 * cmd_rules.c - `hotscan rules`: the rules, and the API lists they use.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "commands.h"
#include "hotscan/tempfiles.h"
#include "hotscan/common.h"
#include "hotscan/rules.h"
#include "hotscan/ruledata.h"

/* --rules returns 'r' (no -r: it is not in getopt's letters). */
static const hs_cli_option rules_table[] = {
    {"rules", 0, 'r', "DIR", "also load the rule data (*.json) in DIR (repeatable)", 0, NULL, HS_COMPLETE_DIRS,
     NULL},
    {"help", 'h', 'h', NULL, "show this help", 0, NULL, HS_COMPLETE_NOTHING, NULL},
    HS_OPTIONS_END,
};

const hs_cli_command hs_rules_command = {
    .name = "rules",
    .summary = "list the rules and the API lists they use",
    .usage = "hotscan rules [--rules DIR]",
    .about = "Lists the rules and the API lists they use (bundled rule data plus DIR's).",
    .options = rules_table,
    .getopt_prefix = "",
    .column = 20,
};

int cmd_rules(int argc, char **argv)
{
    hs_getopt g;
    hs_getopt_init(&g, &hs_rules_command);
    hs_vec dirs = {0};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, g.shortopts, g.longopts, NULL)) != -1) {
        if (c == 'h') {
            hs_cli_print_help(stdout, &hs_rules_command);
            hs_vec_free(&dirs);
            return hs_close_stdout("the help") ? 0 : 2;
        }
        if (c == 'r') {
            hs_vec_push(&dirs, optarg);
            continue;
        }
        fprintf(stderr, "hotscan: unknown option '%s' (see 'hotscan rules --help')\n", argv[optind - 1]);
        hs_vec_free(&dirs);
        return 2;
    }
    hs_ruledata *rd = hs_ruledata_create();
    char *err = NULL;
    char *dir = hs_ruledata_default_dir();
    bool ok = hs_ruledata_load_dir(rd, dir, &err);
    free(dir);
    for (size_t i = 0; ok && i < dirs.len; i++)
        ok = hs_ruledata_load_dir(rd, dirs.items[i], &err);
    hs_vec_free(&dirs);
    if (!ok) {
        fprintf(stderr, "hotscan: error: %s\n", err);
        free(err);
        hs_ruledata_delete(rd);
        return 2;
    }
    size_t n;
    const hs_rule *const *rules = hs_rules_all(&n);
    printf("Rules:\n");
    for (size_t i = 0; i < n; i++)
        printf("  %-22s %s\n                         doc: %s\n", rules[i]->id, rules[i]->summary, rules[i]->doc);
    printf("\nRule data loaded from:\n");
    for (size_t i = 0; i < rd->files.len; i++)
        printf("  %s\n", (char *)rd->files.items[i]);
    printf("\nClock reads (timer-hot-path, timer-duplicate):\n");
    for (size_t i = 0; i < rd->timers.len; i++) {
        const hs_timer_api *t = rd->timers.items[i];
        printf("  %-40s %-13s %s\n", t->name, hs_cost_name(t->cost), t->clock);
    }
    printf("\nClock ids (clock_gettime's first argument):\n");
    hs_vec keys = {0};
    hs_strmap_sorted_keys(rd->clock_ids, &keys);
    for (size_t i = 0; i < keys.len; i++) {
        const char *key = keys.items[i];
        hs_cost cost;
        hs_ruledata_clock_id_cost(rd, key, &cost);
        printf("  %-40s %s\n", key, hs_cost_name(cost));
    }
    printf("\nBlocking calls (a loop that makes one is paced by it, not hot):\n ");
    size_t col = 1;
    keys.len = 0;
    hs_strmap_sorted_keys(rd->blocking, &keys);
    for (size_t i = 0; i < keys.len; i++) {
        const char *key = keys.items[i];
        if (col + strlen(key) + 1 > 78) {
            printf("\n ");
            col = 1;
        }
        printf(" %s", key);
        col += strlen(key) + 1;
    }
    hs_vec_free(&keys);
    printf("\n");
    if (rd->hot_functions.len) {
        printf("\nHot roots declared in rule data:\n");
        for (size_t i = 0; i < rd->hot_functions.len; i++)
            printf("  %s\n", (char *)rd->hot_functions.items[i]);
    }
    if (rd->events.len) {
        printf("\nEvent APIs (os-event):\n");
        for (size_t i = 0; i < rd->events.len; i++) {
            const hs_event_api *e = rd->events.items[i];
            printf("  %-40s %s\n", e->name, e->kind);
        }
    }
    if (rd->atomic_wrappers.len) {
        printf("\nAtomic wrappers (atomic-seqcst-counter):\n");
        for (size_t i = 0; i < rd->atomic_wrappers.len; i++)
            printf("  %s\n", json_string_value(json_object_get(rd->atomic_wrappers.items[i], "name")));
    }
    hs_ruledata_delete(rd);
    return hs_close_stdout("the rule list") ? 0 : 2;
}
