/*
 * keyset.h - a set of 128-bit digests of strings (XXH3-128, libxxhash): "has this key been
 * seen?" for hundreds of thousands of keys, without keeping the keys.
 *
 * The merge uses it to keep each fact once (hs_program_first_fact): a key's digest takes 16
 * bytes where the key itself (paths, USRs) took a hundred or more. Two distinct keys
 * collide with a probability of about n^2 / 2^129 (1e-26 for a million keys).
 */
#ifndef HOTSCAN_KEYSET_H
#define HOTSCAN_KEYSET_H

#include <stdbool.h>
#include <stddef.h>

typedef struct hs_keyset hs_keyset;

hs_keyset *hs_keyset_create(void);
void hs_keyset_delete(hs_keyset *s);
/* Adds the digest of the `n` bytes at `key`; true when it was not in the set yet. */
bool hs_keyset_add(hs_keyset *s, const void *key, size_t n);
/* True when the digest of the `n` bytes at `key` is in the set; the set is unchanged. */
bool hs_keyset_has(const hs_keyset *s, const void *key, size_t n);
size_t hs_keyset_size(const hs_keyset *s);

#endif
