/*
 * event_facts.h - the events family's facts: each use of an os_event-style API
 * (hs_event_use) and each declaration of an event object (hs_event_object), as the
 * collector (collect_events.c) saw them and the merge kept them, once per place.
 *
 * Read from the TU's "events" and "event_objects" JSON members by event_facts.c, the only
 * code that knows those keys (docs/facts.md). Strings are interned in the program model.
 */
#ifndef HOTSCAN_EVENT_FACTS_H
#define HOTSCAN_EVENT_FACTS_H

#include <stdbool.h>
#include <stddef.h>

#include "hotscan/facts.h"
#include "hotscan/program.h"

typedef struct {
    hs_site site;              /* the call (or macro invocation) */
    const char *text;          /* as written */
    bool macro;                /* written through a macro */
    long long ordinal;         /* uses at the same place before this one */
    const char *api;           /* the event API called (os_event_set) */
    const char *kind;          /* what it does: create, set, reset, wait, wait_time, ... */
    const char *object;        /* USR of the event object used, "" when not traced */
    const char *object_name;   /* its name, "" when not traced */
    const char *object_text;   /* the argument as written, "" when none */
    hs_place object_declaration; /* the object's declaration when the use knows it */
    const char *function;      /* USR of the enclosing function */
    const char *function_name;
} hs_event_use;

typedef struct {
    hs_site site;              /* the declaration */
    const char *text;
    const char *object;        /* its USR */
    const char *object_name;
    const char *type;          /* its type as written */
    const char *declaration_kind; /* variable, field, ... */
    bool definition;           /* a definition, not only a declaration */
    bool array;                /* an array of events */
    const char *function;      /* USR of the enclosing function for a local, "" else */
} hs_event_object;

typedef struct {
    hs_event_use *uses;
    size_t n_uses, cap_uses;
    hs_event_object *objects;
    size_t n_objects, cap_objects;
} hs_event_store;

extern const hs_fact_family hs_family_events;

static inline const hs_event_store *hs_event_facts(const hs_program *p)
{
    return hs_program_store(p, &hs_family_events);
}

#endif
