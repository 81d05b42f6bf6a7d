/*
 * dump_options.h - the hidden `hotscan --dump-options KIND [TEMPLATE [OUTPUT]]`: the option
 * tables of every command as the manual page's option sections (man), the bash completion's
 * option and value lists (bash), each put in TEMPLATE where its "@OPTIONS@" line is, or as
 * plain "COMMAND OPTION SECTION" lines for the tests (list). The build runs it to write the
 * installed manual page and completion, so neither can drift from what the commands parse.
 */
#ifndef HOTSCAN_CLI_DUMP_OPTIONS_H
#define HOTSCAN_CLI_DUMP_OPTIONS_H

#include <stddef.h>

#include "options.h"

/* argv[0] is "--dump-options". The exit status: 0 written, 2 a usage or input error. */
int hs_cli_dump_options(int argc, char **argv, const hs_cli_command *const *cmds, size_t n);

#endif
