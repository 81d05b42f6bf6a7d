/*
 * sarif_convert.c - test driver: reads a schema v1 report and writes it as SARIF with
 * hs_emit_sarif, so the SARIF writer can be tested on any report, including a
 * hand-written fixture with what a real scan does not produce yet (fixes, errors).
 *
 *   sarif_convert REPORT.json OUT.sarif
 */
#include "hotscan/emit.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s REPORT.json OUT.sarif\n", argv[0]);
        return 2;
    }
    json_error_t err;
    json_t *report = json_load_file(argv[1], 0, &err);
    if (!report) {
        fprintf(stderr, "%s:%d:%d: %s\n", argv[1], err.line, err.column, err.text);
        return 2;
    }
    FILE *out = fopen(argv[2], "w");
    if (!out) {
        perror(argv[2]);
        json_decref(report);
        return 2;
    }
    bool ok = hs_emit_sarif(out, report);
    if (fclose(out) != 0)
        ok = false;
    json_decref(report);
    if (!ok) {
        fprintf(stderr, "%s: could not write the SARIF log\n", argv[2]);
        return 2;
    }
    return 0;
}
