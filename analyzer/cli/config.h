/*
 * config.h - a subcommand's effective options: `.hotscan.yml` (found by walking up from the
 * scanned root, or --config FILE) and the command line, merged by the subcommand's own
 * option table (options.h), so every long option is a config key with nothing to add here.
 *
 * Scalar options: the command line replaces the file's value. Repeatable options (marked
 * HS_OPT_LIST): the command line's list replaces the file's. Path values in the file are
 * relative to the file's folder.
 */
#ifndef HOTSCAN_CLI_CONFIG_H
#define HOTSCAN_CLI_CONFIG_H

#include <stdbool.h>
#include <stdio.h>

#include "hotscan/common.h"
#include "hotscan/strmap.h"
#include "options.h"

typedef struct {
    const hs_cli_option *opt; /* its table entry */
    char *value;              /* NULL for a flag */
    char *origin;             /* "FILE:LINE" for a config entry, NULL for the command line */
} hs_opt_entry;

typedef struct {
    hs_vec entries;        /* hs_opt_entry*, in the order they apply */
    hs_strmap *from_cli;   /* list options the command line has given (its list replaces the file's) */
    char *config_file;     /* the file read, or NULL */
} hs_opt_set;

void hs_opt_set_init(hs_opt_set *s);
void hs_opt_set_free(hs_opt_set *s);

/* Records one option as given on the command line (from_cli) or in the file. */
void hs_opt_set_record(hs_opt_set *s, const hs_cli_option *opt, const char *value, const char *origin,
                       bool from_cli);

/* The table entry for a long name, or for a short option's letter. */
const hs_cli_option *hs_opt_find(const hs_cli_option *table, const char *name, int short_opt);

/* `.hotscan.yml` in `dir` or the nearest folder above it; NULL when there is none. */
char *hs_config_find(const char *dir);

/* Reads a config file into `s` (entries with FILE:LINE origins). False with *err naming the
 * file, the line and the problem: not YAML, not a mapping, an unknown key (the keys are
 * listed), a key given twice (both lines), a value of the wrong shape. */
bool hs_config_load(hs_opt_set *s, const hs_cli_option *table, const char *path, char **err);

/* The effective options as a config file (`hotscan config --dump`). */
void hs_opt_set_dump(FILE *out, const hs_opt_set *s, const hs_cli_option *table);

#endif
