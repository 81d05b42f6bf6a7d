/*
 * commands.h - the subcommands, one file each (cmd_<name>.c), dispatched from main.c.
 * Each returns the process exit status: 0 clean, 1 findings, 2 usage or input error.
 */
#ifndef HOTSCAN_COMMANDS_H
#define HOTSCAN_COMMANDS_H

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
