/*
 * MariaDB 10.4 srv0srv.cc style, in C: global events created at startup, set by one
 * thread, waited on by the monitor threads with the reset + wait_low(sig) idiom and with
 * a timeout, destroyed at shutdown. os_event_wait and os_event_wait_time are MariaDB's
 * macros: the use is reported under the macro's name.
 */
#include <stdint.h>

typedef unsigned long ulint;
typedef struct os_event *os_event_t;

os_event_t os_event_create(const char *name);
void os_event_set(os_event_t event);
int os_event_is_set(const os_event_t event);
int64_t os_event_reset(os_event_t event);
void os_event_destroy(os_event_t *event);
void os_event_wait_low(os_event_t event, int64_t reset_sig_count);
ulint os_event_wait_time_low(os_event_t event, ulint time_in_usec, int64_t reset_sig_count);

#define os_event_wait(e) os_event_wait_low(e, 0)
#define os_event_wait_time(e, t) os_event_wait_time_low((e), (t), 0)
#define OS_SYNC_TIME_EXCEEDED 1

/* Not events: a counter and a flag next to them. */
ulint srv_monitor_wakeups;
volatile int srv_shutdown_state;

os_event_t srv_monitor_event; // expect: os-event
os_event_t srv_error_event; // expect: os-event
static os_event_t srv_buf_dump_event; // expect: os-event

void srv_print_monitor(void);
void srv_refresh_stats(void);

void srv_init(void)
{
    srv_monitor_event = os_event_create(0); // expect: os-event
    srv_error_event = os_event_create("srv_error_event"); // expect: os-event
    srv_buf_dump_event = os_event_create(0); // expect: os-event
}

void srv_wake_monitor(void)
{
    srv_monitor_wakeups++;
    os_event_set(srv_monitor_event); // expect: os-event
}

void srv_monitor_thread(void)
{
    int64_t sig_count = os_event_reset(srv_monitor_event); // expect: os-event
    while (srv_shutdown_state == 0) {
        os_event_wait_low(srv_monitor_event, sig_count); // expect: os-event
        sig_count = os_event_reset(srv_monitor_event); // expect: os-event
        srv_print_monitor();
    }
}

void srv_error_monitor_thread(void)
{
    while (srv_shutdown_state == 0) {
        if (os_event_wait_time(srv_error_event, 1000000) == OS_SYNC_TIME_EXCEEDED) // expect: os-event
            srv_refresh_stats();
        if (os_event_is_set(srv_error_event)) // expect: os-event
            os_event_reset(srv_error_event); // expect: os-event
    }
}

void buf_dump_thread(void)
{
    while (srv_shutdown_state == 0) {
        os_event_wait(srv_buf_dump_event); // expect: os-event
        os_event_reset(srv_buf_dump_event); // expect: os-event
    }
}

void buf_dump_start(void)
{
    os_event_set(srv_buf_dump_event); // expect: os-event
}

void srv_free(void)
{
    os_event_destroy(&srv_monitor_event); // expect: os-event
    os_event_destroy(&srv_error_event); // expect: os-event
    os_event_destroy(&srv_buf_dump_event); // expect: os-event
}
