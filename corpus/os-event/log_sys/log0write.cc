#include "log0log.h"

void log_write_up_to(lsn_t lsn)
{
    while (log_sys.flushed_to_disk_lsn < lsn) {
        int64_t sig = os_event_reset(log_sys.flush_event); // expect: os-event
        if (log_sys.flushed_to_disk_lsn >= lsn)
            break;
        os_event_wait_low(log_sys.flush_event, sig); // expect: os-event
    }
}

void log_scrub_thread(volatile bool *shutdown)
{
    while (!*shutdown) {
        os_event_wait_time(log_scrub_event, 1000000); // expect: os-event
        os_event_reset(log_scrub_event); // expect: os-event
    }
}

void log_checkpoint_wait()
{
    os_event_wait(log_sys.checkpoint_event); // expect: os-event
    log_wake_flushers();
}
