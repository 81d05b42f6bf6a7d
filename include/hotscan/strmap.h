/*
 * strmap.h - an open-addressing hash map from strings to pointers.
 *
 * Keys are copied and owned by the map (unless it borrows them:
 * hs_strmap_create_borrowing); values are not. Used for USR -> function,
 * file -> facts and the like, where the program model needs O(1) lookups over
 * hundreds of thousands of entries.
 */
#ifndef HOTSCAN_STRMAP_H
#define HOTSCAN_STRMAP_H

#include <stddef.h>
#include <stdbool.h>

#include "hotscan/common.h" /* hs_vec */

typedef struct hs_strmap hs_strmap;

hs_strmap *hs_strmap_create(void);
/* A map that keeps the key pointers it is given instead of copies: each key must stay
 * alive and unchanged until the map is deleted (the program model's interned strings).
 * Lookups compare contents, as in any map. */
hs_strmap *hs_strmap_create_borrowing(void);
void hs_strmap_delete(hs_strmap *m);
/* Returns the previous value for the key, or NULL. */
void *hs_strmap_put(hs_strmap *m, const char *key, void *value);
void *hs_strmap_get(const hs_strmap *m, const char *key);
bool hs_strmap_has(const hs_strmap *m, const char *key);
/* The map's own copy of `key` (stable until the map is deleted), or NULL when absent. */
const char *hs_strmap_key(const hs_strmap *m, const char *key);
size_t hs_strmap_size(const hs_strmap *m);

/* Iteration: for (size_t it = 0; hs_strmap_next(m, &it, &k, &v);) */
bool hs_strmap_next(const hs_strmap *m, size_t *iter, const char **key, void **value);
/* Appends the map's keys (its own copies, not to be freed) to `out` in strcmp order: for
 * anything a person reads, since hs_strmap_next's order is the hash's. */
void hs_strmap_sorted_keys(const hs_strmap *m, hs_vec *out);

/* A map of lists, each value an hs_vec (common.h) the map owns: hs_strmap_push appends
 * `item` to the list under `key`, made on first use; hs_strmap_delete_lists frees every
 * list, each item first through `free_item` unless it is NULL, then the map. */
void hs_strmap_push(hs_strmap *m, const char *key, void *item);
void hs_strmap_delete_lists(hs_strmap *m, void (*free_item)(void *));

#endif
