// The redo log's events: declared here, created and set in log0log.cc, waited on in
// log0write.cc. Each declaration is flagged once although two TUs include it.
#ifndef log0log_h
#define log0log_h

#include "os0event.h"

typedef uint64_t lsn_t;

struct log_t {
    lsn_t lsn;
    lsn_t flushed_to_disk_lsn;
    os_event_t flush_event; // expect: os-event
    os_event_t checkpoint_event; // expect: os-event
};

extern log_t log_sys;
extern os_event_t log_scrub_event; // expect: os-event

// Inline in the header: seen by both TUs, reported once.
inline void log_wake_flushers()
{
    os_event_set(log_sys.flush_event); // expect: os-event
}

void log_init();
void log_close();
void log_write_up_to(lsn_t lsn);

#endif
