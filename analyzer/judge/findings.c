/*
 * findings.c - constructors for schema v1 findings and the final normalization pass.
 */
#include "hotscan/findings.h"
#include "hotscan/common.h"
#include "hotscan/strmap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A fact object's place as a site; absent end positions read as the start. */
static hs_site site_of_fact(json_t *fact)
{
    hs_site site = {0};
    site.file = json_string_value(json_object_get(fact, "file"));
    site.line = (unsigned)json_integer_value(json_object_get(fact, "line"));
    site.column = (unsigned)json_integer_value(json_object_get(fact, "column"));
    bool has_end = json_object_get(fact, "end_line") && json_object_get(fact, "end_column");
    site.end_line = has_end ? (unsigned)json_integer_value(json_object_get(fact, "end_line")) : site.line;
    site.end_column = has_end ? (unsigned)json_integer_value(json_object_get(fact, "end_column")) : site.column;
    return site;
}

json_t *hs_finding_new(const char *rule, const char *severity, const char *confidence,
                       json_t *fact, const char *function, const char *message)
{
    hs_site site = site_of_fact(fact);
    return hs_finding_at(rule, severity, confidence, &site, function, message);
}

json_t *hs_finding_at(const char *rule, const char *severity, const char *confidence, const hs_site *site,
                      const char *function, const char *message)
{
    json_t *f = json_object();
    json_object_set_new(f, "rule", json_string(rule));
    json_object_set_new(f, "severity", json_string(severity));
    json_object_set_new(f, "confidence", json_string(confidence));
    json_object_set_new(f, "file", json_string(site->file ? site->file : ""));
    json_object_set_new(f, "line", json_integer(site->line));
    json_object_set_new(f, "column", json_integer(site->column));
    json_object_set_new(f, "end_line", json_integer(site->end_line));
    json_object_set_new(f, "end_column", json_integer(site->end_column));
    json_object_set_new(f, "function", json_string(function ? function : ""));
    json_object_set_new(f, "message", json_string(message));
    json_object_set_new(f, "hot_path", json_array());
    json_object_set_new(f, "related", json_array());
    json_object_set_new(f, "fixes", json_array());
    return f;
}

void hs_finding_add_related(json_t *finding, const char *file, unsigned line, unsigned column,
                            const char *message)
{
    json_array_append_new(json_object_get(finding, "related"),
                          json_pack("{s:s, s:i, s:i, s:s}", "file", file, "line", (json_int_t)line,
                                    "column", (json_int_t)column, "message", message));
}

void hs_finding_add_path_step(json_t *finding, const char *function, const char *file, unsigned line)
{
    json_array_append_new(json_object_get(finding, "hot_path"),
                          json_pack("{s:s, s:s, s:i}", "function", function, "file", file, "line",
                                    (json_int_t)line));
}

void hs_finding_add_fix(json_t *finding, const char *description, json_t *edits)
{
    json_array_append_new(json_object_get(finding, "fixes"),
                          json_pack("{s:s, s:b, s:o}", "description", description, "verified", 0,
                                    "edits", edits));
}

int hs_severity_rank(const char *severity)
{
    if (strcmp(severity, "error") == 0)
        return 3;
    if (strcmp(severity, "warning") == 0)
        return 2;
    return 1;
}

static void relativize(json_t *obj, const char *key, const char *root)
{
    const char *path = json_string_value(json_object_get(obj, key));
    if (!path || path[0] != '/')
        return;
    char *rel = hs_path_relative(root, path);
    json_object_set_new(obj, key, json_string(rel));
    free(rel);
}

static void relativize_array(json_t *arr, const char *root)
{
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e) relativize(e, "file", root);
}

static int compare_findings(const void *pa, const void *pb)
{
    json_t *a = *(json_t *const *)pa, *b = *(json_t *const *)pb;
    int c = strcmp(json_string_value(json_object_get(a, "file")), json_string_value(json_object_get(b, "file")));
    if (c)
        return c;
    static const char *const keys[] = {"line", "column"};
    for (size_t i = 0; i < 2; i++) {
        json_int_t x = json_integer_value(json_object_get(a, keys[i]));
        json_int_t y = json_integer_value(json_object_get(b, keys[i]));
        if (x != y)
            return x < y ? -1 : 1;
    }
    c = strcmp(json_string_value(json_object_get(a, "rule")), json_string_value(json_object_get(b, "rule")));
    if (c)
        return c;
    return strcmp(json_string_value(json_object_get(a, "message")),
                  json_string_value(json_object_get(b, "message")));
}

void hs_findings_finalize(json_t *findings, const char *root)
{
    size_t n = json_array_size(findings);
    json_t **items = hs_xcalloc(n ? n : 1, sizeof(json_t *));
    for (size_t i = 0; i < n; i++) {
        json_t *f = json_incref(json_array_get(findings, i));
        items[i] = f;
        relativize(f, "file", root);
        relativize_array(json_object_get(f, "hot_path"), root);
        relativize_array(json_object_get(f, "related"), root);
        size_t k;
        json_t *fix;
        json_array_foreach(json_object_get(f, "fixes"), k, fix)
            relativize_array(json_object_get(fix, "edits"), root);
    }
    qsort(items, n, sizeof(json_t *), compare_findings);
    json_array_clear(findings);
    /* Fingerprint: rule, file, function and the code's text, plus an occurrence count. */
    hs_strmap *occurrences = hs_strmap_create();
    for (size_t i = 0; i < n; i++) {
        json_t *f = items[i];
        const char *code = json_string_value(json_object_get(f, "fingerprint_basis"));
        char *basis = hs_printf("%s|%s|%s|%s", json_string_value(json_object_get(f, "rule")),
                                json_string_value(json_object_get(f, "file")),
                                json_string_value(json_object_get(f, "function")),
                                code ? code : json_string_value(json_object_get(f, "message")));
        size_t count = (size_t)(uintptr_t)hs_strmap_get(occurrences, basis);
        hs_strmap_put(occurrences, basis, (void *)(uintptr_t)(count + 1));
        unsigned long long h = hs_hash64(basis, strlen(basis), (unsigned long long)count);
        char fp[24];
        snprintf(fp, sizeof fp, "%016llx", h);
        json_object_set_new(f, "fingerprint", json_string(fp));
        json_object_del(f, "fingerprint_basis");
        free(basis);
        json_array_append_new(findings, f);
    }
    hs_strmap_delete(occurrences);
    free(items);
}

int hs_confidence_rank(const char *c)
{
    return strcmp(c, "low") == 0 ? 1 : strcmp(c, "medium") == 0 ? 2 : strcmp(c, "high") == 0 ? 3 : 0;
}

static bool below(json_t *finding, int min_rank)
{
    const char *c = json_string_value(json_object_get(finding, "confidence"));
    return hs_confidence_rank(c ? c : "high") < min_rank;
}

json_t *hs_findings_at_least(json_t *findings, int min_rank)
{
    json_t *kept = json_array();
    size_t i;
    json_t *f;
    json_array_foreach(findings, i, f)
        if (!below(f, min_rank))
            json_array_append(kept, f);
    return kept;
}

size_t hs_findings_drop_below(json_t *findings, int min_rank)
{
    size_t dropped = 0;
    for (size_t i = json_array_size(findings); i-- > 0;) {
        if (below(json_array_get(findings, i), min_rank)) {
            json_array_remove(findings, i);
            dropped++;
        }
    }
    return dropped;
}

size_t hs_findings_drop_marked(json_t *findings, const char *key)
{
    size_t dropped = 0;
    for (size_t i = json_array_size(findings); i-- > 0;) {
        if (json_is_true(json_object_get(json_array_get(findings, i), key))) {
            json_array_remove(findings, i);
            dropped++;
        }
    }
    return dropped;
}
