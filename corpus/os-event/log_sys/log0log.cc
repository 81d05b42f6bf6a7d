#include "log0log.h"

log_t log_sys;
os_event_t log_scrub_event; // expect: os-event

void log_init()
{
    log_sys.flush_event = os_event_create(0); // expect: os-event
    os_event_set(log_sys.flush_event); // expect: os-event
    log_sys.checkpoint_event = os_event_create("checkpoint"); // expect: os-event
    log_scrub_event = os_event_create("log_scrub_event"); // expect: os-event
}

void log_flush_complete(lsn_t lsn)
{
    log_sys.flushed_to_disk_lsn = lsn;
    log_wake_flushers();
    os_event_set(log_sys.checkpoint_event); // expect: os-event
}

void log_close()
{
    os_event_destroy(log_sys.flush_event); // expect: os-event
    os_event_destroy(log_sys.checkpoint_event); // expect: os-event
    os_event_destroy(log_scrub_event); // expect: os-event
}
