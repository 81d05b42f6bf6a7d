/*
 * Names that merely contain "os_event": a struct named os_event_log (an audit log of OS
 * events), its writer os_event_log_write, a typedef os_event_log_t, a counter field named
 * os_event, a variable named event, and API names inside strings and comments. No type
 * is an event type and no call is a listed API, so nothing is flagged.
 */
#include <stdio.h>
#include <string.h>

struct os_event_log {
    FILE *out;
    unsigned long os_event;       /* a count, not an event */
    unsigned long os_event_waits; /* "os_event_wait" is only part of the name */
};
typedef struct os_event_log os_event_log_t;

static struct os_event_log audit_log;
os_event_log_t *current_log = &audit_log;
int event;

void os_event_log_write(struct os_event_log *log, const char *what)
{
    log->os_event++;
    fprintf(log->out, "%lu %s\n", log->os_event, what);
}

void os_event_log_waits(os_event_log_t *log)
{
    /* os_event_set(x) would have been flagged here; a comment is not code. */
    log->os_event_waits++;
    os_event_log_write(log, "os_event_wait_low() returned");
    event = strcmp("os_event_reset", "os_event_set") != 0;
}
