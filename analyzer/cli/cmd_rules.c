/*
 * cmd_rules.c - `hotscan rules`: the rules, and the API lists they use; as text for a
 * person, or with --format json for tools (the shape is docs/rules.schema.json's).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "commands.h"
#include "hotscan/emit.h"
#include "hotscan/tempfiles.h"
#include "hotscan/common.h"
#include "hotscan/rules.h"
#include "hotscan/ruledata.h"

/* --rules returns 'r' (no -r: it is not in getopt's letters). */
static const hs_cli_option rules_table[] = {
    {"rules", 0, 'r', "DIR", "also load the rule data (*.json) in DIR (repeatable)", 0, NULL, HS_COMPLETE_DIRS,
     NULL},
    {"format", 0, 'f', "text|json",
     "text for a person (default), or JSON for tools: each rule's id, name, descriptions, default severity, "
     "precision, doc page and the rule data it reads (docs/rules.schema.json)",
     0, "text json", HS_COMPLETE_NOTHING, NULL},
    {"help", 'h', 'h', NULL, "show this help", 0, NULL, HS_COMPLETE_NOTHING, NULL},
    HS_OPTIONS_END,
};

const hs_cli_command hs_rules_command = {
    .name = "rules",
    .summary = "list the rules and the API lists they use",
    .usage = "hotscan rules [--rules DIR] [--format text|json]",
    .about = "Lists the rules and the API lists they use (bundled rule data plus DIR's).",
    .options = rules_table,
    .getopt_prefix = "",
    .column = 20,
};

static json_t *sorted_names(const hs_strmap *set)
{
    json_t *out = json_array();
    hs_vec keys = {0};
    hs_strmap_sorted_keys(set, &keys);
    for (size_t i = 0; i < keys.len; i++)
        json_array_append_new(out, json_string(keys.items[i]));
    hs_vec_free(&keys);
    return out;
}

/* The rules and the rule data as one JSON document; each rule's doc is the page's path in the
 * installed docs (or the source tree's, for a build-tree binary). */
static json_t *rules_json(const hs_ruledata *rd)
{
    char *docs = hs_docs_dir();
    json_t *rules = json_array();
    size_t n;
    const hs_rule *const *all = hs_rules_all(&n);
    for (size_t i = 0; i < n; i++) {
        const hs_rule *r = all[i];
        const char *page = strncmp(r->doc, "docs/", 5) == 0 ? r->doc + 5 : r->doc;
        char *doc = docs ? hs_path_join(docs, page) : hs_xstrdup(r->doc);
        char *name = hs_rule_pascal_name(r->id);
        json_t *sections = json_array();
        for (const char *const *d = r->data_sections; d && *d; d++)
            json_array_append_new(sections, json_string(*d));
        json_array_append_new(rules, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:o}", "id", r->id, "name", name,
                                               "short_description", r->summary, "full_description", r->description,
                                               "default_severity", r->default_severity, "precision", r->precision,
                                               "doc", doc, "rule_data", sections));
        free(name);
        free(doc);
    }
    json_t *files = json_array(), *timers = json_array(), *events = json_array(), *wrappers = json_array();
    json_t *clock_ids = json_array(), *hot = json_array(), *replacements = json_array();
    for (size_t i = 0; i < rd->files.len; i++)
        json_array_append_new(files, json_string(rd->files.items[i]));
    for (size_t i = 0; i < rd->timers.len; i++) {
        const hs_timer_api *t = rd->timers.items[i];
        json_array_append_new(timers, json_pack("{s:s, s:s, s:s}", "name", t->name, "cost", hs_cost_name(t->cost),
                                                "clock", t->clock ? t->clock : ""));
    }
    hs_vec keys = {0};
    hs_strmap_sorted_keys(rd->clock_ids, &keys);
    for (size_t i = 0; i < keys.len; i++) {
        hs_cost cost;
        hs_ruledata_clock_id_cost(rd, keys.items[i], &cost);
        json_array_append_new(clock_ids, json_pack("{s:s, s:s}", "name", (char *)keys.items[i], "cost",
                                                   hs_cost_name(cost)));
    }
    hs_vec_free(&keys);
    for (size_t i = 0; i < rd->hot_functions.len; i++)
        json_array_append_new(hot, json_string(rd->hot_functions.items[i]));
    for (size_t i = 0; i < rd->replacements.len; i++) {
        const hs_timer_replacement *t = rd->replacements.items[i];
        json_t *e = json_pack("{s:s, s:s, s:s}", "timer", t->timer, "replacement", t->replacement, "description",
                              t->description ? t->description : "");
        if (t->function)
            json_object_set_new(e, "function", json_string(t->function));
        json_array_append_new(replacements, e);
    }
    for (size_t i = 0; i < rd->atomic_wrappers.len; i++)
        json_array_append(wrappers, rd->atomic_wrappers.items[i]);
    for (size_t i = 0; i < rd->events.len; i++) {
        const hs_event_api *e = rd->events.items[i];
        json_array_append_new(events, json_pack("{s:s, s:s}", "name", e->name, "kind", e->kind));
    }
    json_t *data = json_object();
    json_object_set_new(data, "files", files);
    json_object_set_new(data, "timers", timers);
    json_object_set_new(data, "clock_ids", clock_ids);
    json_object_set_new(data, "blocking_functions", sorted_names(rd->blocking));
    json_object_set_new(data, "hot_functions", hot);
    json_object_set_new(data, "timer_replacements", replacements);
    json_object_set_new(data, "atomic_wrappers", wrappers);
    json_object_set_new(data, "relaxed_types", sorted_names(rd->relaxed_types));
    json_object_set_new(data, "events", events);
    json_object_set_new(data, "event_types", sorted_names(rd->event_types));
    json_t *doc = json_object();
    json_object_set_new(doc, "schema_version", json_integer(1));
    json_object_set_new(doc, "tool", json_pack("{s:s, s:s}", "name", "hotscan", "version", HOTSCAN_VERSION));
    json_object_set_new(doc, "docs_dir", docs ? json_string(docs) : json_null());
    json_object_set_new(doc, "rules", rules);
    json_object_set_new(doc, "rule_data", data);
    free(docs);
    return doc;
}

int cmd_rules(int argc, char **argv)
{
    hs_getopt g;
    hs_getopt_init(&g, &hs_rules_command);
    hs_vec dirs = {0};
    bool json = false;
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
        if (c == 'f' && (strcmp(optarg, "json") == 0 || strcmp(optarg, "text") == 0)) {
            json = strcmp(optarg, "json") == 0;
            continue;
        }
        if (c == 'f')
            fprintf(stderr, "hotscan: unknown --format '%s' (text or json)\n", optarg);
        else if (c == ':')
            fprintf(stderr, "hotscan: option '%s' needs a value\n", argv[optind - 1]);
        else
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
    if (json) {
        json_t *doc = rules_json(rd);
        bool ok = json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER) == 0 && putchar('\n') != EOF;
        json_decref(doc);
        hs_ruledata_delete(rd);
        return hs_close_stdout("the rule list") && ok ? 0 : 2;
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
