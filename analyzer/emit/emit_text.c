/*
 * emit_text.c - compiler-style diagnostics, so editors and CI log parsers pick them up:
 *
 *   src/trx0trx.cc:1187:28: error: clock() on a hot path costs ... [timer-hot-path]
 *   src/sql_parse.cc:1021:3: note: hot path: dispatch_command calls trx_start_low here
 */
#include "hotscan/emit.h"

#include <string.h>

typedef struct {
    const char *bold, *error, *warning, *note, *reset;
} palette;

static const palette colors = {"\033[1m", "\033[1;31m", "\033[1;35m", "\033[1;36m", "\033[0m"};
static const palette plain = {"", "", "", "", ""};

static const char *str(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static long long num(json_t *o, const char *k)
{
    return (long long)json_integer_value(json_object_get(o, k));
}

static void note(FILE *out, const palette *p, const char *file, long long line, long long col,
                 const char *fmt_msg)
{
    fprintf(out, "%s%s:%lld:%lld:%s %snote:%s %s\n", p->bold, file, line, col > 0 ? col : 1, p->reset,
            p->note, p->reset, fmt_msg);
}

bool hs_emit_text(FILE *out, json_t *report, bool color)
{
    const palette *p = color ? &colors : &plain;
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(report, "findings"), i, f) {
        const char *sev = str(f, "severity");
        const char *sev_color = strcmp(sev, "error") == 0 ? p->error
                                : strcmp(sev, "warning") == 0 ? p->warning
                                                              : p->note;
        /* A finding of the no-build mode (--no-build) says so: tree-sitter saw it, no compiler. */
        fprintf(out, "%s%s:%lld:%lld:%s %s%s:%s %s [%s]%s\n", p->bold, str(f, "file"), num(f, "line"),
                num(f, "column"), p->reset, sev_color, sev, p->reset, str(f, "message"), str(f, "rule"),
                json_is_true(json_object_get(f, "from_syntax")) ? " [from syntax]" : "");
        json_t *prof = json_object_get(f, "profile");
        if (prof) {
            char msg[1024];
            double self = json_number_value(json_object_get(prof, "self"));
            double incl = json_number_value(json_object_get(prof, "inclusive"));
            const char *fn = str(f, "function");
            if (!json_is_true(json_object_get(prof, "sampled")))
                snprintf(msg, sizeof msg, "profile: %s was never sampled", fn);
            else if (json_object_get(prof, "symbol") && json_integer_value(json_object_get(prof, "symbol_samples")) == 0)
                snprintf(msg, sizeof msg, "profile: %s was not seen under %s (%s: self %.2f%%, inclusive %.2f%%)",
                         str(prof, "symbol"), fn, fn, self, incl);
            else if (json_object_get(prof, "symbol"))
                snprintf(msg, sizeof msg, "profile: %s takes %.2f%% of the samples under %s (%s: self %.2f%%, "
                         "inclusive %.2f%%)", str(prof, "symbol"),
                         json_number_value(json_object_get(prof, "symbol_share")), fn, fn, self, incl);
            else
                snprintf(msg, sizeof msg, "profile: %s has %.2f%% of the samples itself, %.2f%% inclusive", fn,
                         self, incl);
            json_t *callers = json_object_get(prof, "callers");
            size_t used = strlen(msg);
            for (size_t c = 0; c < json_array_size(callers) && used < sizeof msg; c++) {
                json_t *caller = json_array_get(callers, c);
                int w = snprintf(msg + used, sizeof msg - used, "%s %s %.2f%%", c ? "," : "; called from",
                                 str(caller, "function"), json_number_value(json_object_get(caller, "share")));
                used += w > 0 ? (size_t)w : 0;
            }
            note(out, p, str(f, "file"), num(f, "line"), num(f, "column"), msg);
        }
        json_t *path = json_object_get(f, "hot_path");
        size_t n = json_array_size(path);
        for (size_t k = 0; k + 1 < n; k++) {
            json_t *step = json_array_get(path, k);
            json_t *next = json_array_get(path, k + 1);
            char msg[1024];
            const char *via = str(step, "via");
            long long targets = num(step, "targets");
            char among[64];
            if (targets > 1)
                snprintf(among, sizeof among, ", one of %lld targets", targets);
            else
                among[0] = 0;
            if (json_is_true(json_object_get(step, "virtual")))
                snprintf(msg, sizeof msg, "hot path: %s calls %s here (a virtual call to %s%s)",
                         str(step, "function"), str(next, "function"), via, among);
            else if (via[0])
                snprintf(msg, sizeof msg, "hot path: %s calls %s here (through %s%s)",
                         str(step, "function"), str(next, "function"), via, among);
            else
                snprintf(msg, sizeof msg, "hot path: %s calls %s here", str(step, "function"),
                         str(next, "function"));
            note(out, p, str(step, "file"), num(step, "line"), num(step, "column"), msg);
        }
        size_t k;
        json_t *rel;
        json_array_foreach(json_object_get(f, "related"), k, rel)
            note(out, p, str(rel, "file"), num(rel, "line"), num(rel, "column"), str(rel, "message"));
        json_t *fix;
        json_array_foreach(json_object_get(f, "fixes"), k, fix) {
            char msg[1024];
            snprintf(msg, sizeof msg, "fix-it%s: %s", json_is_true(json_object_get(fix, "verified")) ? "" : " (unverified)",
                     str(fix, "description"));
            note(out, p, str(f, "file"), num(f, "line"), num(f, "column"), msg);
        }
    }
    /* --report-unused-suppressions: each as a warning where it is written. */
    json_array_foreach(json_object_get(report, "unused_suppressions"), i, f)
        fprintf(out, "%s%s:%lld:%lld:%s %swarning:%s %s %s [unused-suppression]\n", p->bold, str(f, "file"),
                num(f, "line"), num(f, "column"), p->reset, p->warning, p->reset, str(f, "text"),
                str(f, "message"));
    return !ferror(out);
}
