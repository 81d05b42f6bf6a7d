/* This TU's only relevance is one load of the header's atomic: the prefilter must keep it,
 * or the finding's "1 load ... seen by 2 of the scan's 3 TUs" would change. */
#include "stats.h"

long requests_seen(void)
{
    return requests; // expect: atomic-seqcst-counter
}
