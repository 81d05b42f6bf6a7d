/*
 * merge_tus.c - the merge stage: one TU's extraction result at a time into the program
 * model (program.c), in TU order, each document freed once merged (see merge.h).
 */
#define _GNU_SOURCE
#include "hotscan/merge.h"

#include "hotscan/facts.h"

#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

void hs_merge_init(hs_merge *m, const hs_discovery *disc, const char *root, const char *facts_dir,
                   FILE *log)
{
    memset(m, 0, sizeof *m);
    m->disc = disc;
    m->root = root;
    m->facts_dir = facts_dir;
    m->log = log;
    m->program = hs_program_create();
    m->errors = json_array();
    m->baseline_errors = hs_xcalloc(disc->tus.len ? disc->tus.len : 1, sizeof(int));
    m->ignored_arguments = hs_strmap_create();
}

static json_t *error_entry(const char *file, const char *message)
{
    return json_pack("{s:s, s:s}", "file", file, "message", message);
}

/* A TU that parsed with errors still gives facts, but its findings may be incomplete. */
static json_t *parse_error_entry(const char *root, const char *file, json_t *parse_errors)
{
    size_t n = json_array_size(parse_errors);
    char *rel = hs_path_relative(root, file);
    char *msg = hs_printf("%zu%s compile error%s; findings from this file may be incomplete; first: %s",
                          n, n >= 5 ? "+" : "", n == 1 ? "" : "s",
                          json_string_value(json_array_get(parse_errors, 0)));
    json_t *e = error_entry(rel, msg);
    free(rel);
    free(msg);
    return e;
}

/* DIR/<index>-<file name>.json; a failure to write is reported, not fatal. */
/*
 * Writes one TU's facts to --facts-dir / --facts-out, with the command that made them and
 * the TU's place among all the scan's TUs ("command"), which `hotscan judge` reads.
 */
static void write_facts(const hs_merge *m, const hs_tu_input *in, size_t index, json_t *facts)
{
    const char *file = in->file;
    size_t place = m->disc->global_index ? m->disc->global_index[index] : index;
    json_t *args = json_array();
    for (int i = 0; i < in->argc; i++)
        json_array_append_new(args, json_string(in->argv[i]));
    json_object_set_new(facts, "command",
                        json_pack("{s:i, s:s, s:o, s:i, s:i, s:i}", "index", (json_int_t)place, "directory",
                                  in->directory ? in->directory : "", "arguments", args, "database_tus",
                                  (json_int_t)m->disc->database_tus, "selected_tus",
                                  (json_int_t)(m->disc->selected_tus ? m->disc->selected_tus : m->disc->tus.len),
                                  "left_out", (json_int_t)m->disc->left_out));
    index = place;
    char *rel = hs_path_relative(m->root, file);
    for (char *p = rel; *p; p++)
        if (*p == '/')
            *p = '_';
    char *path = hs_printf("%s/%04zu-%s.json", m->facts_dir, index, rel);
    if (json_dump_file(facts, path, JSON_INDENT(1)) != 0 && m->log)
        fprintf(m->log, "hotscan: warning: --facts-dir: cannot write %s: %s\n", path, strerror(errno));
    free(path);
    free(rel);
}

void hs_merge_tu_result(size_t index, hs_tu_result *result, void *user)
{
    hs_merge *m = user;
    const hs_tu_input *in = m->disc->tus.items[index];
    json_t *facts = result->facts;
    json_int_t version = json_integer_value(json_object_get(facts, "facts_version"));
    if (facts && version != HS_FACTS_VERSION) {
        /* Facts written by another hotscan: their fields may mean something else. */
        result->error = hs_printf("its facts document is version %lld; this hotscan reads version %d",
                                  (long long)version, HS_FACTS_VERSION);
        json_decref(facts);
        facts = NULL;
    }
    if (facts) {
        if (result->from_cache)
            m->from_cache++;
        if (json_is_true(json_object_get(facts, "prefiltered")))
            m->prefiltered++;
        if (m->facts_dir)
            write_facts(m, in, index, facts);
        json_object_set_new(facts, "tu_index", json_integer((json_int_t)index));
        m->baseline_errors[index] = (int)json_integer_value(json_object_get(facts, "error_count"));
        hs_program_merge(m->program, facts);
        size_t k;
        json_t *arg;
        m->gcc_lenient += json_is_true(json_object_get(facts, "gcc_lenient"));
        json_array_foreach(json_object_get(facts, "ignored_arguments"), k, arg)
            if (json_is_string(arg)) /* a facts file is input too (fuzz_facts found this) */
                hs_strmap_put(m->ignored_arguments, json_string_value(arg), (void *)1);
        json_t *pe = json_object_get(facts, "parse_errors");
        if (json_array_size(pe) > 0)
            json_array_append_new(m->errors, parse_error_entry(m->root, in->file, pe));
        json_decref(facts);
    } else {
        char *rel = hs_path_relative(m->root, in->file);
        json_array_append_new(m->errors, error_entry(rel, result->error ? result->error : "not parsed"));
        free(rel);
        m->failed++;
    }
    free(result->error);
    result->facts = NULL;
    result->error = NULL;
}

void hs_merge_release_program(hs_merge *m)
{
    hs_program_delete(m->program);
    m->program = NULL;
#ifdef __GLIBC__
    /* The model's small chunks were spread over the heap; without this, the pages stay
     * resident (and are copied into every verification worker's page tables). */
    malloc_trim(0);
#endif
}

void hs_merge_free(hs_merge *m)
{
    hs_program_delete(m->program);
    json_decref(m->errors);
    free(m->baseline_errors);
    if (m->ignored_arguments)
        hs_strmap_delete(m->ignored_arguments);
    memset(m, 0, sizeof *m);
}
