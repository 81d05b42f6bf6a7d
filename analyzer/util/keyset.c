/*
 * keyset.c - open addressing with linear probing over XXH3-128 digests (keyset.h); grows at
 * 70% load. The all-zero digest marks an empty slot, so a key whose digest is zero is
 * stored as {1, 0}.
 */
#include "hotscan/keyset.h"

#include <stdint.h>
#include <stdlib.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "hotscan/common.h"

typedef struct {
    uint64_t lo, hi;
} digest;

struct hs_keyset {
    digest *slots;
    size_t cap, len;
};

hs_keyset *hs_keyset_create(void)
{
    hs_keyset *s = hs_xcalloc(1, sizeof *s);
    s->cap = 64;
    s->slots = hs_xcalloc(s->cap, sizeof *s->slots);
    return s;
}

void hs_keyset_delete(hs_keyset *s)
{
    if (!s)
        return;
    free(s->slots);
    free(s);
}

static bool empty(digest d)
{
    return d.lo == 0 && d.hi == 0;
}

/* The slot holding `d`, or the empty one where it would go. */
static size_t find(const hs_keyset *s, digest d)
{
    size_t i = (size_t)d.lo & (s->cap - 1);
    while (!empty(s->slots[i]) && (s->slots[i].lo != d.lo || s->slots[i].hi != d.hi))
        i = (i + 1) & (s->cap - 1);
    return i;
}

static void grow(hs_keyset *s)
{
    digest *old = s->slots;
    size_t old_cap = s->cap;
    s->cap *= 2;
    s->slots = hs_xcalloc(s->cap, sizeof *s->slots);
    for (size_t i = 0; i < old_cap; i++)
        if (!empty(old[i]))
            s->slots[find(s, old[i])] = old[i];
    free(old);
}

static digest digest_of(const void *key, size_t n)
{
    XXH128_hash_t h = XXH3_128bits(key, n);
    digest d = {h.low64, h.high64};
    if (empty(d))
        d.lo = 1;
    return d;
}

bool hs_keyset_has(const hs_keyset *s, const void *key, size_t n)
{
    return !empty(s->slots[find(s, digest_of(key, n))]);
}

bool hs_keyset_add(hs_keyset *s, const void *key, size_t n)
{
    digest d = digest_of(key, n);
    size_t i = find(s, d);
    if (!empty(s->slots[i]))
        return false;
    if ((s->len + 1) * 10 >= s->cap * 7) {
        grow(s);
        i = find(s, d);
    }
    s->slots[i] = d;
    s->len++;
    return true;
}

size_t hs_keyset_size(const hs_keyset *s)
{
    return s->len;
}
