/*
 * ruledata.c - loads the rules/ JSON files (timer APIs, clock ids, blocking calls, hot roots,
 * atomic wrappers, event APIs) into lookup tables.
 *
 * Strict on purpose: an unknown key or a wrong type is an error naming the file, so a
 * typo in a project's wrapper list is caught instead of silently matching nothing.
 */
#define _GNU_SOURCE
#include "hotscan/ruledata.h"

#include <dirent.h>
#include <jansson.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

static const char *cost_names[HS_COST_COUNT] = {"syscall", "vdso", "coarse", "cycle-counter"};

const char *hs_cost_name(hs_cost c)
{
    return (c >= 0 && c < HS_COST_COUNT) ? cost_names[c] : "unknown";
}

bool hs_cost_parse(const char *s, hs_cost *out)
{
    for (int i = 0; i < HS_COST_COUNT; i++) {
        if (strcmp(s, cost_names[i]) == 0) {
            *out = (hs_cost)i;
            return true;
        }
    }
    return false;
}

hs_ruledata *hs_ruledata_create(void)
{
    hs_ruledata *rd = hs_xcalloc(1, sizeof *rd);
    rd->clock_ids = hs_strmap_create();
    rd->blocking = hs_strmap_create();
    rd->relaxed_types = hs_strmap_create();
    rd->event_types = hs_strmap_create();
    return rd;
}

static void free_timer(hs_timer_api *t)
{
    free(t->name);
    free(t->clock);
    free(t->origin);
    free(t);
}

static void free_event(hs_event_api *e)
{
    free(e->name);
    free(e->kind);
    free(e->origin);
    free(e);
}

void hs_ruledata_delete(hs_ruledata *rd)
{
    if (!rd)
        return;
    for (size_t i = 0; i < rd->timers.len; i++)
        free_timer(rd->timers.items[i]);
    hs_vec_free(&rd->timers);
    for (size_t i = 0; i < rd->events.len; i++)
        free_event(rd->events.items[i]);
    hs_vec_free(&rd->events);
    for (size_t i = 0; i < rd->hot_functions.len; i++)
        free(rd->hot_functions.items[i]);
    hs_vec_free(&rd->hot_functions);
    for (size_t i = 0; i < rd->atomic_wrappers.len; i++)
        json_decref(rd->atomic_wrappers.items[i]);
    hs_vec_free(&rd->atomic_wrappers);
    for (size_t i = 0; i < rd->replacements.len; i++) {
        hs_timer_replacement *r = rd->replacements.items[i];
        free(r->function);
        free(r->timer);
        free(r->replacement);
        free(r->description);
        free(r);
    }
    hs_vec_free(&rd->replacements);
    for (size_t i = 0; i < rd->files.len; i++)
        free(rd->files.items[i]);
    hs_vec_free(&rd->files);
    hs_strmap_delete(rd->clock_ids);
    hs_strmap_delete(rd->blocking);
    hs_strmap_delete(rd->relaxed_types);
    hs_strmap_delete(rd->event_types);
    free(rd);
}

/* Error helpers: every message names the file and, where known, the entry. */
static bool fail(char **err, const char *path, const char *fmt, const char *what)
{
    char *msg = hs_printf(fmt, what);
    *err = hs_printf("%s: %s", path, msg);
    free(msg);
    return false;
}

static const char *opt_string(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

static bool check_keys(json_t *obj, const char *const *allowed, const char *path,
                       const char *section, char **err)
{
    const char *key;
    json_t *val;
    json_object_foreach(obj, key, val) {
        bool ok = false;
        for (size_t i = 0; allowed[i]; i++)
            if (strcmp(key, allowed[i]) == 0)
                ok = true;
        if (!ok) {
            *err = hs_printf("%s: unknown key \"%s\" in %s", path, key, section);
            return false;
        }
    }
    return true;
}

static bool int_field(json_t *obj, const char *key, int *out, const char *path, const char *name,
                      char **err)
{
    json_t *v = json_object_get(obj, key);
    if (!v) {
        *out = -1;
        return true;
    }
    if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 16) {
        *err = hs_printf("%s: \"%s\" of \"%s\" must be an argument index (0-16)", path, key, name);
        return false;
    }
    *out = (int)json_integer_value(v);
    return true;
}

static void replace_or_push(hs_vec *v, void *item, const char *name, size_t name_offset,
                            void (*free_fn)(void *))
{
    for (size_t i = 0; i < v->len; i++) {
        const char *other = *(const char **)((char *)v->items[i] + name_offset);
        if (strcmp(other, name) == 0) {
            free_fn(v->items[i]);
            v->items[i] = item;
            return;
        }
    }
    hs_vec_push(v, item);
}

static void free_timer_void(void *p) { free_timer(p); }
static void free_event_void(void *p) { free_event(p); }

static bool load_timers(hs_ruledata *rd, json_t *arr, const char *path, char **err)
{
    static const char *const allowed[] = {"name", "clock", "cost", "clock_id_arg", "out_arg",
                                          "note", NULL};
    if (!json_is_array(arr))
        return fail(err, path, "\"timers\" must be an array%s", "");
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e) {
        if (!json_is_object(e))
            return fail(err, path, "each entry of \"timers\" must be an object%s", "");
        const char *name = opt_string(e, "name");
        if (!name || !name[0])
            return fail(err, path, "a \"timers\" entry has no \"name\"%s", "");
        if (!check_keys(e, allowed, path, "a \"timers\" entry", err))
            return false;
        const char *cost = opt_string(e, "cost");
        hs_timer_api *t = hs_xcalloc(1, sizeof *t);
        if (!cost || !hs_cost_parse(cost, &t->cost)) {
            free(t);
            return fail(err, path,
                        "timer \"%s\" needs \"cost\": one of syscall, vdso, coarse, cycle-counter",
                        name);
        }
        if (!int_field(e, "clock_id_arg", &t->clock_id_arg, path, name, err) ||
            !int_field(e, "out_arg", &t->out_arg, path, name, err)) {
            free(t);
            return false;
        }
        t->name = hs_xstrdup(name);
        const char *clock = opt_string(e, "clock");
        t->clock = hs_xstrdup(clock ? clock : "a clock");
        t->origin = hs_xstrdup(path);
        replace_or_push(&rd->timers, t, t->name, offsetof(hs_timer_api, name), free_timer_void);
    }
    return true;
}

static bool load_name_set(hs_strmap *set, json_t *arr, const char *path, const char *section,
                          char **err)
{
    if (!json_is_array(arr)) {
        *err = hs_printf("%s: \"%s\" must be an array of strings", path, section);
        return false;
    }
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e) {
        if (!json_is_string(e)) {
            *err = hs_printf("%s: \"%s\" must be an array of strings", path, section);
            return false;
        }
        hs_strmap_put(set, json_string_value(e), (void *)1);
    }
    return true;
}

static bool load_clock_ids(hs_ruledata *rd, json_t *obj, const char *path, char **err)
{
    if (!json_is_object(obj))
        return fail(err, path, "\"clock_ids\" must map clock id names to cost classes%s", "");
    const char *key;
    json_t *val;
    json_object_foreach(obj, key, val) {
        hs_cost c;
        if (!json_is_string(val) || !hs_cost_parse(json_string_value(val), &c))
            return fail(err, path, "clock id \"%s\" needs a cost class", key);
        hs_strmap_put(rd->clock_ids, key, (void *)(intptr_t)(c + 1));
    }
    return true;
}

static bool load_events(hs_ruledata *rd, json_t *arr, const char *path, char **err)
{
    static const char *const allowed[] = {"name", "kind", "object_arg", "note", NULL};
    if (!json_is_array(arr))
        return fail(err, path, "\"events\" must be an array%s", "");
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e) {
        const char *name = json_is_object(e) ? opt_string(e, "name") : NULL;
        const char *kind = name ? opt_string(e, "kind") : NULL;
        if (!name || !kind)
            return fail(err, path, "each \"events\" entry needs \"name\" and \"kind\"%s", "");
        if (!check_keys(e, allowed, path, "an \"events\" entry", err))
            return false;
        hs_event_api *ev = hs_xcalloc(1, sizeof *ev);
        if (!int_field(e, "object_arg", &ev->object_arg, path, name, err)) {
            free(ev);
            return false;
        }
        ev->name = hs_xstrdup(name);
        ev->kind = hs_xstrdup(kind);
        ev->origin = hs_xstrdup(path);
        replace_or_push(&rd->events, ev, ev->name, offsetof(hs_event_api, name), free_event_void);
    }
    return true;
}

static bool load_replacements(hs_ruledata *rd, json_t *arr, const char *path, char **err)
{
    static const char *const allowed[] = {"function", "timer", "replacement", "description", NULL};
    if (!json_is_array(arr))
        return fail(err, path, "\"timer_replacements\" must be an array%s", "");
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e) {
        const char *timer = json_is_object(e) ? opt_string(e, "timer") : NULL;
        const char *repl = timer ? opt_string(e, "replacement") : NULL;
        if (!timer || !repl)
            return fail(err, path,
                        "each \"timer_replacements\" entry needs \"timer\" and \"replacement\"%s", "");
        if (!check_keys(e, allowed, path, "a \"timer_replacements\" entry", err))
            return false;
        hs_timer_replacement *r = hs_xcalloc(1, sizeof *r);
        const char *fn = opt_string(e, "function");
        const char *desc = opt_string(e, "description");
        r->function = fn ? hs_xstrdup(fn) : NULL;
        r->timer = hs_xstrdup(timer);
        r->replacement = hs_xstrdup(repl);
        r->description = hs_xstrdup(desc ? desc : "use the project's cached time");
        hs_vec_push(&rd->replacements, r);
    }
    return true;
}

bool hs_ruledata_load_file(hs_ruledata *rd, const char *path, char **err)
{
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr);
    if (!root) {
        if (jerr.line < 0)
            *err = hs_printf("%s: %s", path, jerr.text);
        else
            *err = hs_printf("%s:%d:%d: %s", path, jerr.line, jerr.column, jerr.text);
        return false;
    }
    bool ok = true;
    if (!json_is_object(root)) {
        ok = fail(err, path, "the top level must be an object%s", "");
        goto out;
    }
    const char *key;
    json_t *val;
    json_object_foreach(root, key, val) {
        if (strcmp(key, "description") == 0 || strcmp(key, "comment") == 0) {
            continue;
        } else if (strcmp(key, "timers") == 0) {
            ok = load_timers(rd, val, path, err);
        } else if (strcmp(key, "clock_ids") == 0) {
            ok = load_clock_ids(rd, val, path, err);
        } else if (strcmp(key, "blocking_functions") == 0) {
            ok = load_name_set(rd->blocking, val, path, key, err);
        } else if (strcmp(key, "hot_functions") == 0) {
            hs_strmap *tmp = hs_strmap_create();
            ok = load_name_set(tmp, val, path, key, err);
            const char *name;
            for (size_t it = 0; ok && hs_strmap_next(tmp, &it, &name, NULL);)
                hs_vec_push(&rd->hot_functions, hs_xstrdup(name));
            hs_strmap_delete(tmp);
        } else if (strcmp(key, "atomic_wrappers") == 0) {
            if (!json_is_array(val)) {
                ok = fail(err, path, "\"atomic_wrappers\" must be an array%s", "");
            } else {
                size_t i;
                json_t *e;
                json_array_foreach(val, i, e) {
                    if (!json_is_object(e) || !opt_string(e, "name")) {
                        ok = fail(err, path, "each \"atomic_wrappers\" entry needs a \"name\"%s", "");
                        break;
                    }
                    hs_vec_push(&rd->atomic_wrappers, json_incref(e));
                }
            }
        } else if (strcmp(key, "relaxed_types") == 0) {
            ok = load_name_set(rd->relaxed_types, val, path, key, err);
        } else if (strcmp(key, "events") == 0) {
            ok = load_events(rd, val, path, err);
        } else if (strcmp(key, "event_types") == 0) {
            ok = load_name_set(rd->event_types, val, path, key, err);
        } else if (strcmp(key, "timer_replacements") == 0) {
            ok = load_replacements(rd, val, path, err);
        } else {
            ok = fail(err, path, "unknown section \"%s\"", key);
        }
        if (!ok)
            break;
    }
    if (ok)
        hs_vec_push(&rd->files, hs_xstrdup(path));
out:
    json_decref(root);
    return ok;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Adds DIR's *.json files to `names`; with `depth` > 0 also those of its subfolders. */
static void list_rule_files(const char *dir, int depth, hs_vec *names)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *ent;
    while ((ent = readdir(d)) != NULL) {
        if (ent->d_name[0] == '.')
            continue;
        size_t n = strlen(ent->d_name);
        char *path = hs_path_join(dir, ent->d_name);
        struct stat st;
        if (n > 5 && strcmp(ent->d_name + n - 5, ".json") == 0) {
            hs_vec_push(names, path);
            continue;
        }
        if (depth > 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
            list_rule_files(path, depth - 1, names);
        free(path);
    }
    closedir(d);
}

/* A rule-data directory holds *.json files, directly or one folder down (the bundled
 * rules/ keeps each family's data beside its code: rules/timers/timers.json). */
bool hs_ruledata_load_dir(hs_ruledata *rd, const char *dir, char **err)
{
    DIR *d = opendir(dir);
    if (!d) {
        *err = hs_printf("%s: cannot open rule-data directory: %m", dir);
        return false;
    }
    closedir(d);
    hs_vec names = {0};
    list_rule_files(dir, 1, &names);
    if (names.len)
        qsort(names.items, names.len, sizeof(void *), cmp_str);
    size_t files_before = rd->files.len;
    bool ok = true;
    for (size_t i = 0; i < names.len; i++) {
        if (ok)
            ok = hs_ruledata_load_file(rd, names.items[i], err);
        free(names.items[i]);
    }
    hs_vec_free(&names);
    if (ok && rd->files.len == files_before) {
        *err = hs_printf("%s: no rule-data files (*.json) found", dir);
        return false;
    }
    return ok;
}

static bool name_matches(const char *pattern, const char *name)
{
    size_t pl = strlen(pattern);
    if (pl > 0 && pattern[pl - 1] == '*')
        return strncmp(pattern, name, pl - 1) == 0;
    return strcmp(pattern, name) == 0;
}

const hs_timer_api *hs_ruledata_find_timer(const hs_ruledata *rd, const char *qualified_name)
{
    /* Later entries win, so a project file can override a bundled one. */
    for (size_t i = rd->timers.len; i-- > 0;) {
        const hs_timer_api *t = rd->timers.items[i];
        if (name_matches(t->name, qualified_name))
            return t;
    }
    return NULL;
}

const hs_event_api *hs_ruledata_find_event(const hs_ruledata *rd, const char *qualified_name)
{
    for (size_t i = rd->events.len; i-- > 0;) {
        const hs_event_api *e = rd->events.items[i];
        if (name_matches(e->name, qualified_name))
            return e;
    }
    return NULL;
}

bool hs_ruledata_is_blocking(const hs_ruledata *rd, const char *qualified_name)
{
    return hs_strmap_has(rd->blocking, qualified_name);
}

bool hs_ruledata_clock_id_cost(const hs_ruledata *rd, const char *clock_id, hs_cost *out)
{
    void *v = hs_strmap_get(rd->clock_ids, clock_id);
    if (!v)
        return false;
    *out = (hs_cost)((intptr_t)v - 1);
    return true;
}

char *hs_ruledata_default_dir(void)
{
    const char *env = getenv("HOTSCAN_RULES_DIR");
    if (env && env[0])
        return hs_xstrdup(env);
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *dir = hs_dirname(exe);
        char *candidates[2] = {hs_path_join(dir, "rules"), hs_path_join(dir, "../share/hotscan/rules")};
        free(dir);
        char *found = NULL;
        for (int i = 0; i < 2; i++) {
            if (!found && access(candidates[i], R_OK) == 0)
                found = candidates[i];
            else
                free(candidates[i]);
        }
        if (found)
            return found;
    }
#ifdef HOTSCAN_SOURCE_RULES_DIR
    return hs_xstrdup(HOTSCAN_SOURCE_RULES_DIR);
#else
    return hs_xstrdup("rules");
#endif
}
