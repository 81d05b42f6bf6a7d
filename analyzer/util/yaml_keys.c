/*
 * yaml_keys.c - finds repeated keys in libyaml documents (yaml_keys.h). Plain libyaml, no
 * other hotscan code, so a test program can compile it in alone.
 */
#include "hotscan/yaml_keys.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static bool same_scalar(const yaml_node_t *a, const yaml_node_t *b)
{
    return a && b && a->type == YAML_SCALAR_NODE && b->type == YAML_SCALAR_NODE &&
           a->data.scalar.length == b->data.scalar.length &&
           memcmp(a->data.scalar.value, b->data.scalar.value, a->data.scalar.length) == 0;
}

const yaml_node_t *hs_yaml_duplicate_key(yaml_document_t *doc, const yaml_node_t *mapping,
                                         const yaml_node_t **first)
{
    if (!mapping || mapping->type != YAML_MAPPING_NODE)
        return NULL;
    /* Quadratic, and fine: the mappings read this way are a config file's and a doc
     * example's, tens of keys. */
    for (yaml_node_pair_t *p = mapping->data.mapping.pairs.start; p < mapping->data.mapping.pairs.top; p++) {
        const yaml_node_t *key = yaml_document_get_node(doc, p->key);
        for (yaml_node_pair_t *q = mapping->data.mapping.pairs.start; q < p; q++) {
            const yaml_node_t *earlier = yaml_document_get_node(doc, q->key);
            if (same_scalar(key, earlier)) {
                *first = earlier;
                return key;
            }
        }
    }
    return NULL;
}

static const yaml_node_t *walk(yaml_document_t *doc, const yaml_node_t *node, bool *seen,
                               const yaml_node_t **first)
{
    if (!node)
        return NULL;
    size_t at = (size_t)(node - doc->nodes.start);
    if (seen[at])
        return NULL; /* an alias of a node already looked at (or of one of its parents) */
    seen[at] = true;
    const yaml_node_t *found = NULL;
    if (node->type == YAML_MAPPING_NODE) {
        found = hs_yaml_duplicate_key(doc, node, first);
        for (yaml_node_pair_t *p = node->data.mapping.pairs.start; !found && p < node->data.mapping.pairs.top; p++) {
            found = walk(doc, yaml_document_get_node(doc, p->key), seen, first);
            if (!found)
                found = walk(doc, yaml_document_get_node(doc, p->value), seen, first);
        }
    } else if (node->type == YAML_SEQUENCE_NODE) {
        for (yaml_node_item_t *it = node->data.sequence.items.start; !found && it < node->data.sequence.items.top; it++)
            found = walk(doc, yaml_document_get_node(doc, *it), seen, first);
    }
    return found;
}

const yaml_node_t *hs_yaml_duplicate_key_anywhere(yaml_document_t *doc, const yaml_node_t *node,
                                                  const yaml_node_t **first)
{
    size_t n = (size_t)(doc->nodes.top - doc->nodes.start);
    if (!node || n == 0)
        return NULL;
    bool *seen = calloc(n, sizeof *seen);
    if (!seen)
        abort(); /* as hs_xcalloc does: out of memory is not "no duplicate" */
    const yaml_node_t *found = walk(doc, node, seen, first);
    free(seen);
    return found;
}
