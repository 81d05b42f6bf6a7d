/*
 * main.c - hotscan's entry point: the command table, top-level help and `hotscan help CMD`.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "dump_options.h"
#include "hotscan/common.h"
#include "hotscan/tempfiles.h"

typedef struct {
    const hs_cli_command *def; /* name, summary, help and options (cmd_<name>.c) */
    int (*run)(int argc, char **argv);
} command;

static const command commands[] = {
    {&hs_scan_command, cmd_scan},         {&hs_rules_command, cmd_rules},
    {&hs_profile_command, cmd_profile},   {&hs_judge_command, cmd_judge},
    {&hs_extract_command, cmd_extract},   {&hs_config_command, cmd_config},
    {&hs_apply_command, cmd_apply},       {&hs_validate_command, cmd_validate},
    {&hs_calibrate_command, cmd_calibrate},
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *out)
{
    fprintf(out, "usage: hotscan <command> [options] [PATH...]\n\n"
                 "hotscan finds needless costs in large C and C++ trees with libclang.\n\n"
                 "commands:\n");
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(out, "  %-9s %s\n", commands[i].def->name, commands[i].def->summary);
    fprintf(out, "\n'hotscan <command> --help' (or 'hotscan help <command>') describes a command's\n"
                 "options.\n"
                 "'hotscan PATH...' is short for 'hotscan scan PATH...'.\n"
                 "Exit status: 0 no findings, 1 findings, 2 usage or input error.\n");
}

static const command *find_command(const char *name)
{
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (strcmp(name, commands[i].def->name) == 0)
            return &commands[i];
    return NULL;
}

static void unknown_command(const char *name)
{
    fprintf(stderr, "hotscan: unknown command '%s'; the commands are:", name);
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(stderr, " %s", commands[i].def->name);
    fprintf(stderr, "\n");
}

/* `hotscan help [COMMAND]`: the command's own help (what `hotscan COMMAND --help` prints). */
static int help(int argc, char **argv)
{
    if (argc < 3 || strcmp(argv[2], "help") == 0) {
        usage(stdout);
        return hs_close_stdout("the help") ? 0 : 2;
    }
    if (argc > 3) {
        fprintf(stderr, "hotscan: help takes one command, not '%s' too\n", argv[3]);
        return 2;
    }
    const command *c = find_command(argv[2]);
    if (!c) {
        unknown_command(argv[2]);
        return 2;
    }
    hs_cli_print_help(stdout, c->def);
    return hs_close_stdout("the help") ? 0 : 2;
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
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        usage(stdout);
        return hs_close_stdout("the help") ? 0 : 2;
    }
    if (strcmp(name, "help") == 0)
        return help(argc, argv);
    if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
        printf("hotscan %s\n", HOTSCAN_VERSION);
        return hs_close_stdout("the version") ? 0 : 2;
    }
    /* Hidden: the build writes the manual page and the bash completion with it. */
    if (strcmp(name, "--dump-options") == 0) {
        const hs_cli_command *defs[N_COMMANDS];
        for (size_t i = 0; i < N_COMMANDS; i++)
            defs[i] = commands[i].def;
        return hs_cli_dump_options(argc - 1, argv + 1, defs, N_COMMANDS);
    }
    const command *c = find_command(name);
    if (c)
        return c->run(argc - 1, argv + 1);
    /* Bare options or paths: the scan is the main job. */
    if (name[0] == '-' || strchr(name, '/') || strchr(name, '.'))
        return cmd_scan_paths(argc, argv);
    fprintf(stderr, "hotscan: unknown command '%s'\n\n", name);
    usage(stderr);
    return 2;
}
