/*
 * status_split: FLUSH STATUS resets the counters with constant stores, which a counter
 * may take; the seq_cst ones are flagged, the relaxed one is not.
 */
#include "status.h"

void status_flush()
{
    global_status.bytes_sent = 0; // expect: atomic-seqcst-counter
    global_status.bytes_received.store(0); // expect: atomic-seqcst-counter
    global_status.questions.store(0, std::memory_order_relaxed);
    global_status.slow_queries.store(0, std::memory_order_relaxed);
}
