// A counter whose operand holds a Latin-1 byte (legacy sources) is still reported; its text
// is not UTF-8, so no fix can carry it (the report says why in fix_unavailable).
// hotscan-args: --min-confidence low
#include <atomic>

static std::atomic<long> banner_bytes{0};

void count_banner(void)
{
    banner_bytes += sizeof("café") - 1; // expect: atomic-seqcst-counter
}
