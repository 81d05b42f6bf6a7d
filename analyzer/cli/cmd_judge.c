/*
 * cmd_judge.c - `hotscan judge [scan options] FACTS...`: merges facts files (written by
 * `scan --shard K/N --facts-out DIR` in CI matrix jobs, or by `hotscan extract` in a build)
 * and runs the rules, fix-its and outputs exactly as `scan` does. The work is scan's
 * (cmd_scan.c, hs_cli_scan); only where the facts come from differs.
 */
#include "commands.h"

int cmd_judge(int argc, char **argv)
{
    return hs_cli_scan(argc, argv, true, false);
}
