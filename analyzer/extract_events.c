/*
 * extract_events.c - records os_event API uses (placeholder until the os-event rule
 * lands; see issue 3).
 */
#include "extract_internal.h"

void hs_events_on_cursor(hs_extract_ctx *x, CXCursor c)
{
    (void)x;
    (void)c;
}
