/*
 * ptrmap.c - open addressing with linear probing; grows at half load.
 */
#include "hotscan/ptrmap.h"
#include "hotscan/common.h"

#include <stdint.h>
#include <stdlib.h>

typedef struct {
    const void *key;
    void *value;
    int tag;
    bool used;
} entry;

struct hs_ptrmap {
    entry *slots;
    size_t cap, len; /* cap is a power of two */
};

static size_t slot_of(const void *key, int tag, size_t cap)
{
    uint64_t h = (uint64_t)(uintptr_t)key ^ ((uint64_t)(unsigned)tag << 32);
    h ^= h >> 29;
    h *= 0x9E3779B97F4A7C15ull;
    h ^= h >> 32;
    return (size_t)h & (cap - 1);
}

static entry *find(const hs_ptrmap *m, const void *key, int tag)
{
    size_t j = slot_of(key, tag, m->cap);
    while (m->slots[j].used && (m->slots[j].key != key || m->slots[j].tag != tag))
        j = (j + 1) & (m->cap - 1);
    return &m->slots[j];
}

hs_ptrmap *hs_ptrmap_create(void)
{
    hs_ptrmap *m = hs_xcalloc(1, sizeof *m);
    m->cap = 64;
    m->slots = hs_xcalloc(m->cap, sizeof(entry));
    return m;
}

void hs_ptrmap_delete(hs_ptrmap *m)
{
    if (!m)
        return;
    free(m->slots);
    free(m);
}

void hs_ptrmap_put(hs_ptrmap *m, const void *key, int tag, void *value)
{
    if (2 * (m->len + 1) > m->cap) {
        hs_ptrmap grown = {hs_xcalloc(2 * m->cap, sizeof(entry)), 2 * m->cap, m->len};
        for (size_t i = 0; i < m->cap; i++)
            if (m->slots[i].used)
                *find(&grown, m->slots[i].key, m->slots[i].tag) = m->slots[i];
        free(m->slots);
        *m = grown;
    }
    entry *e = find(m, key, tag);
    if (!e->used)
        m->len++;
    *e = (entry){key, value, tag, true};
}

bool hs_ptrmap_find(const hs_ptrmap *m, const void *key, int tag, void **value)
{
    const entry *e = find(m, key, tag);
    if (e->used && value)
        *value = e->value;
    return e->used;
}

void *hs_ptrmap_get(const hs_ptrmap *m, const void *key, int tag)
{
    const entry *e = find(m, key, tag);
    return e->used ? e->value : NULL;
}

size_t hs_ptrmap_size(const hs_ptrmap *m)
{
    return m->len;
}

bool hs_ptrmap_next(const hs_ptrmap *m, size_t *iter, void **value)
{
    while (*iter < m->cap) {
        const entry *e = &m->slots[(*iter)++];
        if (e->used) {
            if (value)
                *value = e->value;
            return true;
        }
    }
    return false;
}
