/*
 * edits.c - edit plans from a report's verified fixes (see edits.h).
 */
#include "hotscan/edits.h"

#include <stdio.h>
#include <stdlib.h>

char *hs_content_hash(const char *data, size_t size)
{
    return hs_printf("%016llx", hs_hash64(data, size, 0));
}

bool hs_edit_plan_build(json_t *report, hs_edit_plan *plan, char **err)
{
    (void)report;
    (void)plan;
    *err = hs_xstrdup("edit plans are not implemented yet");
    return false;
}

void hs_edit_plan_free(hs_edit_plan *plan)
{
    (void)plan;
}

char *hs_file_edits_apply(const hs_file_edits *fe, size_t *size_out)
{
    (void)fe;
    *size_out = 0;
    return NULL;
}
