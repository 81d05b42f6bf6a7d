/*
 * strmap.c - open addressing with linear probing; grows at 70% load.
 */
#include "hotscan/strmap.h"
#include "hotscan/common.h"

#include <stdlib.h>
#include <string.h>

struct hs_strmap {
    char **keys;
    void **values;
    size_t cap;
    size_t len;
    bool borrowing; /* keys are the caller's, neither copied nor freed */
};

static size_t hash_key(const char *k)
{
    return (size_t)hs_table_hash(k, strlen(k));
}

hs_strmap *hs_strmap_create(void)
{
    hs_strmap *m = hs_xcalloc(1, sizeof *m);
    m->cap = 64;
    m->keys = hs_xcalloc(m->cap, sizeof(char *));
    m->values = hs_xcalloc(m->cap, sizeof(void *));
    return m;
}

hs_strmap *hs_strmap_create_borrowing(void)
{
    hs_strmap *m = hs_strmap_create();
    m->borrowing = true;
    return m;
}

void hs_strmap_delete(hs_strmap *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->cap && !m->borrowing; i++)
        free(m->keys[i]);
    free(m->keys);
    free(m->values);
    free(m);
}

static size_t find_slot(const hs_strmap *m, const char *key)
{
    size_t i = hash_key(key) & (m->cap - 1);
    while (m->keys[i] && strcmp(m->keys[i], key) != 0)
        i = (i + 1) & (m->cap - 1);
    return i;
}

static void grow(hs_strmap *m)
{
    size_t old_cap = m->cap;
    char **old_keys = m->keys;
    void **old_values = m->values;
    m->cap *= 2;
    m->keys = hs_xcalloc(m->cap, sizeof(char *));
    m->values = hs_xcalloc(m->cap, sizeof(void *));
    for (size_t i = 0; i < old_cap; i++) {
        if (!old_keys[i])
            continue;
        size_t j = find_slot(m, old_keys[i]);
        m->keys[j] = old_keys[i];
        m->values[j] = old_values[i];
    }
    free(old_keys);
    free(old_values);
}

void *hs_strmap_put(hs_strmap *m, const char *key, void *value)
{
    if ((m->len + 1) * 10 >= m->cap * 7)
        grow(m);
    size_t i = find_slot(m, key);
    if (m->keys[i]) {
        void *old = m->values[i];
        m->values[i] = value;
        return old;
    }
    m->keys[i] = m->borrowing ? (char *)key : hs_xstrdup(key);
    m->values[i] = value;
    m->len++;
    return NULL;
}

void *hs_strmap_get(const hs_strmap *m, const char *key)
{
    size_t i = find_slot(m, key);
    return m->keys[i] ? m->values[i] : NULL;
}

const char *hs_strmap_key(const hs_strmap *m, const char *key)
{
    return m->keys[find_slot(m, key)];
}

bool hs_strmap_has(const hs_strmap *m, const char *key)
{
    return m->keys[find_slot(m, key)] != NULL;
}

void hs_strmap_sorted_keys(const hs_strmap *m, hs_vec *out)
{
    size_t before = out->len;
    for (size_t i = 0; i < m->cap; i++)
        if (m->keys[i])
            hs_vec_push(out, m->keys[i]);
    qsort(out->items + before, out->len - before, sizeof *out->items, hs_compare_strings);
}

size_t hs_strmap_size(const hs_strmap *m)
{
    return m->len;
}

bool hs_strmap_next(const hs_strmap *m, size_t *iter, const char **key, void **value)
{
    while (*iter < m->cap) {
        size_t i = (*iter)++;
        if (m->keys[i]) {
            if (key)
                *key = m->keys[i];
            if (value)
                *value = m->values[i];
            return true;
        }
    }
    return false;
}

void hs_strmap_push(hs_strmap *m, const char *key, void *item)
{
    hs_vec *list = hs_strmap_get(m, key);
    if (!list) {
        list = hs_xcalloc(1, sizeof *list);
        hs_strmap_put(m, key, list);
    }
    hs_vec_push(list, item);
}

void hs_strmap_delete_lists(hs_strmap *m, void (*free_item)(void *))
{
    const char *key;
    void *value;
    for (size_t it = 0; hs_strmap_next(m, &it, &key, &value);) {
        hs_vec *list = value;
        for (size_t i = 0; free_item && i < list->len; i++)
            free_item(list->items[i]);
        hs_vec_free(list);
        free(list);
    }
    hs_strmap_delete(m);
}
