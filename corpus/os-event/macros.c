/*
 * Uses through macros, and the other ways an event object is declared: InnoDB 5.x's
 * os_event_struct_t, a plain `struct os_event *`, a declarator list, a function-local
 * static, and a pointer to a dynamically allocated array of events.
 */
#include <stdint.h>
#include <stdlib.h>

typedef struct os_event_struct os_event_struct_t;
typedef os_event_struct_t *os_event_t;

os_event_t os_event_create(const char *name);
void os_event_set(os_event_t event);
int os_event_is_set(os_event_t event);
int64_t os_event_reset(os_event_t event);
void os_event_free(os_event_t event);
void os_event_wait_low(os_event_t event, int64_t reset_sig_count);

#define os_event_wait(e) os_event_wait_low(e, 0)

/* Project macros around the API: the call inside is reported where the macro is used. */
#define WAKE_AND_REARM(e) do { os_event_set(e); os_event_reset(e); } while (0)
#define LOCK_WAIT(e) os_event_wait(e)
#define ut_a(expr) do { if (!(expr)) abort(); } while (0)
#define DBUG_EXECUTE_IF(keyword, code) do { if (keyword[0] == '+') { code } } while (0)

os_event_struct_t *lock_wait_event; // expect: os-event
struct os_event_struct *srv_purge_event; // expect: os-event
os_event_t sync_wait_event, sync_done_event; // expect: os-event, os-event
os_event_t *sync_cell_events; // expect: os-event

void sync_array_init(size_t n)
{
    sync_cell_events = malloc(n * sizeof *sync_cell_events);
    for (size_t i = 0; i < n; i++)
        sync_cell_events[i] = os_event_create(0); // expect: os-event
}

void sync_array_signal(size_t i)
{
    WAKE_AND_REARM(sync_cell_events[i]); // expect: os-event, os-event
}

void lock_wait_suspend(void)
{
    LOCK_WAIT(lock_wait_event); // expect: os-event
}

void purge_coordinator(void)
{
    ut_a(!os_event_is_set(srv_purge_event)); // expect: os-event
    DBUG_EXECUTE_IF("+purge_wake", os_event_set(srv_purge_event);); // expect: os-event
}

os_event_t sync_get_startup_event(void)
{
    static os_event_t startup_event; // expect: os-event
    if (!startup_event)
        startup_event = os_event_create("startup"); // expect: os-event
    return startup_event;
}

void sync_wait(void)
{
    os_event_wait(sync_wait_event); // expect: os-event
    os_event_set(sync_done_event); // expect: os-event
    os_event_t local = sync_get_startup_event();
    os_event_wait(local); // expect: os-event
}
