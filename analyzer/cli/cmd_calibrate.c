/*
 * cmd_calibrate.c - `hotscan calibrate`: measures what the clock reads and atomics of the rule
 * data cost on this host (analyzer/validate/calibrate.c) and writes it as rule data that
 * `scan --calibration FILE` reads, so messages quote measured costs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "hotscan/common.h"
#include "hotscan/ruledata.h"
#include "hotscan/tempfiles.h"
#include "hotscan/validate.h"

enum { OPT_RULES = 256, OPT_REPEAT, OPT_COMPILER };

static const hs_cli_option calibrate_table[] = {
    {NULL, 'o', 'o', "FILE", "write the rule data to FILE (default: standard output)", 0, NULL,
     HS_COMPLETE_FILES, NULL},
    {"rules", 0, OPT_RULES, "DIR|FILE", "more rule data whose clock APIs and ids to measure (repeatable)", 0,
     NULL, HS_COMPLETE_DIRS, NULL},
    {"repeat", 0, OPT_REPEAT, "N", "repeats of each measurement, the median is kept (default 5)", 0, NULL,
     HS_COMPLETE_NOTHING, NULL},
    {"compiler", 0, OPT_COMPILER, "CXX", "the C++ compiler for the measuring program (default clang-19)", 0,
     NULL, HS_COMPLETE_NOTHING, NULL},
    {"help", 'h', 'h', NULL, "show this help", 0, NULL, HS_COMPLETE_NOTHING, NULL},
    HS_OPTIONS_END,
};

const hs_cli_command hs_calibrate_command = {
    .name = "calibrate",
    .summary = "measure what clock reads and atomics cost here; writes rule data for scan",
    .usage = "hotscan calibrate [-o FILE] [--rules DIR|FILE] [--repeat N] [--compiler CXX]",
    .about = "Measures on this host what each clock API of the rule data costs (ns per call: clock(),\n"
             "the CPU-time clocks, clock_gettime per clock id, gettimeofday, time(), the coarse clocks,\n"
             "rdtsc, the std::chrono clocks) and what relaxed and seq_cst atomic increments, stores and\n"
             "loads cost, and writes it as rule data (JSON, a \"calibration\" section). With it,\n"
             "`hotscan scan --calibration FILE` says \"clock() costs 1.4 us here (a system call)\".",
    .options = calibrate_table,
    .getopt_prefix = ":",
    .column = 16,
};

static void calibrate_usage(FILE *out)
{
    hs_cli_print_help(out, &hs_calibrate_command);
}

int cmd_calibrate(int argc, char **argv)
{
    hs_getopt g;
    hs_getopt_init(&g, &hs_calibrate_command);
    const char *output = NULL, *compiler = "clang-19";
    hs_vec extra = {0};
    int repeat = 5;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, g.shortopts, g.longopts, NULL)) != -1) {
        switch (c) {
        case 'o': output = optarg; break;
        case OPT_RULES: hs_vec_push(&extra, optarg); break;
        case OPT_COMPILER: compiler = optarg; break;
        case OPT_REPEAT: {
            char *end;
            long n = strtol(optarg, &end, 10);
            if (*end || end == optarg || n < 1 || n > 1000) {
                fprintf(stderr, "hotscan: --repeat '%s': needs a number from 1 to 1000\n", optarg);
                hs_vec_free(&extra);
                return 2;
            }
            repeat = (int)n;
            break;
        }
        case 'h':
            calibrate_usage(stdout);
            hs_vec_free(&extra);
            return hs_close_stdout("the help") ? 0 : 2;
        case ':':
            fprintf(stderr, "hotscan: %s needs a value\n", argv[optind - 1]);
            hs_vec_free(&extra);
            return 2;
        default:
            fprintf(stderr, "hotscan: unknown option '%s'\n", argv[optind - 1]);
            calibrate_usage(stderr);
            hs_vec_free(&extra);
            return 2;
        }
    }
    if (optind != argc) {
        fprintf(stderr, "hotscan: calibrate takes no PATH ('%s')\n", argv[optind]);
        hs_vec_free(&extra);
        return 2;
    }
    hs_cleanup_install();
    hs_ruledata *rd = hs_ruledata_create();
    char *err = NULL;
    char *dir = hs_ruledata_default_dir();
    bool ok = hs_ruledata_load_dir(rd, dir, &err);
    free(dir);
    for (size_t i = 0; ok && i < extra.len; i++) {
        const char *e = extra.items[i];
        size_t n = strlen(e);
        ok = n > 5 && strcmp(e + n - 5, ".json") == 0 ? hs_ruledata_load_file(rd, e, &err) : hs_ruledata_load_dir(rd, e, &err);
    }
    hs_vec_free(&extra);
    int status = 2;
    char tmpl[] = "/tmp/hotscan-calibrate-XXXXXX";
    if (!ok) {
        fprintf(stderr, "hotscan: error: %s\n", err);
        free(err);
    } else if (!mkdtemp(tmpl)) {
        fprintf(stderr, "hotscan: cannot make a work folder %s: %s\n", tmpl, strerror(errno));
    } else {
        hs_cleanup_add_dir(tmpl);
        json_t *result = hs_calibrate(rd, compiler, repeat, tmpl, &err);
        hs_remove_temp_dir(tmpl);
        hs_cleanup_forget_path(tmpl);
        if (!result) {
            fprintf(stderr, "hotscan: calibrate: %s\n", err);
            free(err);
        } else {
            char *text = json_dumps(result, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
            char *data = hs_printf("%s\n", text);
            free(text);
            if (!hs_write_output(output, data, strlen(data), &err)) {
                fprintf(stderr, "hotscan: %s\n", err);
                free(err);
            } else if (output && strcmp(output, "-") != 0 ? true : hs_close_stdout("the calibration")) {
                status = 0;
            }
            free(data);
            json_decref(result);
        }
    }
    hs_ruledata_delete(rd);
    return status;
}
