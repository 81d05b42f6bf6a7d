/*
 * cmd_config.c - `hotscan config --dump [scan options]`: prints the options a scan would run
 * with (the .hotscan.yml found or given, then the command line over it) as a config file, so
 * a CI maintainer can see what a job really uses, and start a .hotscan.yml from flags.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "hotscan/common.h"
#include "hotscan/tempfiles.h"

/* Its own two options; the scan options follow --dump (parsed by scan's code). */
static const hs_cli_option config_table[] = {
    {"dump", 0, 'd', NULL, "print the options as a .hotscan.yml (the first word after config)", 0, NULL,
     HS_COMPLETE_NOTHING, NULL},
    {"help", 'h', 'h', NULL, "show this help", 0, NULL, HS_COMPLETE_NOTHING, NULL},
    HS_OPTIONS_END,
};

const hs_cli_command hs_config_command = {
    .name = "config",
    .summary = "print the scan options in effect (.hotscan.yml and the command line)",
    .usage = "hotscan config --dump [scan options]",
    .about = "Prints the options 'hotscan scan' would use, as a .hotscan.yml: the file found\n"
             "by walking up from --root (or the current folder), or --config FILE, with the\n"
             "command line's options over it. --no-config ignores the file.",
    .options = config_table,
    .also = "scan",
    .epilog = "The scan options are listed by 'hotscan scan --help'.\n",
    .column = 20,
};

static void config_usage(FILE *out)
{
    hs_cli_print_help(out, &hs_config_command);
}

int cmd_config(int argc, char **argv)
{
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        config_usage(stdout);
        return hs_close_stdout("the help") ? 0 : 2;
    }
    if (argc < 2 || strcmp(argv[1], "--dump") != 0) {
        config_usage(stderr);
        return 2;
    }
    /* The scan's parser sees "config" where it would see "scan", and the options after --dump. */
    argv[1] = argv[0];
    return scan_dump_config(argc - 1, argv + 1, stdout);
}
