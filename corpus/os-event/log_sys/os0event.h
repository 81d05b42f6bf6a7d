// The os_event API as MariaDB 10.4's os0event.h declares it (trimmed). Declarations of
// the API and of parameters are not uses.
#ifndef os0event_h
#define os0event_h

#include <cstdint>

typedef unsigned long ulint;
struct os_event;
typedef struct os_event *os_event_t;

os_event_t os_event_create(const char *name);
void os_event_set(os_event_t event);
bool os_event_is_set(const os_event_t event);
int64_t os_event_reset(os_event_t event);
void os_event_destroy(os_event_t &event);
void os_event_wait_low(os_event_t event, int64_t reset_sig_count);
ulint os_event_wait_time_low(os_event_t event, ulint time_in_usec, int64_t reset_sig_count);

#define os_event_wait(e) os_event_wait_low(e, 0)
#define os_event_wait_time(e, t) os_event_wait_time_low((e), (t), 0)

#endif
