/*
 * event_facts.c - reads the events family's facts ("events", "event_objects") from a TU's
 * facts document into typed records (event_facts.h), each once per place.
 */
#include "event_facts.h"

#include <stdlib.h>

#include "hotscan/common.h"

static void *create(void)
{
    return hs_xcalloc(1, sizeof(hs_event_store));
}

static void destroy(void *store)
{
    hs_event_store *s = store;
    if (!s)
        return;
    free(s->uses);
    free(s->objects);
    free(s);
}

/* Absent strings read as "": the rule treats "not traced" and "empty" alike. */
static const char *str(hs_intern *in, json_t *o, const char *key)
{
    const char *v = hs_facts_str(in, o, key);
    return v ? v : hs_intern_str(in, "");
}

static void merge(void *store, hs_program *p, json_t *tu_facts, size_t tu_index)
{
    (void)tu_index; /* event findings carry no fix to verify */
    hs_event_store *s = store;
    hs_intern *in = p->strings;
    size_t i;
    json_t *o;
    json_array_foreach(json_object_get(tu_facts, "events"), i, o) {
        if (!hs_program_first_fact(p, "event", o))
            continue;
        s->uses = hs_array_append(s->uses, &s->n_uses, &s->cap_uses, sizeof *s->uses);
        hs_event_use *u = &s->uses[s->n_uses - 1];
        hs_facts_site(in, o, &u->site);
        u->text = str(in, o, "text");
        u->macro = hs_facts_bool(o, "macro");
        u->ordinal = hs_facts_int(o, "ordinal", 0);
        u->api = str(in, o, "api");
        u->kind = str(in, o, "kind");
        u->object = str(in, o, "object");
        u->object_name = str(in, o, "object_name");
        u->object_text = str(in, o, "object_text");
        hs_facts_place(in, o, "object_declaration", &u->object_declaration);
        u->function = str(in, o, "function");
        u->function_name = str(in, o, "function_name");
    }
    json_array_foreach(json_object_get(tu_facts, "event_objects"), i, o) {
        if (!hs_program_first_fact(p, "event_object", o))
            continue;
        s->objects = hs_array_append(s->objects, &s->n_objects, &s->cap_objects, sizeof *s->objects);
        hs_event_object *e = &s->objects[s->n_objects - 1];
        hs_facts_site(in, o, &e->site);
        e->text = str(in, o, "text");
        e->object = str(in, o, "object");
        e->object_name = str(in, o, "object_name");
        e->type = str(in, o, "type");
        e->declaration_kind = str(in, o, "declaration_kind");
        e->definition = hs_facts_bool(o, "definition");
        e->array = hs_facts_bool(o, "array");
        e->function = str(in, o, "function");
    }
}

const hs_fact_family hs_family_events = {
    .name = "events",
    .create = create,
    .destroy = destroy,
    .merge = merge,
};
