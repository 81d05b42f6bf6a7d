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
#include <errno.h>
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
    rd->calibration = hs_strmap_create();
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
    const char *cal_key;
    void *cal_value;
    for (size_t it = 0; hs_strmap_next(rd->calibration, &it, &cal_key, &cal_value);)
        free(cal_value);
    hs_strmap_delete(rd->calibration);
    free(rd->calibration_host);
    hs_strmap_delete(rd->blocking);
    hs_strmap_delete(rd->relaxed_types);
    hs_strmap_delete(rd->event_types);
    free(rd);
}

/*
 * Errors name the file, the place in the document (`timers[2].cost`, as a JSON path from the
 * top) and what was expected: "FILE: timers[2].cost: expected one of syscall, vdso, coarse,
 * cycle-counter; got \"cheap\"".
 */
static bool bad(char **err, const char *file, const char *where, const char *expected, json_t *got)
{
    char *shown = got ? json_dumps(got, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    if (shown && strlen(shown) > 60)
        strcpy(shown + 56, "...");
    if (got)
        *err = hs_printf("%s: %s: expected %s; got %s", file, where, expected, shown ? shown : "?");
    else
        *err = hs_printf("%s: %s: expected %s", file, where, expected);
    free(shown);
    return false;
}

/* The name of the entry being loaded, shown beside its index (set per entry). */
static const char *entry_name;

static void set_entry(json_t *e, const char *name_key)
{
    json_t *v = json_object_get(e, name_key);
    entry_name = json_is_string(v) ? json_string_value(v) : NULL;
}

static char *at(const char *section, size_t i, const char *key)
{
    char *name = entry_name ? hs_printf(" (\"%s\")", entry_name) : hs_xstrdup("");
    char *r = key ? hs_printf("%s[%zu]%s.%s", section, i, name, key)
                  : hs_printf("%s[%zu]%s", section, i, name);
    free(name);
    return r;
}

/* Checks one field of an entry with `check`; frees the path it builds. */
static bool field_bad(char **err, const char *file, const char *section, size_t i, const char *key,
                      const char *expected, json_t *got)
{
    char *where = at(section, i, key);
    bad(err, file, where, expected, got);
    free(where);
    return false;
}

static bool check_keys(json_t *obj, const char *const *allowed, const char *file,
                       const char *section, size_t index, char **err)
{
    const char *key;
    json_t *val;
    json_object_foreach(obj, key, val) {
        bool ok = false;
        for (size_t i = 0; allowed[i]; i++)
            if (strcmp(key, allowed[i]) == 0)
                ok = true;
        if (!ok) {
            hs_buf keys;
            hs_buf_init(&keys);
            hs_buf_puts(&keys, "one of the keys");
            for (size_t i = 0; allowed[i]; i++)
                hs_buf_printf(&keys, "%s %s", i ? "," : "", allowed[i]);
            char *where = at(section, index, key);
            *err = hs_printf("%s: %s: unknown key; expected %s", file, where, keys.data);
            free(where);
            hs_buf_free(&keys);
            return false;
        }
    }
    return true;
}

/* An optional string field; true when absent or a string (*out NULL when absent). */
static bool string_field(json_t *obj, const char *key, bool required, const char **out,
                         const char *file, const char *section, size_t i, char **err)
{
    json_t *v = json_object_get(obj, key);
    *out = NULL;
    if (!v && !required)
        return true;
    if (!json_is_string(v) || (required && !json_string_value(v)[0]))
        return field_bad(err, file, section, i, key,
                         required ? "a non-empty string (required)" : "a string", v);
    *out = json_string_value(v);
    return true;
}

static bool int_field(json_t *obj, const char *key, int *out, const char *file,
                      const char *section, size_t i, char **err)
{
    json_t *v = json_object_get(obj, key);
    if (!v) {
        *out = -1;
        return true;
    }
    if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 16)
        return field_bad(err, file, section, i, key, "an argument index, an integer from 0 to 16", v);
    *out = (int)json_integer_value(v);
    return true;
}

/* A name: non-empty, no space, and no wildcard but, where `star` allows it, one trailing `*`
 * (a prefix match). Glob-looking names (`a*b`, `f?`, `[ab]`) match nothing and are refused. */
static bool name_ok(const char *name, bool star)
{
    if (!name[0])
        return false;
    size_t n = strlen(name);
    for (size_t k = 0; k < n; k++) {
        char c = name[k];
        if (c == '*' && star && k == n - 1 && n > 1)
            continue;
        if (c == '*' || c == '?' || c == '[' || c == ']' || c == ' ' || c == '\t' || c == '\n')
            return false;
    }
    return true;
}

static bool name_field(json_t *obj, const char *key, bool star, const char **out, const char *file,
                       const char *section, size_t i, char **err)
{
    if (!string_field(obj, key, true, out, file, section, i, err))
        return false;
    if (!name_ok(*out, star))
        return field_bad(err, file, section, i, key,
                         star ? "a function name, with at most one `*` at its end (a prefix match)"
                              : "a function name without wildcards (matched exactly)",
                         json_object_get(obj, key));
    return true;
}

static bool enum_field(json_t *obj, const char *key, bool required, const char *const *values,
                       const char **out, const char *file, const char *section, size_t i,
                       char **err)
{
    json_t *v = json_object_get(obj, key);
    *out = NULL;
    if (!v && !required)
        return true;
    if (json_is_string(v))
        for (size_t k = 0; values[k]; k++)
            if (strcmp(json_string_value(v), values[k]) == 0) {
                *out = values[k];
                return true;
            }
    hs_buf list;
    hs_buf_init(&list);
    hs_buf_puts(&list, "one of");
    for (size_t k = 0; values[k]; k++)
        hs_buf_printf(&list, "%s %s", k ? "," : "", values[k]);
    if (required)
        hs_buf_puts(&list, " (required)");
    field_bad(err, file, section, i, key, list.data, v);
    hs_buf_free(&list);
    return false;
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

/* An array of objects: each entry must be an object. */
static bool entries(json_t *arr, const char *file, const char *section, char **err)
{
    entry_name = NULL;
    if (!json_is_array(arr))
        return bad(err, file, section, "an array of objects", arr);
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e) if (!json_is_object(e)) return field_bad(err, file, section, i,
                                                                           NULL, "an object", e);
    return true;
}

static const char *const cost_values[] = {"syscall", "vdso", "coarse", "cycle-counter", NULL};

static bool load_timers(hs_ruledata *rd, json_t *arr, const char *path, char **err)
{
    static const char *const allowed[] = {"name", "clock", "cost", "clock_id_arg", "out_arg",
                                          "note", NULL};
    const char *sec = "timers";
    if (!entries(arr, path, sec, err))
        return false;
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e) {
        const char *name, *cost, *clock, *note;
        int clock_id_arg, out_arg;
        set_entry(e, "name");
        if (!check_keys(e, allowed, path, sec, i, err) ||
            !name_field(e, "name", true, &name, path, sec, i, err) ||
            !enum_field(e, "cost", true, cost_values, &cost, path, sec, i, err) ||
            !string_field(e, "clock", false, &clock, path, sec, i, err) ||
            !string_field(e, "note", false, &note, path, sec, i, err) ||
            !int_field(e, "clock_id_arg", &clock_id_arg, path, sec, i, err) ||
            !int_field(e, "out_arg", &out_arg, path, sec, i, err))
            return false;
        hs_timer_api *t = hs_xcalloc(1, sizeof *t);
        hs_cost_parse(cost, &t->cost);
        t->clock_id_arg = clock_id_arg;
        t->out_arg = out_arg;
        t->name = hs_xstrdup(name);
        t->clock = hs_xstrdup(clock ? clock : "a clock");
        t->origin = hs_xstrdup(path);
        replace_or_push(&rd->timers, t, t->name, offsetof(hs_timer_api, name), free_timer_void);
    }
    return true;
}

static bool load_name_set(hs_strmap *set, json_t *arr, const char *path, const char *section,
                          char **err)
{
    if (!json_is_array(arr))
        return bad(err, path, section, "an array of function or type names", arr);
    size_t i;
    json_t *e;
    entry_name = NULL;
    json_array_foreach(arr, i, e) {
        if (!json_is_string(e) || !name_ok(json_string_value(e), false))
            return field_bad(err, path, section, i, NULL,
                             "a name without wildcards (matched exactly)", e);
        hs_strmap_put(set, json_string_value(e), (void *)1);
    }
    return true;
}

/* "calibration": what `hotscan calibrate` measured: {"host": "...", "measured": "...",
 * "method": "...", "ns_per_call": {"clock()": 1362.5, ...}}. */
static bool load_calibration(hs_ruledata *rd, json_t *obj, const char *path, char **err)
{
    if (!json_is_object(obj))
        return bad(err, path, "calibration", "an object (host, measured, method, ns_per_call)", obj);
    const char *key;
    json_t *val;
    json_object_foreach(obj, key, val) {
        if (strcmp(key, "host") == 0 || strcmp(key, "measured") == 0 || strcmp(key, "method") == 0) {
            char *where = hs_printf("calibration.%s", key);
            bool ok = json_is_string(val) || bad(err, path, where, "a string", val);
            free(where);
            if (!ok)
                return false;
            if (strcmp(key, "host") == 0) {
                free(rd->calibration_host);
                rd->calibration_host = hs_xstrdup(json_string_value(val));
            }
        } else if (strcmp(key, "ns_per_call") == 0) {
            if (!json_is_object(val))
                return bad(err, path, "calibration.ns_per_call", "an object mapping reads to nanoseconds", val);
            const char *name;
            json_t *ns;
            json_object_foreach(val, name, ns) {
                if (!json_is_number(ns) || json_number_value(ns) < 0) {
                    char *where = hs_printf("calibration.ns_per_call.%s", name);
                    bad(err, path, where, "a number of nanoseconds (0 or more)", ns);
                    free(where);
                    return false;
                }
                double *v = hs_xmalloc(sizeof *v);
                *v = json_number_value(ns);
                free(hs_strmap_put(rd->calibration, name, v));
            }
        } else {
            *err = hs_printf("%s: calibration.%s: unknown key; expected host, measured, method, ns_per_call",
                             path, key);
            return false;
        }
    }
    return true;
}

bool hs_ruledata_calibrated_ns(const hs_ruledata *rd, const char *read_name, double *ns)
{
    const double *v = hs_strmap_get(rd->calibration, read_name);
    if (v)
        *ns = *v;
    return v != NULL;
}

static bool load_clock_ids(hs_ruledata *rd, json_t *obj, const char *path, char **err)
{
    if (!json_is_object(obj))
        return bad(err, path, "clock_ids", "an object mapping clock id names to cost classes", obj);
    const char *key;
    json_t *val;
    json_object_foreach(obj, key, val) {
        hs_cost c;
        if (!json_is_string(val) || !hs_cost_parse(json_string_value(val), &c)) {
            char *where = hs_printf("clock_ids.%s", key);
            bad(err, path, where, "one of syscall, vdso, coarse, cycle-counter", val);
            free(where);
            return false;
        }
        hs_strmap_put(rd->clock_ids, key, (void *)(intptr_t)(c + 1));
    }
    return true;
}

static bool load_events(hs_ruledata *rd, json_t *arr, const char *path, char **err)
{
    static const char *const allowed[] = {"name", "kind", "object_arg", "note", NULL};
    static const char *const kinds[] = {"create", "set",       "try_set", "is_set",
                                        "reset",  "wait",      "wait_time", "destroy", NULL};
    const char *sec = "events";
    if (!entries(arr, path, sec, err))
        return false;
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e) {
        const char *name, *kind, *note;
        int object_arg;
        set_entry(e, "name");
        if (!check_keys(e, allowed, path, sec, i, err) ||
            !name_field(e, "name", true, &name, path, sec, i, err) ||
            !enum_field(e, "kind", true, kinds, &kind, path, sec, i, err) ||
            !string_field(e, "note", false, &note, path, sec, i, err) ||
            !int_field(e, "object_arg", &object_arg, path, sec, i, err))
            return false;
        hs_event_api *ev = hs_xcalloc(1, sizeof *ev);
        ev->object_arg = object_arg;
        ev->name = hs_xstrdup(name);
        ev->kind = hs_xstrdup(kind);
        ev->origin = hs_xstrdup(path);
        replace_or_push(&rd->events, ev, ev->name, offsetof(hs_event_api, name), free_event_void);
    }
    return true;
}

static bool load_atomic_wrappers(hs_ruledata *rd, json_t *arr, const char *path, char **err)
{
    static const char *const allowed[] = {"name",  "op",        "object_arg", "value_arg",
                                          "order", "order_arg", "note",       NULL};
    static const char *const ops[] = {"fetch_add", "add_fetch", "fetch_sub", "sub_fetch",
                                      "load",      "store",     "exchange",  "cas",
                                      "bitwise",   "wait",      "other",     NULL};
    static const char *const orders[] = {"relaxed", "consume", "acquire", "release",
                                         "acq_rel", "seq_cst", NULL};
    const char *sec = "atomic_wrappers";
    if (!entries(arr, path, sec, err))
        return false;
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e) {
        const char *name, *op, *order, *note;
        int n;
        set_entry(e, "name");
        if (!check_keys(e, allowed, path, sec, i, err) ||
            !name_field(e, "name", true, &name, path, sec, i, err) ||
            !enum_field(e, "op", false, ops, &op, path, sec, i, err) ||
            !enum_field(e, "order", false, orders, &order, path, sec, i, err) ||
            !string_field(e, "note", false, &note, path, sec, i, err) ||
            !int_field(e, "object_arg", &n, path, sec, i, err) ||
            !int_field(e, "value_arg", &n, path, sec, i, err) ||
            !int_field(e, "order_arg", &n, path, sec, i, err))
            return false;
        hs_vec_push(&rd->atomic_wrappers, json_incref(e));
    }
    return true;
}

static bool load_replacements(hs_ruledata *rd, json_t *arr, const char *path, char **err)
{
    static const char *const allowed[] = {"function", "timer", "replacement", "description", NULL};
    const char *sec = "timer_replacements";
    if (!entries(arr, path, sec, err))
        return false;
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e) {
        const char *fn, *timer, *repl, *desc;
        set_entry(e, "timer");
        if (!check_keys(e, allowed, path, sec, i, err) ||
            !string_field(e, "function", false, &fn, path, sec, i, err) ||
            !name_field(e, "timer", false, &timer, path, sec, i, err) ||
            !string_field(e, "replacement", true, &repl, path, sec, i, err) ||
            !string_field(e, "description", false, &desc, path, sec, i, err))
            return false;
        if (fn && !name_ok(fn, false))
            return field_bad(err, path, sec, i, "function",
                             "a function name without wildcards (matched exactly)",
                             json_object_get(e, "function"));
        hs_timer_replacement *r = hs_xcalloc(1, sizeof *r);
        r->function = fn ? hs_xstrdup(fn) : NULL;
        r->timer = hs_xstrdup(timer);
        r->replacement = hs_xstrdup(repl);
        r->description = hs_xstrdup(desc ? desc : "use the project's cached time");
        hs_vec_push(&rd->replacements, r);
    }
    return true;
}

/* Rule-data files are small; anything larger is not one. */
#define MAX_RULE_FILE_BYTES ((size_t)16 << 20)

bool hs_ruledata_load_text(hs_ruledata *rd, const char *path, const char *text, size_t size,
                           char **err)
{
    json_error_t jerr;
    json_t *root = json_loadb(text, size, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        if (jerr.line < 0)
            *err = hs_printf("%s: %s", path, jerr.text);
        else
            *err = hs_printf("%s:%d:%d: %s", path, jerr.line, jerr.column, jerr.text);
        return false;
    }
    bool ok = true;
    if (!json_is_object(root)) {
        ok = bad(err, path, "the top level", "an object of sections", root);
        goto out;
    }
    const char *key;
    json_t *val;
    json_object_foreach(root, key, val) {
        if (strcmp(key, "description") == 0 || strcmp(key, "comment") == 0) {
            if (!json_is_string(val))
                ok = bad(err, path, key, "a string (free text)", val);
        } else if (strcmp(key, "timers") == 0) {
            ok = load_timers(rd, val, path, err);
        } else if (strcmp(key, "clock_ids") == 0) {
            ok = load_clock_ids(rd, val, path, err);
        } else if (strcmp(key, "calibration") == 0) {
            ok = load_calibration(rd, val, path, err);
        } else if (strcmp(key, "blocking_functions") == 0) {
            ok = load_name_set(rd->blocking, val, path, key, err);
        } else if (strcmp(key, "hot_functions") == 0) {
            hs_strmap *tmp = hs_strmap_create();
            ok = load_name_set(tmp, val, path, key, err);
            hs_vec names = {0};
            if (ok)
                hs_strmap_sorted_keys(tmp, &names);
            for (size_t i = 0; i < names.len; i++)
                hs_vec_push(&rd->hot_functions, hs_xstrdup(names.items[i]));
            hs_vec_free(&names);
            hs_strmap_delete(tmp);
        } else if (strcmp(key, "atomic_wrappers") == 0) {
            ok = load_atomic_wrappers(rd, val, path, err);
        } else if (strcmp(key, "relaxed_types") == 0) {
            ok = load_name_set(rd->relaxed_types, val, path, key, err);
        } else if (strcmp(key, "events") == 0) {
            ok = load_events(rd, val, path, err);
        } else if (strcmp(key, "event_types") == 0) {
            ok = load_name_set(rd->event_types, val, path, key, err);
        } else if (strcmp(key, "timer_replacements") == 0) {
            ok = load_replacements(rd, val, path, err);
        } else {
            *err = hs_printf("%s: %s: unknown section; expected one of description, comment, "
                             "timers, clock_ids, blocking_functions, hot_functions, "
                             "atomic_wrappers, relaxed_types, events, event_types, "
                             "timer_replacements, calibration", path, key);
            ok = false;
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

bool hs_ruledata_load_file(hs_ruledata *rd, const char *path, char **err)
{
    size_t size;
    char *text = hs_read_file_max(path, MAX_RULE_FILE_BYTES, &size);
    if (!text) {
        *err = errno == EFBIG ? hs_printf("%s: larger than %zu MiB; not a rule-data file", path,
                                          MAX_RULE_FILE_BYTES >> 20)
                              : hs_printf("%s: %s", path, strerror(errno));
        return false;
    }
    bool ok = hs_ruledata_load_text(rd, path, text, size, err);
    free(text);
    return ok;
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
    hs_list_json_files(dir, 1, &names);
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

hs_ruledata *hs_ruledata_load_all(char *const *extra, size_t n, char **err)
{
    hs_ruledata *rd = hs_ruledata_create();
    char *dir = hs_ruledata_default_dir();
    bool ok = hs_ruledata_load_dir(rd, dir, err);
    free(dir);
    for (size_t i = 0; ok && i < n; i++) {
        size_t len = strlen(extra[i]);
        ok = (len > 5 && strcmp(extra[i] + len - 5, ".json") == 0) ? hs_ruledata_load_file(rd, extra[i], err)
                                                                  : hs_ruledata_load_dir(rd, extra[i], err);
    }
    if (!ok) {
        hs_ruledata_delete(rd);
        return NULL;
    }
    return rd;
}
