/*
 * options.h - each subcommand's options, declared once: a table of hs_cli_option (name,
 * short letter, value, help text, what .hotscan.yml may say about it, how to complete its
 * value) that drives getopt_long, the command's --help and `hotscan help CMD`, and, through
 * the hidden `hotscan --dump-options`, the manual page's option sections and the bash
 * completion the build generates (man/hotscan.1.in, completions/hotscan.bash.in).
 */
#ifndef HOTSCAN_CLI_OPTIONS_H
#define HOTSCAN_CLI_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

/* What .hotscan.yml may say about an option (scan's table; other commands read no file):
 * repeatable (a list in the file), a path (relative to the file's folder there), or the
 * command line's only (not a key). */
enum { HS_OPT_LIST = 1, HS_OPT_PATH = 2, HS_OPT_CLI_ONLY = 4 };

/* How the bash completion completes an option's value (besides `choices`). */
typedef enum {
    HS_COMPLETE_NOTHING, /* a value nothing can be offered for (a number, a name) */
    HS_COMPLETE_FILES,
    HS_COMPLETE_DIRS,
    HS_COMPLETE_RULES, /* rule ids, from `hotscan rules` */
} hs_complete;

typedef struct {
    const char *name;     /* the long name without "--"; NULL for a short-only option */
    int short_name;       /* its letter (-p), or 0 */
    int val;              /* what getopt_long returns for it: the letter, or a value >= 256 */
    const char *arg;      /* the value's name in the help ("FILE|DIR"); NULL: a flag */
    const char *help;     /* one paragraph, wrapped by whoever prints it */
    unsigned flags;       /* HS_OPT_* */
    const char *choices;  /* the values it takes, space-separated ("text json sarif"), or NULL */
    hs_complete complete; /* otherwise, how to complete its value */
    const char *heading;  /* set on an entry that is only a heading ("benchmark") of the help */
} hs_cli_option;

/* The end of a table: every field zero. */
#define HS_OPTIONS_END {NULL, 0, 0, NULL, NULL, 0, NULL, HS_COMPLETE_NOTHING, NULL}

typedef struct {
    const char *name;     /* "scan" */
    const char *summary;  /* one line, for the top-level usage */
    const char *usage;    /* after "usage: " */
    const char *about;    /* paragraphs between the usage line and the options */
    const hs_cli_option *options;
    const char *also;     /* another command whose options follow this one's (config: scan) */
    const char *epilog;   /* text after the options (the exit status) */
    const char *getopt_prefix; /* what goes before the letters in getopt's string: "+", ":" */
    int column;           /* width of the help's option column */
} hs_cli_command;

/* An option that is a real option (not a heading, not the end). */
bool hs_cli_option_is_option(const hs_cli_option *o);

/* getopt_long's arguments built from a table: no allocation, so a parse loop may return
 * anywhere. `of[i]` is longopts[i]'s table entry. */
#define HS_GETOPT_MAX 64
typedef struct {
    struct option longopts[HS_GETOPT_MAX + 1];
    const hs_cli_option *of[HS_GETOPT_MAX];
    char shortopts[2 * HS_GETOPT_MAX + 4];
    const hs_cli_option *table;
} hs_getopt;

void hs_getopt_init(hs_getopt *g, const hs_cli_command *cmd);

/* The table entry getopt_long matched: `c` is what it returned, `index` its longindex (set
 * to -1 before the call: getopt leaves it alone for a short option). */
const hs_cli_option *hs_getopt_option(const hs_getopt *g, int c, int index);

/* The command's help: usage, about, the option table (wrapped), epilog. */
void hs_cli_print_help(FILE *out, const hs_cli_command *cmd);

/* "-p, --compile-commands FILE|DIR", as the help and the manual page name an option. */
char *hs_cli_option_label(const hs_cli_option *o);

#endif
