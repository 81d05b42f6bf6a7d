/*
 * extract_atomics.c - records atomic operations (placeholder until the
 * atomic-seqcst-counter rule lands; see issue 3).
 */
#include "extract_internal.h"

void hs_atomics_on_cursor(hs_extract_ctx *x, CXCursor c)
{
    (void)x;
    (void)c;
}
