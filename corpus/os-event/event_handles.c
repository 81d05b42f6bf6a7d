/*
 * Code that mentions os_event_t without declaring an event object or calling the API:
 * the API's prototypes, parameters, function-pointer types and fields whose type takes
 * or returns an event, a local alias that is never used with the API, sizeof. An event
 * object is a global, static or field whose own type is an event; a parameter or local
 * only points at one, and the calls that use it are what gets flagged.
 */
#include <stddef.h>
#include <stdint.h>

typedef struct os_event *os_event_t;

os_event_t os_event_create(const char *name);
void os_event_set(os_event_t event);
int64_t os_event_reset(os_event_t event);
void os_event_wait_low(os_event_t event, int64_t reset_sig_count);

typedef void (*event_waker_t)(os_event_t event);
typedef os_event_t (*event_factory_t)(const char *name);

struct thread_slot {
    event_waker_t wake;
    os_event_t (*make_event)(const char *name);
    unsigned long suspended;
};

size_t event_handle_size = sizeof(os_event_t);

int same_event(os_event_t a, os_event_t b)
{
    os_event_t first = a;
    return first == b;
}

void slot_init(struct thread_slot *slot, event_waker_t wake, event_factory_t make)
{
    slot->wake = wake;
    slot->make_event = make;
    slot->suspended = 0;
}
