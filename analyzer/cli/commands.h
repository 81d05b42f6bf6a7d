/*
 * commands.h - the subcommands, one file each (cmd_<name>.c), dispatched from main.c.
 * Each returns the process exit status: 0 clean, 1 findings, 2 usage or input error.
 * Each file also declares its command: summary, help and option table (options.h).
 */
#ifndef HOTSCAN_COMMANDS_H
#define HOTSCAN_COMMANDS_H

#include "options.h"

extern const hs_cli_command hs_scan_command, hs_rules_command, hs_profile_command, hs_judge_command,
    hs_extract_command, hs_config_command, hs_apply_command, hs_validate_command, hs_calibrate_command;

int cmd_scan(int argc, char **argv);
/* `hotscan PATH...`, the scan without its name: argv[0] is the program. */
int cmd_scan_paths(int argc, char **argv);
int cmd_rules(int argc, char **argv);
int cmd_apply(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_judge(int argc, char **argv);
int cmd_extract(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);

/* scan's and judge's shared body (cmd_scan.c): `judge` reads facts files instead of parsing;
 * `bare`: argv[0] is the program (cmd_scan_paths), else the subcommand's name. */
#include <stdbool.h>
int hs_cli_scan(int argc, char **argv, bool judge, bool bare);
int cmd_config(int argc, char **argv);

#include <stdio.h>
/* `hotscan config --dump`'s work: scan's options (.hotscan.yml, then argv) as YAML. */
int scan_dump_config(int argc, char **argv, FILE *out);

#endif
