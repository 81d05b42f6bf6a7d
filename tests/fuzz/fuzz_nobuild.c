/*
 * fuzz_nobuild.c - libFuzzer target for the no-build reader (scan --no-build): the input is a
 * small tree of C/C++ files, read as a scan reads it: discovered (hs_nobuild_discover), parsed
 * with tree-sitter and indexed across the files, each file's facts document made and merged
 * (hs_nobuild_extract_all into hs_merge_tu_result), every rule judged over the model, the
 * findings marked as from syntax, and the NOLINT comments of every file applied and checked
 * for unused ones. Beyond memory errors and leaks it checks each facts document's ownership
 * (no node reached more often than its reference count says: a borrowed value appended with
 * json_array_append_new once freed an "ordinal" twice, inside jansson, where ASan does not
 * look) and what the mode promises: every finding is marked from_syntax, at most medium
 * confidence, and has no fix-it.
 *
 * The input is split at each "\n@@\n" into at most four files, a.c, h.h, b.cc and t.def (the
 * last is no C/C++ file: read only where a file #includes "t.def"), written into a folder
 * made once per process and removed at exit.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "hotscan/common.h"
#include "hotscan/judge.h"
#include "hotscan/merge.h"
#include "hotscan/nobuild.h"
#include "hotscan/suppress.h"

#define NFILES 4
static const char *const names[NFILES] = {"a.c", "h.h", "b.cc", "t.def"};

static hs_ruledata *rd;
static char dir[] = "/tmp/hotscan-fuzz-nobuild-XXXXXX";

static void remove_tree(void)
{
    for (int i = 0; i < NFILES; i++) {
        char *p = hs_path_join(dir, names[i]);
        unlink(p);
        free(p);
    }
    rmdir(dir);
}

static void set_up(void)
{
    rd = hs_ruledata_create();
    char *err = NULL;
    if (!hs_ruledata_load_dir(rd, HOTSCAN_FUZZ_RULES_DIR, &err))
        abort();
    if (!mkdtemp(dir))
        abort();
    atexit(remove_tree);
}

/* Writes the input's pieces as the tree's files; a file with no piece is removed. */
static void write_tree(const uint8_t *data, size_t size)
{
    static const char sep[] = "\n@@\n";
    size_t at = 0;
    for (int i = 0; i < NFILES; i++) {
        char *p = hs_path_join(dir, names[i]);
        if (at > size) {
            unlink(p);
            free(p);
            continue;
        }
        const uint8_t *end = i + 1 < NFILES ? memmem(data + at, size - at, sep, sizeof sep - 1) : NULL;
        size_t n = end ? (size_t)(end - (data + at)) : size - at;
        FILE *f = fopen(p, "wb");
        if (!f || (n && fwrite(data + at, 1, n, f) != n) || fclose(f) != 0)
            abort();
        free(p);
        at = end ? at + n + sizeof sep - 1 : size + 1;
    }
}

static void collect_nodes(json_t *j, hs_vec *seen)
{
    if (!json_is_object(j) && !json_is_array(j) && !json_is_string(j) && !json_is_number(j))
        return; /* true, false and null are shared constants */
    hs_vec_push(seen, j);
    size_t i;
    const char *key;
    json_t *v;
    if (json_is_object(j))
        json_object_foreach(j, key, v) collect_nodes(v, seen);
    else if (json_is_array(j))
        json_array_foreach(j, i, v) collect_nodes(v, seen);
}

static int compare_pointers(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t) * (void *const *)a, y = (uintptr_t) * (void *const *)b;
    return x < y ? -1 : x > y;
}

/* Each facts document before it is merged: a node held by k parents has k references. */
static void check_then_merge(size_t index, hs_tu_result *result, void *user)
{
    hs_vec seen = {0};
    collect_nodes(result->facts, &seen);
    if (seen.len)
        qsort(seen.items, seen.len, sizeof(void *), compare_pointers);
    for (size_t i = 0, k; i < seen.len; i = k) {
        for (k = i + 1; k < seen.len && seen.items[k] == seen.items[i];)
            k++;
        if (((json_t *)seen.items[i])->refcount < k - i)
            abort(); /* a node held more often than referenced: it will be freed twice */
    }
    hs_vec_free(&seen);
    hs_merge_tu_result(index, result, user);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!rd)
        set_up();
    write_tree(data, size);

    hs_discovery disc;
    char *err = NULL;
    if (!hs_nobuild_discover(NULL, 0, dir, &disc, &err))
        abort(); /* the folder and its files exist */
    hs_merge m;
    hs_merge_init(&m, &disc, dir, NULL, NULL);
    hs_pool_options pool = {.rd = rd, .root = dir, .on_result = check_then_merge, .user = &m,
                            .on_result_drops_facts = true};
    hs_nobuild_extract_all((hs_tu_input **)disc.tus.items, disc.tus.len, &pool);

    char *hot[] = {"main", "f", "d", "handle", "event_loop"};
    hs_judge_options jo = {.hot = hot, .n_hot = 5};
    json_t *extra = NULL;
    json_t *findings = hs_judge_run(m.program, rd, &jo, &extra);
    hs_nobuild_mark_findings(findings);
    size_t i;
    json_t *f;
    json_array_foreach(findings, i, f) {
        const char *c = json_string_value(json_object_get(f, "confidence"));
        if (!json_is_true(json_object_get(f, "from_syntax")) || !c || strcmp(c, "high") == 0 ||
            json_array_size(json_object_get(f, "fixes")) > 0)
            abort(); /* a finding from syntax must say so, stay below high, and offer no fix */
    }

    hs_suppressions *sup = hs_suppressions_create(dir);
    hs_suppressions_mark(sup, findings);
    for (size_t k = 0; k < disc.tus.len; k++)
        hs_suppressions_load(sup, ((hs_tu_input *)disc.tus.items[k])->file);
    json_decref(hs_suppressions_unused(sup));
    hs_suppressions_delete(sup);

    json_decref(findings);
    json_decref(extra);
    hs_merge_free(&m);
    hs_discovery_free(&disc);
    return 0;
}
