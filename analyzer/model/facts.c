/*
 * facts.c - the string interner and the typed readers every fact family's reader is built
 * from (facts.h).
 */
#include "hotscan/facts.h"

#include <stdlib.h>
#include <string.h>

#include "hotscan/common.h"
#include "hotscan/strmap.h"

/* The map owns each key, and its copy is the interned string (keys never move). */
struct hs_intern {
    hs_strmap *strings;
};

hs_intern *hs_intern_create(void)
{
    hs_intern *in = hs_xcalloc(1, sizeof *in);
    in->strings = hs_strmap_create();
    return in;
}

void hs_intern_delete(hs_intern *in)
{
    if (!in)
        return;
    hs_strmap_delete(in->strings);
    free(in);
}

const char *hs_intern_str(hs_intern *in, const char *s)
{
    if (!s)
        return NULL;
    const char *found = hs_strmap_key(in->strings, s);
    if (found)
        return found;
    hs_strmap_put(in->strings, s, NULL);
    return hs_strmap_key(in->strings, s);
}

size_t hs_intern_count(const hs_intern *in)
{
    return hs_strmap_size(in->strings);
}

const char *hs_facts_str(hs_intern *in, json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    /* jansson's strings are NUL-terminated: interned as they are, with no copy first. */
    return json_is_string(v) ? hs_intern_str(in, json_string_value(v)) : NULL;
}

long long hs_facts_int(json_t *obj, const char *key, long long absent)
{
    json_t *v = json_object_get(obj, key);
    return json_is_integer(v) ? (long long)json_integer_value(v) : absent;
}

unsigned hs_facts_uint(json_t *obj, const char *key)
{
    return (unsigned)json_integer_value(json_object_get(obj, key));
}

bool hs_facts_bool(json_t *obj, const char *key)
{
    return json_is_true(json_object_get(obj, key));
}

bool hs_facts_has(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return v && !json_is_null(v);
}

void hs_facts_site(hs_intern *in, json_t *obj, hs_site *out)
{
    out->file = hs_facts_str(in, obj, "file");
    out->line = hs_facts_uint(obj, "line");
    out->column = hs_facts_uint(obj, "column");
    /* A fact without an end (a declaration) ends where it starts. */
    bool has_end = json_object_get(obj, "end_line") && json_object_get(obj, "end_column");
    out->end_line = has_end ? hs_facts_uint(obj, "end_line") : out->line;
    out->end_column = has_end ? hs_facts_uint(obj, "end_column") : out->column;
    out->offset = hs_facts_uint(obj, "offset");
    out->length = hs_facts_uint(obj, "length");
}

void hs_facts_place(hs_intern *in, json_t *obj, const char *key, hs_place *out)
{
    json_t *p = json_object_get(obj, key);
    out->file = hs_facts_str(in, p, "file");
    out->line = hs_facts_uint(p, "line");
    out->column = hs_facts_uint(p, "column");
}

hs_param_guard *hs_facts_guards(json_t *arr, size_t *n)
{
    *n = json_array_size(arr);
    if (*n == 0)
        return NULL;
    hs_param_guard *g = hs_xcalloc(*n, sizeof *g);
    for (size_t i = 0; i < *n; i++) {
        json_t *e = json_array_get(arr, i);
        g[i].param = (int)json_integer_value(json_array_get(e, 0));
        g[i].nonzero = json_is_true(json_array_get(e, 1));
    }
    return g;
}

hs_const_arg *hs_facts_const_args(json_t *arr, size_t *n)
{
    *n = json_array_size(arr);
    if (*n == 0)
        return NULL;
    hs_const_arg *a = hs_xcalloc(*n, sizeof *a);
    for (size_t i = 0; i < *n; i++) {
        json_t *e = json_array_get(arr, i);
        a[i].index = (unsigned)json_integer_value(json_array_get(e, 0));
        a[i].value = (long long)json_integer_value(json_array_get(e, 1));
    }
    return a;
}

bool hs_guards_contradicted(const hs_param_guard *guards, size_t n_guards, const hs_const_arg *args,
                            size_t n_args)
{
    for (size_t g = 0; g < n_guards; g++)
        for (size_t a = 0; a < n_args; a++)
            if (guards[g].param >= 0 && (unsigned)guards[g].param == args[a].index &&
                (args[a].value != 0) != guards[g].nonzero)
                return true;
    return false;
}
