/*
 * emit_json.c - the schema v1 JSON writer: the report as it is, keys in a stable order.
 */
#include "hotscan/emit.h"

bool hs_emit_json(FILE *out, json_t *report)
{
    if (json_dumpf(report, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0)
        return false;
    return fputc('\n', out) != EOF;
}
