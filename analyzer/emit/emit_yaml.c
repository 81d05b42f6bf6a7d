/*
 * emit_yaml.c - clang-tidy's export-fixes YAML, for clang-apply-replacements.
 *
 * One diagnostic per finding that has a verified fix, named hotscan-<rule>. Its replacements
 * are the edits the plan (edits.c) accepts, so the YAML never holds an edit `hotscan apply`
 * would refuse; an edit that several findings share is listed once, under the first of them
 * (clang-apply-replacements would report a duplicate inside one file as a conflict).
 * Written with libyaml's emitter: replacement text holds quotes, colons and newlines, and
 * only a real emitter quotes those right.
 */
#include "hotscan/edits.h"
#include "hotscan/emit.h"

#include <stdlib.h>
#include <string.h>
#include <yaml.h>

typedef struct {
    yaml_emitter_t emitter;
    bool failed;
} writer;

static int write_handler(void *data, unsigned char *buffer, size_t size)
{
    return fwrite(buffer, 1, size, data) == size;
}

static void emit(writer *w, yaml_event_t *event)
{
    if (w->failed) {
        yaml_event_delete(event);
        return;
    }
    if (!yaml_emitter_emit(&w->emitter, event))
        w->failed = true;
}

static void scalar(writer *w, const char *value, bool quoted)
{
    yaml_event_t ev;
    if (!yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)value, (int)strlen(value),
                                      1, 1,
                                      quoted ? YAML_DOUBLE_QUOTED_SCALAR_STYLE
                                             : YAML_PLAIN_SCALAR_STYLE)) {
        w->failed = true;
        return;
    }
    emit(w, &ev);
}

static void key_string(writer *w, const char *key, const char *value)
{
    scalar(w, key, false);
    scalar(w, value ? value : "", true);
}

static void key_number(writer *w, const char *key, size_t value)
{
    char text[32];
    snprintf(text, sizeof text, "%zu", value);
    scalar(w, key, false);
    scalar(w, text, false);
}

static void mapping_start(writer *w)
{
    yaml_event_t ev;
    yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE);
    emit(w, &ev);
}

static void mapping_end(writer *w)
{
    yaml_event_t ev;
    yaml_mapping_end_event_initialize(&ev);
    emit(w, &ev);
}

static void sequence_start(writer *w)
{
    yaml_event_t ev;
    yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE);
    emit(w, &ev);
}

static void sequence_end(writer *w)
{
    yaml_event_t ev;
    yaml_sequence_end_event_initialize(&ev);
    emit(w, &ev);
}

static bool has_verified_fix(json_t *finding)
{
    size_t j;
    json_t *fix;
    json_array_foreach(json_object_get(finding, "fixes"), j, fix)
        if (json_is_true(json_object_get(fix, "verified")))
            return true;
    return false;
}

/* Byte offset of a 1-based line and byte column, clamped to the content. */
static size_t offset_of(const char *content, size_t size, json_int_t line, json_int_t column)
{
    size_t pos = 0;
    for (json_int_t l = 1; l < line && pos < size; pos++)
        if (content[pos] == '\n')
            l++;
    if (column > 1)
        pos += (size_t)(column - 1);
    return pos < size ? pos : size;
}

static const hs_file_edits *plan_file(const hs_edit_plan *plan, const char *real_path)
{
    for (size_t i = 0; i < plan->files.len; i++) {
        const hs_file_edits *fe = plan->files.items[i];
        if (strcmp(fe->real_path, real_path) == 0)
            return fe;
    }
    return NULL;
}

static void diagnostic(writer *w, const hs_edit_plan *plan, json_t *finding, size_t index,
                       const char *root)
{
    const char *rule = json_string_value(json_object_get(finding, "rule"));
    const char *file = json_string_value(json_object_get(finding, "file"));
    char *name = hs_printf("hotscan-%s", rule ? rule : "finding");
    char *joined = hs_path_join(root, file ? file : "");
    char *real = hs_realpath(joined);
    const char *path = real ? real : joined;
    size_t offset = 0;
    const hs_file_edits *fe = real ? plan_file(plan, real) : NULL;
    json_int_t line = json_integer_value(json_object_get(finding, "line"));
    json_int_t column = json_integer_value(json_object_get(finding, "column"));
    if (fe) {
        offset = offset_of(fe->content, fe->size, line, column);
    } else if (real) {
        size_t size;
        char *content = hs_read_file(real, &size);
        if (content)
            offset = offset_of(content, size, line, column);
        free(content);
    }

    mapping_start(w);
    key_string(w, "DiagnosticName", name);
    scalar(w, "DiagnosticMessage", false);
    mapping_start(w);
    key_string(w, "Message", json_string_value(json_object_get(finding, "message")));
    key_string(w, "FilePath", path);
    key_number(w, "FileOffset", offset);
    scalar(w, "Replacements", false);
    sequence_start(w);
    for (size_t i = 0; i < plan->files.len; i++) {
        const hs_file_edits *f = plan->files.items[i];
        for (size_t k = 0; k < f->edits.len; k++) {
            const hs_edit *e = f->edits.items[k];
            if (e->finding_index != index)
                continue;
            mapping_start(w);
            key_string(w, "FilePath", f->real_path);
            key_number(w, "Offset", e->offset);
            key_number(w, "Length", e->length);
            key_string(w, "ReplacementText", e->replacement);
            mapping_end(w);
        }
    }
    sequence_end(w);
    mapping_end(w);
    scalar(w, "Level", false);
    scalar(w, "Warning", false); /* an enumeration, written plain as clang-tidy does */
    key_string(w, "BuildDirectory", root);
    mapping_end(w);
    free(name);
    free(joined);
    free(real);
}

bool hs_emit_export_fixes(FILE *out, json_t *report, char **err)
{
    hs_edit_plan plan;
    if (!hs_edit_plan_build_fresh(report, &plan, err))
        return false;

    writer w = {.failed = false};
    if (!yaml_emitter_initialize(&w.emitter)) {
        *err = hs_xstrdup("cannot initialize the YAML emitter");
        hs_edit_plan_free(&plan);
        return false;
    }
    yaml_emitter_set_output(&w.emitter, write_handler, out);
    yaml_emitter_set_unicode(&w.emitter, 1);
    yaml_emitter_set_width(&w.emitter, -1);

    yaml_event_t ev;
    yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
    emit(&w, &ev);
    yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 0);
    emit(&w, &ev);
    mapping_start(&w);
    key_string(&w, "MainSourceFile", "");
    scalar(&w, "Diagnostics", false);
    sequence_start(&w);
    size_t i;
    json_t *finding;
    json_array_foreach(json_object_get(report, "findings"), i, finding)
        if (has_verified_fix(finding))
            diagnostic(&w, &plan, finding, i, plan.root);
    sequence_end(&w);
    mapping_end(&w);
    yaml_document_end_event_initialize(&ev, 0);
    emit(&w, &ev);
    yaml_stream_end_event_initialize(&ev);
    emit(&w, &ev);

    bool ok = !w.failed;
    if (!ok)
        *err = hs_printf("cannot write the export-fixes YAML: %s",
                         w.emitter.problem ? w.emitter.problem : "write error");
    yaml_emitter_delete(&w.emitter);
    hs_edit_plan_free(&plan);
    return ok;
}
