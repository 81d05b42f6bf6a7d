#include "counters.h"

void stats_count_internal_session(void)
{
    total_sess++; // expect: atomic-mixed-access
}
