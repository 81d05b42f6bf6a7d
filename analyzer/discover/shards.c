/*
 * shards.c - the two other ways to choose a scan's TUs (issue 15): one shard of a compile
 * database for a CI matrix job (`scan --shard K/N --facts-out DIR`), and the TUs of facts
 * files that such jobs (or `hotscan extract` in a build) wrote, for `hotscan judge`.
 *
 * A judge must merge in the order one whole scan would, or a header's facts could come from
 * another TU and a fix be verified elsewhere: each facts file's "command" member carries the
 * TU's place among all the TUs of the scan that wrote it, and the judge sorts by it (files
 * from `hotscan extract`, which knows no such place, come after, by file and arguments).
 */
#define _GNU_SOURCE
#include "hotscan/discover.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hotscan/common.h"
#include "hotscan/facts.h"

void hs_discovery_shard(hs_discovery *d, unsigned k, unsigned n)
{
    hs_vec kept = {0};
    size_t *index = hs_xcalloc(d->tus.len ? d->tus.len : 1, sizeof *index);
    for (size_t i = 0; i < d->tus.len; i++) {
        size_t place = d->global_index ? d->global_index[i] : i;
        if (place % n == k - 1) {
            index[kept.len] = place;
            hs_vec_push(&kept, d->tus.items[i]);
        } else {
            hs_tu_input_free(d->tus.items[i]);
        }
    }
    hs_vec_free(&d->tus);
    d->tus = kept;
    free(d->global_index);
    d->global_index = index;
}

/* One facts file's TU, as the judge orders it. */
typedef struct {
    char *path;
    hs_tu_input *in;
    long long place; /* -1: unknown (hotscan extract) */
    size_t database_tus, selected_tus, left_out; /* as the writing scan's discovery had them */
} facts_entry;

static int by_place(const void *pa, const void *pb)
{
    const facts_entry *a = pa, *b = pb;
    if ((a->place < 0) != (b->place < 0))
        return a->place < 0 ? 1 : -1;
    if (a->place != b->place)
        return a->place < b->place ? -1 : 1;
    int c = strcmp(a->in->file, b->in->file);
    if (c)
        return c;
    for (int i = 0; i < a->in->argc && i < b->in->argc; i++)
        if ((c = strcmp(a->in->argv[i], b->in->argv[i])) != 0)
            return c;
    return a->in->argc - b->in->argc;
}

static bool read_entry(const char *path, facts_entry *e, char **err)
{
    json_error_t jerr;
    /* The TU and its command only: the facts themselves are read once, by the merge. */
    static const char *const members[] = {"tu", "command", "default_flags", NULL};
    json_t *doc = hs_facts_load_members(path, members, &jerr);
    if (!doc) {
        *err = hs_printf("%s:%d:%d: %s", path, jerr.line, jerr.column, jerr.text);
        return false;
    }
    json_t *cmd = json_object_get(doc, "command");
    json_t *args = json_object_get(cmd, "arguments");
    const char *tu = json_string_value(json_object_get(doc, "tu"));
    const char *dir = json_string_value(json_object_get(cmd, "directory"));
    bool ok = tu && dir && json_is_array(args) && json_array_size(args) > 0;
    for (size_t i = 0; ok && i < json_array_size(args); i++)
        ok = json_is_string(json_array_get(args, i));
    if (!ok) {
        *err = hs_printf("%s: not a facts file hotscan can judge: it needs \"tu\" and a \"command\" with "
                         "\"directory\" and \"arguments\" (written by scan --facts-out or hotscan extract)",
                         path);
        json_decref(doc);
        return false;
    }
    e->path = hs_xstrdup(path);
    e->in = hs_xcalloc(1, sizeof *e->in);
    e->in->file = hs_xstrdup(tu);
    e->in->directory = hs_xstrdup(dir);
    e->in->argc = (int)json_array_size(args);
    e->in->argv = hs_xcalloc((size_t)e->in->argc + 1, sizeof(char *));
    for (int i = 0; i < e->in->argc; i++)
        e->in->argv[i] = hs_xstrdup(json_string_value(json_array_get(args, (size_t)i)));
    e->in->default_flags = json_is_true(json_object_get(doc, "default_flags"));
    json_t *place = json_object_get(cmd, "index");
    e->place = json_is_integer(place) && json_integer_value(place) >= 0 ? (long long)json_integer_value(place) : -1;
    e->database_tus = (size_t)json_integer_value(json_object_get(cmd, "database_tus"));
    e->selected_tus = (size_t)json_integer_value(json_object_get(cmd, "selected_tus"));
    e->left_out = (size_t)json_integer_value(json_object_get(cmd, "left_out"));
    json_decref(doc);
    return true;
}

/* The facts files a PATH names: itself, or a folder's *.json in name order. */
static bool list_facts(const char *path, hs_vec *files, char **err)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        *err = hs_printf("%s: %s", path, strerror(errno));
        return false;
    }
    if (!S_ISDIR(st.st_mode)) {
        hs_vec_push(files, hs_xstrdup(path));
        return true;
    }
    if (access(path, R_OK | X_OK) != 0) {
        *err = hs_printf("%s: %s", path, strerror(errno));
        return false;
    }
    hs_list_json_files(path, 0, files);
    return true;
}

bool hs_discover_from_facts(char **paths, int npaths, hs_discovery *out, char **err)
{
    memset(out, 0, sizeof *out);
    hs_vec files = {0};
    bool ok = npaths > 0;
    if (!ok)
        *err = hs_xstrdup("no facts given: name the files or folders that scan --facts-out or hotscan "
                          "extract wrote");
    for (int i = 0; ok && i < npaths; i++)
        ok = list_facts(paths[i], &files, err);
    facts_entry *entries = hs_xcalloc(files.len ? files.len : 1, sizeof *entries);
    size_t n = 0;
    for (size_t i = 0; ok && i < files.len; i++)
        if ((ok = read_entry(files.items[i], &entries[n], err)))
            n++;
    if (ok && n == 0) {
        *err = hs_printf("no facts files under %s", paths[0]);
        ok = false;
    }
    if (ok)
        qsort(entries, n, sizeof *entries, by_place);
    for (size_t i = 1; ok && i < n; i++)
        if (entries[i].place >= 0 && entries[i].place == entries[i - 1].place) {
            *err = hs_printf("%s and %s hold the same TU (place %lld): give each shard's facts once",
                             entries[i - 1].path, entries[i].path, entries[i].place);
            ok = false;
        }
    if (ok) {
        out->global_index = hs_xcalloc(n, sizeof *out->global_index);
        size_t selected = 0;
        for (size_t i = 0; i < n; i++) {
            out->global_index[i] = entries[i].place >= 0 ? (size_t)entries[i].place : i;
            hs_vec_push(&out->tus, entries[i].in);
            hs_vec_push(&out->facts_files, entries[i].path);
            if (entries[i].database_tus > out->database_tus)
                out->database_tus = entries[i].database_tus;
            if (entries[i].selected_tus > selected)
                selected = entries[i].selected_tus;
            if (entries[i].left_out > out->left_out)
                out->left_out = entries[i].left_out;
            entries[i].in = NULL;
            entries[i].path = NULL;
        }
        /* Shards missing from the judge leave part of the program unseen, as PATHs do. */
        out->selected_tus = n;
        if (selected > n && out->database_tus)
            out->left_out += selected - n;
    }
    for (size_t i = 0; i < n; i++) {
        if (entries[i].in)
            hs_tu_input_free(entries[i].in);
        free(entries[i].path);
    }
    free(entries);
    for (size_t i = 0; i < files.len; i++)
        free(files.items[i]);
    hs_vec_free(&files);
    return ok;
}
