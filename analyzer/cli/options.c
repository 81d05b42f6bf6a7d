/*
 * options.c - getopt_long's arguments and the --help text, both made from a command's
 * option table (options.h), so what the command parses and what it says it parses are one.
 */
#define _GNU_SOURCE
#include "options.h"

#include <stdlib.h>
#include <string.h>

#include "hotscan/common.h"

/* The help's lines end before this column. */
#define HELP_WIDTH 80

bool hs_cli_option_is_option(const hs_cli_option *o)
{
    return !o->heading && (o->name || o->short_name);
}

static bool at_end(const hs_cli_option *o)
{
    return !o->heading && !o->name && !o->short_name;
}

void hs_getopt_init(hs_getopt *g, const hs_cli_command *cmd)
{
    memset(g, 0, sizeof *g);
    g->table = cmd->options;
    size_t n = 0, s = 0;
    const char *prefix = cmd->getopt_prefix ? cmd->getopt_prefix : "";
    size_t plen = strlen(prefix);
    memcpy(g->shortopts, prefix, plen);
    s = plen;
    for (const hs_cli_option *o = cmd->options; !at_end(o); o++) {
        if (!hs_cli_option_is_option(o))
            continue;
        if (o->name) {
            if (n == HS_GETOPT_MAX)
                abort(); /* a table larger than HS_GETOPT_MAX: raise it */
            g->longopts[n] = (struct option){o->name, o->arg ? required_argument : no_argument, NULL, o->val};
            g->of[n++] = o;
        }
        if (o->short_name) {
            if (s + 2 >= sizeof g->shortopts - 1)
                abort();
            g->shortopts[s++] = (char)o->short_name;
            if (o->arg)
                g->shortopts[s++] = ':';
        }
    }
    g->longopts[n] = (struct option){NULL, 0, NULL, 0};
    g->shortopts[s] = '\0';
}

const hs_cli_option *hs_getopt_option(const hs_getopt *g, int c, int index)
{
    if (index >= 0 && index < HS_GETOPT_MAX && g->longopts[index].name)
        return g->of[index];
    for (const hs_cli_option *o = g->table; !at_end(o); o++)
        if (hs_cli_option_is_option(o) && o->short_name && o->short_name == c)
            return o;
    return NULL;
}

char *hs_cli_option_label(const hs_cli_option *o)
{
    hs_buf b;
    hs_buf_init(&b);
    if (o->short_name)
        hs_buf_printf(&b, "-%c", o->short_name);
    if (o->name)
        hs_buf_printf(&b, "%s--%s", o->short_name ? ", " : "", o->name);
    if (o->arg)
        hs_buf_printf(&b, " %s", o->arg);
    return hs_buf_take(&b);
}

/* Writes `text` from column `col` on, wrapped before HELP_WIDTH, later lines at `indent`. */
static void wrap(FILE *out, const char *text, size_t col, size_t indent)
{
    bool line_start = true;
    for (const char *p = text; *p;) {
        while (*p == ' ')
            p++;
        size_t n = strcspn(p, " ");
        if (!n)
            break;
        if (!line_start && col + 1 + n >= HELP_WIDTH) {
            fprintf(out, "\n%*s", (int)indent, "");
            col = indent;
            line_start = true;
        }
        if (!line_start) {
            fputc(' ', out);
            col++;
        }
        fwrite(p, 1, n, out);
        col += n;
        line_start = false;
        p += n;
    }
    fputc('\n', out);
}

void hs_cli_print_help(FILE *out, const hs_cli_command *cmd)
{
    fprintf(out, "usage: %s\n\n", cmd->usage);
    if (cmd->about)
        fprintf(out, "%s\n\n", cmd->about);
    bool first = true;
    size_t column = cmd->column > 0 ? (size_t)cmd->column : 20;
    for (const hs_cli_option *o = cmd->options; !at_end(o); o++) {
        if (o->heading) {
            fprintf(out, "%s%s:\n", first ? "" : "\n", o->heading);
            first = false;
            continue;
        }
        if (first)
            fputs("options:\n", out);
        first = false;
        char *label = hs_cli_option_label(o);
        size_t len = strlen(label);
        size_t col;
        if (len <= column) {
            fprintf(out, "  %-*s ", (int)column, label);
            col = 2 + column + 1;
        } else {
            fprintf(out, "  %s  ", label);
            col = 2 + len + 2;
        }
        free(label);
        wrap(out, o->help, col, 2 + column + 1);
    }
    if (cmd->epilog)
        fprintf(out, "\n%s", cmd->epilog);
}
