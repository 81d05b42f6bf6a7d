#include <stdint.h>
typedef struct os_event *os_event_t;
os_event_t os_event_create(const char *name);
void os_event_set(os_event_t event);
int64_t os_event_reset(os_event_t event);
void os_event_wait_low(os_event_t event, int64_t reset_sig_count);
static os_event_t flush_event;
struct slot { os_event_t ev; int busy; };
static struct slot slots[8];
void f(int i)
{
    int64_t sig = os_event_reset(flush_event);
    os_event_wait_low(flush_event, sig); // NOLINT(os-event)
    os_event_set(slots[i].ev);
}
void init(void) { flush_event = os_event_create(0); slots[0].ev = os_event_create("s"); }
