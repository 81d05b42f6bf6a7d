/*
 * config.c - `.hotscan.yml` and the merge of its options with the command line's.
 *
 * The file is a YAML mapping whose keys are the subcommand's long option names, read with
 * libyaml (each node knows its line, so a bad key is FILE:LINE). Each key is looked up in
 * the same option table (options.h) the command line is parsed with, so a new option is a
 * config key as soon as it is in the table. A key given twice is an error naming both
 * lines. The merged result is a list of (option, value) entries the subcommand applies with
 * the same code it applies command-line options with.
 */
#define _GNU_SOURCE
#include "config.h"
#include "hotscan/yaml_keys.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#define CONFIG_NAME ".hotscan.yml"

void hs_opt_set_init(hs_opt_set *s)
{
    memset(s, 0, sizeof *s);
    s->from_cli = hs_strmap_create();
}

static void entry_free(hs_opt_entry *e)
{
    free(e->value);
    free(e->origin);
    free(e);
}

void hs_opt_set_free(hs_opt_set *s)
{
    for (size_t i = 0; i < s->entries.len; i++)
        entry_free(s->entries.items[i]);
    hs_vec_free(&s->entries);
    hs_strmap_delete(s->from_cli);
    free(s->config_file);
    memset(s, 0, sizeof *s);
}

/* The table's options with a long name (the keys, and the options a dump names). */
#define FOR_EACH_LONG(o, table)                                                                    \
    for (const hs_cli_option *o = (table); o->name || o->short_name || o->heading; o++)          \
        if (o->name && !o->heading)

const hs_cli_option *hs_opt_find(const hs_cli_option *table, const char *name, int short_opt)
{
    FOR_EACH_LONG(o, table) {
        if (name && strcmp(o->name, name) == 0)
            return o;
        if (!name && o->val == short_opt && short_opt < 256)
            return o;
    }
    return NULL;
}

/* Drops every entry of `opt`. */
static void drop_option(hs_opt_set *s, const hs_cli_option *opt)
{
    size_t kept = 0;
    for (size_t i = 0; i < s->entries.len; i++) {
        hs_opt_entry *e = s->entries.items[i];
        if (e->opt == opt)
            entry_free(e);
        else
            s->entries.items[kept++] = e;
    }
    s->entries.len = kept;
}

void hs_opt_set_record(hs_opt_set *s, const hs_cli_option *opt, const char *value, const char *origin,
                       bool from_cli)
{
    bool list = opt->flags & HS_OPT_LIST;
    /* A scalar's last value wins; a list's command-line values replace the file's. */
    if (!list)
        drop_option(s, opt);
    else if (from_cli && !hs_strmap_has(s->from_cli, opt->name)) {
        drop_option(s, opt);
        hs_strmap_put(s->from_cli, opt->name, (void *)1);
    }
    hs_opt_entry *e = hs_xcalloc(1, sizeof *e);
    e->opt = opt;
    e->value = value ? hs_xstrdup(value) : NULL;
    e->origin = origin ? hs_xstrdup(origin) : NULL;
    hs_vec_push(&s->entries, e);
}

char *hs_config_find(const char *dir)
{
    char *d = hs_realpath(dir);
    while (d) {
        char *candidate = hs_path_join(d, CONFIG_NAME);
        if (access(candidate, F_OK) == 0) {
            free(d);
            return candidate;
        }
        free(candidate);
        if (strcmp(d, "/") == 0)
            break;
        char *up = hs_dirname(d);
        free(d);
        d = up;
    }
    free(d);
    return NULL;
}

static char *key_list(const hs_cli_option *table)
{
    hs_buf b;
    hs_buf_init(&b);
    FOR_EACH_LONG(o, table) {
        if (o->flags & HS_OPT_CLI_ONLY)
            continue;
        hs_buf_printf(&b, "%s%s", b.len ? ", " : "", o->name);
    }
    return hs_buf_take(&b);
}

static bool parse_bool(const char *v, bool *out)
{
    static const char *const yes[] = {"true", "True", "TRUE", "yes", "Yes", "on", "On", NULL};
    static const char *const no[] = {"false", "False", "FALSE", "no", "No", "off", "Off", NULL};
    for (size_t i = 0; yes[i]; i++)
        if (strcmp(v, yes[i]) == 0)
            return *out = true, true;
    for (size_t i = 0; no[i]; i++)
        if (strcmp(v, no[i]) == 0)
            return *out = false, true;
    return false;
}

typedef struct {
    hs_opt_set *s;
    const hs_cli_option *table;
    const char *path;
    char *dir;
    char **err;
} loader;

static bool fail(loader *l, const yaml_node_t *node, char *message)
{
    *l->err = hs_printf("%s:%zu: %s", l->path, node ? node->start_mark.line + 1 : 1, message);
    free(message);
    return false;
}

static bool add_value(loader *l, const hs_cli_option *opt, const yaml_node_t *v)
{
    if (v->type != YAML_SCALAR_NODE)
        return fail(l, v, hs_printf("'%s' needs a single value here, not a %s", opt->name,
                                    v->type == YAML_MAPPING_NODE ? "mapping" : "list"));
    const char *text = (const char *)v->data.scalar.value;
    char *origin = hs_printf("%s:%zu", l->path, v->start_mark.line + 1);
    if (!opt->arg) {
        bool on;
        if (!parse_bool(text, &on)) {
            free(origin);
            return fail(l, v, hs_printf("'%s' is true or false, not '%s'", opt->name, text));
        }
        if (on)
            hs_opt_set_record(l->s, opt, NULL, origin, false);
        free(origin);
        return true;
    }
    char *value = (opt->flags & HS_OPT_PATH) && text[0] != '/' && text[0]
                      ? hs_path_join(l->dir, text)
                      : hs_xstrdup(text);
    hs_opt_set_record(l->s, opt, value, origin, false);
    free(value);
    free(origin);
    return true;
}

static bool load_mapping(loader *l, yaml_document_t *doc, yaml_node_t *root)
{
    if (!root)
        return true; /* an empty file */
    if (root->type != YAML_MAPPING_NODE)
        return fail(l, root, hs_xstrdup("the top level must be a mapping of option names to values "
                                        "(hot: [dispatch_command], min-confidence: low, ...)"));
    /* libyaml keeps both pairs of a repeated key; which one would win is nobody's guess. */
    const yaml_node_t *first, *again = hs_yaml_duplicate_key(doc, root, &first);
    if (again)
        return fail(l, again, hs_printf("duplicate key '%s' (first at line %zu); give each option "
                                        "once (several values: one list, hot: [a, b])",
                                        (const char *)again->data.scalar.value, first->start_mark.line + 1));
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(doc, p->key);
        yaml_node_t *v = yaml_document_get_node(doc, p->value);
        if (!k || k->type != YAML_SCALAR_NODE)
            return fail(l, k, hs_xstrdup("a key must be an option name"));
        const char *name = (const char *)k->data.scalar.value;
        const hs_cli_option *opt = hs_opt_find(l->table, name, 0);
        if (!opt || (opt->flags & HS_OPT_CLI_ONLY)) {
            char *keys = key_list(l->table);
            bool r = fail(l, k, hs_printf("unknown key '%s'; the keys are the long options: %s", name, keys));
            free(keys);
            return r;
        }
        bool list = opt->flags & HS_OPT_LIST;
        if (v->type == YAML_SEQUENCE_NODE) {
            if (!list)
                return fail(l, v, hs_printf("'%s' takes one value, not a list", name));
            for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++)
                if (!add_value(l, opt, yaml_document_get_node(doc, *it)))
                    return false;
        } else if (v->type == YAML_SCALAR_NODE && v->data.scalar.length == 0 &&
                   v->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
            if (!list)
                return fail(l, v, hs_printf("'%s' needs a value", name));
        } else if (!add_value(l, opt, v)) {
            return false;
        }
    }
    return true;
}

bool hs_config_load(hs_opt_set *s, const hs_cli_option *table, const char *path, char **err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        *err = hs_printf("%s: %s", path, strerror(errno));
        return false;
    }
    yaml_parser_t parser;
    yaml_document_t doc;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_file(&parser, f);
    bool ok;
    if (!yaml_parser_load(&parser, &doc)) {
        *err = hs_printf("%s:%zu:%zu: not valid YAML: %s", path, parser.problem_mark.line + 1,
                         parser.problem_mark.column + 1, parser.problem ? parser.problem : "unreadable");
        ok = false;
    } else {
        char *real = hs_realpath(path);
        loader l = {.s = s, .table = table, .path = path, .dir = hs_dirname(real ? real : path), .err = err};
        ok = load_mapping(&l, &doc, yaml_document_get_root_node(&doc));
        free(l.dir);
        free(real);
        yaml_document_delete(&doc);
    }
    yaml_parser_delete(&parser);
    fclose(f);
    if (ok) {
        free(s->config_file);
        s->config_file = hs_xstrdup(path);
    }
    return ok;
}

/* Plain when YAML reads it back as the same string; a JSON string (also YAML) otherwise. */
static void put_scalar(FILE *out, const char *v)
{
    bool plain = v[0] && !strchr("-?:,[]{}#&*!|>'\"%@` ", v[0]);
    for (const char *p = v; plain && *p; p++)
        plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                strchr("_./+=-", *p);
    bool dummy;
    if (plain && !parse_bool(v, &dummy) && strcmp(v, "null") != 0 && strcmp(v, "~") != 0) {
        fputs(v, out);
        return;
    }
    json_t *s = json_string(v);
    char *text = s ? json_dumps(s, JSON_ENCODE_ANY) : NULL;
    fputs(text ? text : "\"\"", out);
    free(text);
    json_decref(s);
}

void hs_opt_set_dump(FILE *out, const hs_opt_set *s, const hs_cli_option *table)
{
    fprintf(out, "# hotscan's effective options: %s%s and the command line\n",
            s->config_file ? "" : "no config file,", s->config_file ? s->config_file : "");
    FOR_EACH_LONG(opt, table) {
        bool list = opt->flags & HS_OPT_LIST;
        bool any = false;
        for (size_t i = 0; i < s->entries.len; i++) {
            const hs_opt_entry *e = s->entries.items[i];
            if (e->opt != opt)
                continue;
            if (!any)
                fprintf(out, "%s:%s", opt->name, list ? "\n" : " ");
            any = true;
            if (list)
                fputs("  - ", out);
            if (e->value)
                put_scalar(out, e->value);
            else
                fputs("true", out);
            fputs("\n", out);
        }
    }
}
