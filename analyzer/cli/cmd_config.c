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

static void config_usage(FILE *out)
{
    fprintf(out, "usage: hotscan config --dump [scan options]\n\n"
                 "Prints the options 'hotscan scan' would use, as a .hotscan.yml: the file found\n"
                 "by walking up from --root (or the current folder), or --config FILE, with the\n"
                 "command line's options over it. --no-config ignores the file.\n");
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
