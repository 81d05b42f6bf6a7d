/*
 * main.c - hotscan's entry point: the command table and top-level help.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "hotscan/common.h"
#include "hotscan/tempfiles.h"

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
    {"scan", cmd_scan, "find needless clock reads, seq_cst counters and os_event uses"},
    {"rules", cmd_rules, "list the rules and the API lists they use"},
    {"profile", cmd_profile, "record a CPU profile of a command with perf, for scan --profile"},
    {"judge", cmd_judge, "report on facts that scan --facts-out (shards) or extract wrote"},
    {"extract", cmd_extract, "write one TU's facts as a build step (a compiler launcher)"},
    {"config", cmd_config, "print the scan options in effect (.hotscan.yml and the command line)"},
    {"apply", cmd_apply, "apply a JSON report's verified fixes (or --dry-run: show the diff)"},
    {"validate", cmd_validate, "prove a fix: its code changes (--codegen) and a benchmark of both variants"},
    {"calibrate", cmd_calibrate, "measure what clock reads and atomics cost here; writes rule data for scan"},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: hotscan <command> [options] [PATH...]\n\n"
                 "hotscan finds needless costs in large C and C++ trees with libclang.\n\n"
                 "commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\n'hotscan <command> --help' describes a command's options.\n"
                 "'hotscan PATH...' is short for 'hotscan scan PATH...'.\n"
                 "Exit status: 0 no findings, 1 findings, 2 usage or input error.\n");
}

int main(int argc, char **argv)
{
    hs_guard_std_fds();
    hs_malloc_for_documents(); /* parsing workers switch back (workers.c) */
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        usage(stdout);
        return hs_close_stdout("the help") ? 0 : 2;
    }
    if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
        printf("hotscan %s\n", HOTSCAN_VERSION);
        return hs_close_stdout("the version") ? 0 : 2;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(name, commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    /* Bare options or paths: the scan is the main job. */
    if (name[0] == '-' || strchr(name, '/') || strchr(name, '.'))
        return cmd_scan_paths(argc, argv);
    fprintf(stderr, "hotscan: unknown command '%s'\n\n", name);
    usage(stderr);
    return 2;
}
