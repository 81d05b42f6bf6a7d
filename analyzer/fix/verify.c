/*
 * verify.c - the fix stage (verify.h): applies each fix's edits to the scanned files in
 * memory and reparses the TU with them, keeping only fixes that add no compile error.
 */
#define _GNU_SOURCE
#include "hotscan/verify.h"

#include <stdlib.h>
#include <string.h>

#include "hotscan/common.h"
#include "hotscan/edits.h"
#include "hotscan/strmap.h"

/* Applies a fix's edits for one file to its content (edits must not overlap). */
static char *apply_edits_to(const char *content, size_t size, json_t *edits, const char *file, bool *ok)
{
    size_t n = 0;
    json_t *mine[64];
    size_t i;
    json_t *e;
    json_array_foreach(edits, i, e) {
        if (strcmp(json_string_value(json_object_get(e, "file")), file) == 0 && n < 64)
            mine[n++] = e;
    }
    /* Insertion order by offset, then apply back to front so offsets stay valid. */
    for (size_t a = 1; a < n; a++)
        for (size_t b = a; b > 0 && json_integer_value(json_object_get(mine[b - 1], "offset")) >
                                        json_integer_value(json_object_get(mine[b], "offset")); b--) {
            json_t *t = mine[b];
            mine[b] = mine[b - 1];
            mine[b - 1] = t;
        }
    hs_buf out;
    hs_buf_init(&out);
    size_t pos = 0;
    *ok = true;
    for (size_t k = 0; k < n; k++) {
        size_t off = (size_t)json_integer_value(json_object_get(mine[k], "offset"));
        size_t len = (size_t)json_integer_value(json_object_get(mine[k], "length"));
        if (off < pos || off + len > size) {
            *ok = false;
            break;
        }
        hs_buf_append(&out, content + pos, off - pos);
        hs_buf_puts(&out, json_string_value(json_object_get(mine[k], "replacement")));
        pos = off + len;
    }
    if (*ok)
        hs_buf_append(&out, content + pos, size - pos);
    return hs_buf_take(&out);
}

/*
 * Verifies every fix by reparsing the TU that saw its finding with the fix's edits
 * applied in memory: a fix that adds a compile error is dropped, and the finding says
 * why. Also records each edited file's content hash in the report's "files" map, so
 * `hotscan apply` can refuse files that changed since.
 */
void hs_fix_verify(json_t *findings, hs_tu_input **tus, const int *baseline, const hs_pool_options *pool,
                   json_t *files_map, const char *root, FILE *log)
{
    hs_strmap *contents = hs_strmap_create(); /* absolute path -> json string (content) */
    hs_vec jobs = {0};
    hs_vec targets = {0}; /* json fix objects, parallel to jobs */
    hs_vec owners = {0};  /* json finding objects */
    size_t i;
    json_t *f;
    json_array_foreach(findings, i, f) {
        json_t *fixes = json_object_get(f, "fixes");
        json_t *tu = json_object_get(f, "tu_index");
        size_t k;
        json_t *fix;
        json_array_foreach(fixes, k, fix) {
            json_t *edits = json_object_get(fix, "edits");
            json_t *unsaved = json_array();
            bool ok = json_is_integer(tu);
            size_t e;
            json_t *edit;
            json_array_foreach(edits, e, edit) {
                const char *file = json_string_value(json_object_get(edit, "file"));
                bool seen = false;
                size_t u;
                json_t *entry;
                json_array_foreach(unsaved, u, entry) seen |= strcmp(json_string_value(json_object_get(entry, "file")), file) == 0;
                if (seen || !ok)
                    continue;
                json_t *content = hs_strmap_get(contents, file);
                if (!content) {
                    size_t size = 0;
                    char *text = hs_read_file(file, &size);
                    content = text ? json_stringn(text, size) : json_null();
                    hs_strmap_put(contents, file, content);
                    free(text);
                }
                if (!json_is_string(content)) {
                    ok = false;
                    continue;
                }
                bool applied;
                char *changed = apply_edits_to(json_string_value(content), json_string_length(content), edits, file, &applied);
                ok = ok && applied;
                json_array_append_new(unsaved, json_pack("{s:s, s:s}", "file", file, "content", changed));
                free(changed);
            }
            if (!ok) {
                json_decref(unsaved);
                json_object_set_new(fix, "verified", json_false());
                json_object_set_new(fix, "rejected", json_string("its edits could not be applied to the file as read"));
                continue;
            }
            hs_verify_job *job = hs_xcalloc(1, sizeof *job);
            job->tu = (size_t)json_integer_value(tu);
            job->unsaved = unsaved;
            hs_vec_push(&jobs, job);
            hs_vec_push(&targets, fix);
            hs_vec_push(&owners, f);
        }
    }
    if (jobs.len) {
        hs_verify_job *flat = hs_xcalloc(jobs.len, sizeof *flat);
        for (size_t j = 0; j < jobs.len; j++)
            flat[j] = *(hs_verify_job *)jobs.items[j];
        hs_tu_result *results = hs_xcalloc(jobs.len, sizeof *results);
        char *err = NULL;
        hs_pool_options o = *pool;
        o.progress = false;
        if (!hs_verify_all(tus, flat, jobs.len, &o, results, &err)) {
            fprintf(log, "hotscan: warning: fix-its could not be verified: %s\n", err);
            free(err);
        }
        for (size_t j = 0; j < jobs.len; j++) {
            json_t *fix = targets.items[j];
            json_t *r = results[j].facts;
            int base = baseline[flat[j].tu];
            if (r && json_integer_value(json_object_get(r, "errors")) <= base) {
                json_object_set_new(fix, "verified", json_true());
            } else {
                char *why = r ? hs_printf("the edit would add a compile error: %s",
                                          json_string_value(json_object_get(r, "first")))
                              : hs_printf("it could not be verified: %s", results[j].error ? results[j].error : "no result");
                json_object_set_new(fix, "verified", json_false());
                json_object_set_new(fix, "rejected", json_string(why));
                free(why);
            }
            json_decref(r);
            free(results[j].error);
            json_decref(flat[j].unsaved);
            free(jobs.items[j]);
        }
        free(results);
        free(flat);
    }
    /* Drop rejected fixes from the findings, keeping the reason on the finding. */
    json_array_foreach(findings, i, f) {
        json_t *fixes = json_object_get(f, "fixes");
        for (size_t k = json_array_size(fixes); k-- > 0;) {
            json_t *fix = json_array_get(fixes, k);
            json_t *rejected = json_object_get(fix, "rejected");
            if (rejected) {
                json_object_set(f, "fix_unavailable", rejected);
                json_array_remove(fixes, k);
                continue;
            }
            size_t e;
            json_t *edit;
            json_array_foreach(json_object_get(fix, "edits"), e, edit) {
                const char *file = json_string_value(json_object_get(edit, "file"));
                json_t *content = hs_strmap_get(contents, file);
                if (!json_is_string(content))
                    continue;
                char *rel = hs_path_relative(root, file);
                char *hash = hs_content_hash(json_string_value(content), json_string_length(content));
                json_object_set_new(files_map, rel, json_pack("{s:s, s:i}", "hash", hash, "size",
                                                              (json_int_t)json_string_length(content)));
                free(hash);
                free(rel);
            }
        }
        json_object_del(f, "tu_index");
    }
    const char *key;
    void *value;
    for (size_t it = 0; hs_strmap_next(contents, &it, &key, &value);)
        json_decref(value);
    hs_strmap_delete(contents);
    hs_vec_free(&jobs);
    hs_vec_free(&targets);
    hs_vec_free(&owners);
}

