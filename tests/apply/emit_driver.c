/*
 * emit_driver.c - test driver for the fix writers (tests/apply/run.sh).
 *
 *   emit_driver patch REPORT.json    hs_emit_patch to standard output
 *   emit_driver yaml REPORT.json     hs_emit_export_fixes to standard output
 *   emit_driver hash FILE            hs_content_hash of FILE (for a report's "files" map)
 *   emit_driver random SEED DIR      a random tree in DIR/root, a report with random
 *                                    non-overlapping verified edits in DIR/report.json, and
 *                                    the files as they must come out in DIR/expected/
 *
 * The random trees exercise the hunk builder where hand-written cases run out: edits at the
 * start and end, files without a final newline, empty files, edits that add or remove
 * newlines, several edits per line, replacement text full of YAML's special characters.
 * No commas: clang-apply-replacements runs clang-format's cleanup around its replacements,
 * which deletes commas it finds redundant, and random text is full of those.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "hotscan/common.h"
#include "hotscan/edits.h"
#include "hotscan/emit.h"

static unsigned long long rng_state;

static unsigned rnd(unsigned n)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return n ? (unsigned)((rng_state >> 33) % n) : 0;
}

static void random_text(hs_buf *b, unsigned max_len)
{
    static const char *pieces[] = {"a", "b", "x", " ", "  ", "\t", ";", "'", "\"", ":", ": ",
                                   "#", "- ", "{", "}", "[", "]", "\\", "%", "&", "*", "!",
                                   "|", ">", "@", "`", "=", "?", "é", "\n", "\n", "\n", "\n"};
    unsigned len = rnd(max_len + 1);
    for (unsigned i = 0; i < len; i++)
        hs_buf_puts(b, pieces[rnd(sizeof pieces / sizeof pieces[0])]);
}

static bool write_bytes(const char *path, const char *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return false;
    bool ok = fwrite(data, 1, size, f) == size;
    return fclose(f) == 0 && ok;
}

static int make_random(unsigned long long seed, const char *dir)
{
    rng_state = seed * 2654435761ULL + 1;
    char *root = hs_path_join(dir, "root");
    char *expected = hs_path_join(dir, "expected");
    if ((mkdir(root, 0755) != 0 && errno != EEXIST) ||
        (mkdir(expected, 0755) != 0 && errno != EEXIST)) {
        perror(dir);
        return 2;
    }
    char *real_root = hs_realpath(root);
    json_t *findings = json_array(), *files = json_object();
    unsigned nfiles = 1 + rnd(3), finding_no = 0;
    for (unsigned f = 0; f < nfiles; f++) {
        char name[32];
        snprintf(name, sizeof name, "f%u.c", f);
        hs_buf content;
        hs_buf_init(&content);
        unsigned lines = rnd(14);
        for (unsigned l = 0; l < lines; l++) {
            random_text(&content, 6);
            if (l + 1 < lines || rnd(3))
                hs_buf_puts(&content, "\n");
        }
        size_t size = content.len;
        const char *text = content.data ? content.data : "";
        /* Non-overlapping edits, left to right; adjacent ones allowed. */
        hs_buf out;
        hs_buf_init(&out);
        json_t *edits = json_array();
        size_t pos = 0;
        bool last_was_insertion = false;
        while (pos <= size && rnd(5) != 0) {
            size_t gap = rnd((unsigned)(size - pos + 1) < 12 ? (unsigned)(size - pos + 1) : 12);
            if (gap == 0 && last_was_insertion)
                gap = 1;
            if (pos + gap > size)
                break;
            size_t at = pos + gap;
            size_t room = size - at;
            size_t len = rnd((unsigned)(room < 6 ? room : 6) + 1);
            hs_buf repl;
            hs_buf_init(&repl);
            random_text(&repl, 5);
            const char *r = repl.data ? repl.data : "";
            hs_buf_append(&out, text + pos, at - pos);
            hs_buf_puts(&out, r);
            json_array_append_new(edits, json_pack("{s:s, s:I, s:I, s:s}", "file", name, "offset",
                                                   (json_int_t)at, "length", (json_int_t)len,
                                                   "replacement", r));
            pos = at + len;
            last_was_insertion = len == 0;
            hs_buf_free(&repl);
            if (pos == size && last_was_insertion)
                break;
        }
        hs_buf_append(&out, text + (pos < size ? pos : size), pos < size ? size - pos : 0);
        /* Group the edits into findings of one or two edits each. */
        for (size_t i = 0; i < json_array_size(edits);) {
            size_t take = 1 + rnd(2);
            json_t *fix_edits = json_array();
            for (size_t k = 0; k < take && i < json_array_size(edits); k++, i++)
                json_array_append(fix_edits, json_array_get(edits, i));
            char fp[32];
            snprintf(fp, sizeof fp, "%016x", ++finding_no);
            json_array_append_new(
                findings,
                json_pack("{s:s, s:s, s:s, s:i, s:i, s:s, s:[{s:s, s:b, s:o}], s:s}", "rule",
                          "atomic-seqcst-counter", "severity", "warning", "file", name, "line", 1,
                          "column", 1, "message", "a \"quoted\": message", "fixes", "description",
                          "random edit", "verified", 1, "edits", fix_edits, "fingerprint", fp));
        }
        json_decref(edits);
        char *hash = hs_content_hash(text, size);
        json_object_set_new(files, name, json_pack("{s:s, s:I}", "hash", hash, "size", (json_int_t)size));
        free(hash);
        char *path = hs_path_join(root, name), *want = hs_path_join(expected, name);
        if (!write_bytes(path, text, size) ||
            !write_bytes(want, out.data ? out.data : "", out.len)) {
            perror(path);
            return 2;
        }
        free(path);
        free(want);
        hs_buf_free(&content);
        hs_buf_free(&out);
    }
    json_t *report = json_pack("{s:i, s:s, s:o, s:o}", "schema_version", 1, "root", real_root,
                               "findings", findings, "files", files);
    char *report_path = hs_path_join(dir, "report.json");
    int rc = json_dump_file(report, report_path, JSON_INDENT(2)) == 0 ? 0 : 2;
    json_decref(report);
    free(report_path);
    free(real_root);
    free(root);
    free(expected);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "random") == 0)
        return make_random(strtoull(argv[2], NULL, 10), argv[3]);
    if (argc == 3 && strcmp(argv[1], "hash") == 0) {
        size_t size;
        char *data = hs_read_file(argv[2], &size);
        if (!data) {
            perror(argv[2]);
            return 2;
        }
        char *hash = hs_content_hash(data, size);
        printf("%s\n", hash);
        free(hash);
        free(data);
        return 0;
    }
    if (argc != 3 || (strcmp(argv[1], "patch") != 0 && strcmp(argv[1], "yaml") != 0)) {
        fprintf(stderr, "usage: emit_driver patch|yaml REPORT.json | hash FILE | random SEED DIR\n");
        return 2;
    }
    json_error_t jerr;
    json_t *report = json_load_file(argv[2], 0, &jerr);
    if (!report) {
        fprintf(stderr, "emit_driver: %s:%d: %s\n", argv[2], jerr.line, jerr.text);
        return 2;
    }
    char *err = NULL;
    bool ok = strcmp(argv[1], "patch") == 0 ? hs_emit_patch(stdout, report, &err)
                                           : hs_emit_export_fixes(stdout, report, &err);
    if (!ok)
        fprintf(stderr, "emit_driver: %s\n", err);
    free(err);
    json_decref(report);
    return ok ? 0 : 1;
}
