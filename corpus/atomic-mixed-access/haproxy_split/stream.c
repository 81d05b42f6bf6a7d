// hotscan-args: --min-confidence low
#include "counters.h"

uint64_t total_sess;

void stream_new(void)
{
    HA_ATOMIC_INC(&total_sess); // expect: atomic-seqcst-counter
}

uint64_t stats_total_sess(void)
{
    return HA_ATOMIC_LOAD(&total_sess);
}
