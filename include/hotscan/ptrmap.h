/*
 * ptrmap.h - an open-addressing hash map from (pointer, tag) pairs to pointers.
 *
 * For what the walk remembers per AST node for a TU (a declaration's USR and qualified name,
 * an expression's name key): libclang names a node by a pointer in its cursor (data[0] of a
 * declaration, data[1] of an expression), and the tag tells apart cursor kinds or what is
 * remembered. Cheaper than formatting the pointer as a string key for an hs_strmap.
 */
#ifndef HOTSCAN_PTRMAP_H
#define HOTSCAN_PTRMAP_H

#include <stdbool.h>
#include <stddef.h>

typedef struct hs_ptrmap hs_ptrmap;

hs_ptrmap *hs_ptrmap_create(void);
void hs_ptrmap_delete(hs_ptrmap *m);
/* Sets the value of (key, tag), replacing any. */
void hs_ptrmap_put(hs_ptrmap *m, const void *key, int tag, void *value);
/* Whether (key, tag) has a value (which may be NULL), into *value when it has. */
bool hs_ptrmap_find(const hs_ptrmap *m, const void *key, int tag, void **value);
/* The value of (key, tag), or NULL. */
void *hs_ptrmap_get(const hs_ptrmap *m, const void *key, int tag);
size_t hs_ptrmap_size(const hs_ptrmap *m);

/* Iteration, in no particular order: for (size_t it = 0; hs_ptrmap_next(m, &it, &v);) */
bool hs_ptrmap_next(const hs_ptrmap *m, size_t *iter, void **value);

#endif
