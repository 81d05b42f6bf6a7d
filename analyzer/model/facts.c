/*
 * facts.c - the string interner and the typed readers every fact family's reader is built
 * from (facts.h).
 */
#include "hotscan/facts.h"

#include <stdlib.h>
#include <string.h>

#include "hotscan/common.h"

/*
 * The interner: open addressing with linear probing over the strings themselves (no value
 * slots, grows at 70% load), the bytes bump-allocated in blocks that never move or get
 * freed before the interner. Every string of the program model is here; a malloc'd copy
 * per string in a string map cost about 30 bytes more each (chunk header and rounding, a
 * value slot), a tenth of the model on a synthetic tree.
 */
#define INTERN_BLOCK (64 * 1024)

typedef struct intern_block {
    struct intern_block *next;
    size_t used, size;
    char bytes[];
} intern_block;

struct hs_intern {
    const char **slots;
    size_t cap, len;
    intern_block *blocks;  /* the newest first */
};

hs_intern *hs_intern_create(void)
{
    hs_intern *in = hs_xcalloc(1, sizeof *in);
    in->cap = 256;
    in->slots = hs_xcalloc(in->cap, sizeof *in->slots);
    return in;
}

void hs_intern_delete(hs_intern *in)
{
    if (!in)
        return;
    for (intern_block *b = in->blocks, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    free(in->slots);
    free(in);
}

static size_t intern_slot(const hs_intern *in, const char *s, size_t n)
{
    size_t i = (size_t)hs_table_hash(s, n) & (in->cap - 1);
    while (in->slots[i] && strcmp(in->slots[i], s) != 0)
        i = (i + 1) & (in->cap - 1);
    return i;
}

static void intern_grow(hs_intern *in)
{
    const char **old = in->slots;
    size_t old_cap = in->cap;
    in->cap *= 2;
    in->slots = hs_xcalloc(in->cap, sizeof *in->slots);
    for (size_t i = 0; i < old_cap; i++)
        if (old[i])
            in->slots[intern_slot(in, old[i], strlen(old[i]))] = old[i];
    free(old);
}

/* A copy of s (n bytes and a NUL) in the newest block, or in a block of its own when long. */
static const char *intern_copy(hs_intern *in, const char *s, size_t n)
{
    intern_block *b = in->blocks;
    if (!b || b->size - b->used < n + 1) {
        size_t size = n + 1 > INTERN_BLOCK / 4 ? n + 1 : INTERN_BLOCK - sizeof *b;
        intern_block *fresh = hs_xmalloc(sizeof *fresh + size);
        fresh->used = 0;
        fresh->size = size;
        if (size == n + 1 && b) {
            /* A long string's own block goes behind the newest, which keeps its room. */
            fresh->next = b->next;
            b->next = fresh;
        } else {
            fresh->next = b;
            in->blocks = fresh;
        }
        b = fresh;
    }
    char *copy = b->bytes + b->used;
    memcpy(copy, s, n);
    copy[n] = '\0';
    b->used += n + 1;
    return copy;
}

const char *hs_intern_str(hs_intern *in, const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s);
    size_t i = intern_slot(in, s, n);
    if (in->slots[i])
        return in->slots[i];
    if ((in->len + 1) * 10 >= in->cap * 7) {
        intern_grow(in);
        i = intern_slot(in, s, n);
    }
    in->slots[i] = intern_copy(in, s, n);
    in->len++;
    return in->slots[i];
}

size_t hs_intern_count(const hs_intern *in)
{
    return in->len;
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
