/* The master thread sleeps on an InnoDB os_event (MDEV-21452: replace it with a
 * condition variable and a normal mutex). */
#include <stdbool.h>
#include <stdint.h>

typedef struct os_event *os_event_t;
os_event_t os_event_create(const char *name);
void os_event_set(os_event_t event);
int64_t os_event_reset(os_event_t event);
void os_event_wait_low(os_event_t event, int64_t reset_sig_count);
void os_event_destroy(os_event_t *event);
#define os_event_wait(e) os_event_wait_low(e, 0)

os_event_t srv_master_event; // expect: os-event
static bool srv_shutdown;

void srv_init(void)
{
    srv_master_event = os_event_create("master"); // expect: os-event
}

void srv_wake_master(void)
{
    os_event_set(srv_master_event); // expect: os-event
}

void srv_master_thread(void)
{
    while (!srv_shutdown) {
        int64_t sig = os_event_reset(srv_master_event); // expect: os-event
        os_event_wait_low(srv_master_event, sig); // expect: os-event
    }
}

void srv_free(void)
{
    os_event_destroy(&srv_master_event); // expect: os-event
}
