/*
 * status_split: counters bumped in this TU, shown in status_show.cc and reset in
 * status_flush.cc. Seen together they are only counters, so every seq_cst operation in
 * every TU is flagged. slow_queries is only ever relaxed here and seq_cst only where it
 * is shown: only that load is flagged.
 */
// hotscan-args: --min-confidence low
#include "status.h"

Global_status global_status;

void net_write_packet(uint64_t len)
{
    global_status.bytes_sent += len; // expect: atomic-seqcst-counter
}

void net_read_packet(uint64_t len)
{
    status_add_bytes_received(len);
}

void dispatch_query(bool slow)
{
    global_status.questions++; // expect: atomic-seqcst-counter
    if (slow)
        global_status.slow_queries.fetch_add(1, std::memory_order_relaxed);
}
