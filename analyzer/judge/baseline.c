/*
 * baseline.c - --baseline: the fingerprints of an earlier report (hotscan JSON or SARIF),
 * so a tree adopting hotscan can accept what it has and fail only on new findings.
 * Fingerprints are built from what a finding is (rule, file, function, code), not its line,
 * so findings survive unrelated edits above them.
 */
#include "hotscan/baseline.h"

#include <string.h>

#include "hotscan/common.h"

static void add(hs_strmap *fps, json_t *fp)
{
    if (json_is_string(fp) && json_string_value(fp)[0])
        hs_strmap_put(fps, json_string_value(fp), (void *)1);
}

bool hs_baseline_load(const char *path, hs_strmap *fingerprints, char **err)
{
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    if (!doc) {
        *err = jerr.line > 0 ? hs_printf("%s:%d:%d: not valid JSON: %s (--baseline)", path, jerr.line,
                                         jerr.column, jerr.text)
                             : hs_printf("%s: %s (--baseline)", path, jerr.text);
        return false;
    }
    bool ok = true;
    json_t *findings = json_object_get(doc, "findings");
    json_t *runs = json_object_get(doc, "runs");
    size_t i, k;
    json_t *e, *run;
    if (json_is_array(findings)) {
        json_array_foreach(findings, i, e) add(fingerprints, json_object_get(e, "fingerprint"));
    } else if (json_is_array(runs)) {
        json_array_foreach(runs, k, run) {
            json_array_foreach(json_object_get(run, "results"), i, e)
                add(fingerprints, json_object_get(json_object_get(e, "partialFingerprints"), "hotscan/v1"));
        }
    } else {
        *err = hs_printf("%s: not a hotscan report (no \"findings\") or SARIF log (no \"runs\") "
                         "(--baseline)", path);
        ok = false;
    }
    json_decref(doc);
    return ok;
}

size_t hs_baseline_mark(json_t *findings, const hs_strmap *fingerprints)
{
    size_t n = 0, i;
    json_t *f;
    json_array_foreach(findings, i, f) {
        const char *fp = json_string_value(json_object_get(f, "fingerprint"));
        if (fp && hs_strmap_has(fingerprints, fp)) {
            json_object_set_new(f, "baselined", json_true());
            n++;
        }
    }
    return n;
}
