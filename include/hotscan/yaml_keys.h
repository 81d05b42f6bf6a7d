/*
 * yaml_keys.h - duplicate keys in a libyaml document. libyaml loads a mapping with a key
 * twice without a word (the later pair simply follows the earlier one), so each reader that
 * must refuse it (.hotscan.yml, the docs' YAML check) asks here. Depends on libyaml only.
 */
#ifndef HOTSCAN_YAML_KEYS_H
#define HOTSCAN_YAML_KEYS_H

#include <yaml.h>

/* The first key of `mapping` (a mapping node of `doc`) that repeats an earlier key, scalars
 * compared by their text; NULL when the keys are distinct or `mapping` is not a mapping.
 * *first is then the earlier key (both carry their start_mark for FILE:LINE messages). */
const yaml_node_t *hs_yaml_duplicate_key(yaml_document_t *doc, const yaml_node_t *mapping,
                                         const yaml_node_t **first);

/* The same for every mapping reachable from `node` (nested ones, through sequences and
 * aliases, each node looked at once): the first repeated key found, or NULL. */
const yaml_node_t *hs_yaml_duplicate_key_anywhere(yaml_document_t *doc, const yaml_node_t *node,
                                                  const yaml_node_t **first);

#endif
