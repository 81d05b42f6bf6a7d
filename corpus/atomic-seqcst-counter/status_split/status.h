/*
 * Server-wide status counters shared by the TUs of the status_split case. The inline
 * helper is compiled into every TU that includes this header; its operation is one
 * operation of the program and is reported once.
 */
#ifndef STATUS_H
#define STATUS_H

#include <atomic>
#include <cstdint>

struct Global_status {
    std::atomic<uint64_t> bytes_sent;
    std::atomic<uint64_t> bytes_received;
    std::atomic<uint64_t> questions;
    std::atomic<uint64_t> slow_queries;
};

extern Global_status global_status;

inline void status_add_bytes_received(uint64_t n)
{
    global_status.bytes_received.fetch_add(n); // expect: atomic-seqcst-counter
}

void status_flush();
uint64_t status_show(int which);

#endif
