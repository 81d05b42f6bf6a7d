/*
 * status_split: SHOW GLOBAL STATUS reads the counters with seq_cst loads (explicit and
 * implicit); a load in an if condition is a threshold check, still a counter's use.
 */
#include "status.h"

extern void warn_slow_queries();

uint64_t status_show(int which)
{
    switch (which) {
    case 0:
        return global_status.bytes_sent.load(); // expect: atomic-seqcst-counter
    case 1:
        return global_status.bytes_received; // expect: atomic-seqcst-counter
    case 2:
        return global_status.questions.load(); // expect: atomic-seqcst-counter
    default:
        if (global_status.slow_queries.load() > 1000) // expect: atomic-seqcst-counter
            warn_slow_queries();
        return 0;
    }
}

void status_on_connect()
{
    status_add_bytes_received(4);
}
