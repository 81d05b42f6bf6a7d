/*
 * dump_options.c - writes the command line's option tables (options.h) as the manual page's
 * option sections, the bash completion's lists, or a plain list for the tests
 * (dump_options.h). Nothing here is read back: the outputs are made at build time.
 */
#define _GNU_SOURCE
#include "dump_options.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hotscan/common.h"
#include "hotscan/tempfiles.h"

#define MARKER "@OPTIONS@"

#define FOR_EACH_OPTION(o, table)                                                                  \
    for (const hs_cli_option *o = (table); o->name || o->short_name || o->heading; o++)          \
        if (hs_cli_option_is_option(o))

static const hs_cli_command *find(const hs_cli_command *const *cmds, size_t n, const char *name)
{
    for (size_t i = 0; name && i < n; i++)
        if (strcmp(cmds[i]->name, name) == 0)
            return cmds[i];
    return NULL;
}

/* The command whose table `cmds[i]` shares (judge parses with scan's), or cmds[i] itself. */
static const hs_cli_command *owner(const hs_cli_command *const *cmds, size_t i)
{
    for (size_t j = 0; j < i; j++)
        if (cmds[j]->options == cmds[i]->options)
            return cmds[j];
    return cmds[i];
}

static void upper(hs_buf *b, const char *s)
{
    for (; *s; s++)
        hs_buf_printf(b, "%c", toupper((unsigned char)*s));
}

/* ---- list: "COMMAND OPTION SECTION VALUE", SECTION the command whose help and manual
 * section list it, or "-" for an option the command takes from another (config's scan
 * options), VALUE how its value completes ---- */

/* How the option's value completes, one word: "-" (a flag), "words:A/B", files, dirs, ... */
static void put_value(hs_buf *b, const hs_cli_option *o)
{
    static const char *const how[] = {
        [HS_COMPLETE_NOTHING] = "nothing", [HS_COMPLETE_FILES] = "files",
        [HS_COMPLETE_DIRS] = "dirs", [HS_COMPLETE_RULES] = "rules"};
    if (!o->arg) {
        hs_buf_puts(b, "-");
    } else if (o->choices) {
        hs_buf_puts(b, "words:");
        for (const char *c = o->choices; *c; c++)
            hs_buf_printf(b, "%c", *c == ' ' ? '/' : *c);
    } else {
        hs_buf_puts(b, how[o->complete]);
    }
}

static void put_list_line(hs_buf *b, const char *cmd, const hs_cli_option *o, const char *section)
{
    for (int form = 0; form < 2; form++) {
        if (form == 0 && o->short_name)
            hs_buf_printf(b, "%s -%c %s ", cmd, o->short_name, section);
        else if (form == 1 && o->name)
            hs_buf_printf(b, "%s --%s %s ", cmd, o->name, section);
        else
            continue;
        put_value(b, o);
        hs_buf_puts(b, "\n");
    }
}

static void dump_list(hs_buf *b, const hs_cli_command *const *cmds, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        FOR_EACH_OPTION(o, cmds[i]->options)
            put_list_line(b, cmds[i]->name, o, owner(cmds, i)->name);
        const hs_cli_command *also = find(cmds, n, cmds[i]->also);
        if (also)
            FOR_EACH_OPTION(o, also->options)
                put_list_line(b, cmds[i]->name, o, "-");
    }
}

/* ---- man ---- */

/* `text` as roff text: backslashes and minus signs escaped, no line starting with a control
 * character, the first letter capitalized when `sentence`, which also ends with a period. */
static void roff_text(hs_buf *b, const char *text, bool sentence)
{
    bool line_start = true;
    for (const char *p = text; *p; p++) {
        char c = *p;
        if (line_start && (c == ' ' || c == '\t'))
            continue;
        if (line_start && (c == '.' || c == '\''))
            hs_buf_puts(b, "\\&");
        if (c == '\n' && p[1] == '\n') {
            hs_buf_puts(b, "\n.PP\n");
            while (p[1] == '\n')
                p++;
            line_start = true;
            continue;
        }
        if (sentence && p == text)
            c = (char)toupper((unsigned char)c);
        if (c == '\\')
            hs_buf_puts(b, "\\e");
        else if (c == '-')
            hs_buf_puts(b, "\\-");
        else
            hs_buf_printf(b, "%c", c);
        line_start = c == '\n';
    }
    size_t len = strlen(text);
    if (sentence && len && text[len - 1] != '.')
        hs_buf_puts(b, ".");
    hs_buf_puts(b, "\n");
}

/* Escapes a word for roff (inside \fB...\fR). */
static void roff_word(hs_buf *b, const char *w)
{
    for (; *w; w++) {
        if (*w == '-')
            hs_buf_puts(b, "\\-");
        else if (*w == '\\')
            hs_buf_puts(b, "\\e");
        else
            hs_buf_printf(b, "%c", *w);
    }
}

static void man_option(hs_buf *b, const hs_cli_option *o)
{
    hs_buf_puts(b, ".TP\n");
    if (o->short_name)
        hs_buf_printf(b, "\\fB\\-%c\\fR%s", o->short_name, o->name ? ", " : "");
    if (o->name) {
        hs_buf_puts(b, "\\fB\\-\\-");
        roff_word(b, o->name);
        hs_buf_puts(b, "\\fR");
    }
    if (o->arg) {
        hs_buf_puts(b, " \\fI");
        roff_word(b, o->arg);
        hs_buf_puts(b, "\\fR");
    }
    hs_buf_puts(b, "\n");
    roff_text(b, o->help, true);
}

static void dump_man(hs_buf *b, const hs_cli_command *const *cmds, size_t n)
{
    hs_buf_puts(b, ".\\\" The option sections below are written by the build from the option tables\n"
                   ".\\\" (hotscan --dump-options man); edit analyzer/cli/cmd_*.c, not this page.\n"
                   ".\\\" No hyphenation in them: an option name split at a line end reads as two.\n"
                   ".nh\n");
    for (size_t i = 0; i < n; i++) {
        const hs_cli_command *c = cmds[i];
        hs_buf_puts(b, ".SH \"");
        upper(b, c->name);
        hs_buf_puts(b, " OPTIONS\"\n.B hotscan ");
        hs_buf_printf(b, "%s\n", c->name);
        hs_buf_puts(b, "\\(em ");
        roff_text(b, c->summary, false);
        hs_buf_puts(b, ".PP\n");
        roff_text(b, c->about, false);
        const hs_cli_command *own = owner(cmds, i);
        if (own != c) {
            hs_buf_printf(b, ".PP\nIts options are those of\n.B hotscan %s\n(", own->name);
            upper(b, own->name);
            hs_buf_puts(b, " OPTIONS).\n");
            continue;
        }
        for (const hs_cli_option *o = c->options; o->name || o->short_name || o->heading; o++) {
            if (o->heading) {
                hs_buf_puts(b, ".SS \"");
                hs_buf_printf(b, "%c%s", toupper((unsigned char)o->heading[0]), o->heading + 1);
                hs_buf_puts(b, "\"\n");
            } else {
                man_option(b, o);
            }
        }
        const hs_cli_command *also = find(cmds, n, c->also);
        if (also) {
            hs_buf_printf(b, ".PP\nThe options of\n.B hotscan %s\nfollow (", also->name);
            upper(b, also->name);
            hs_buf_puts(b, " OPTIONS).\n");
        }
    }
    hs_buf_puts(b, ".hy\n");
}

/* ---- bash ---- */

static void bash_pattern(hs_buf *b, const hs_cli_option *o)
{
    if (o->short_name)
        hs_buf_printf(b, "-%c%s", o->short_name, o->name ? " | " : "");
    if (o->name)
        hs_buf_printf(b, "--%s", o->name);
}

static void bash_values(hs_buf *b, const hs_cli_option *table)
{
    FOR_EACH_OPTION(o, table) {
        if (!o->arg)
            continue;
        hs_buf_puts(b, "        ");
        bash_pattern(b, o);
        if (o->choices) {
            hs_buf_printf(b, ") echo \"words %s\" ;;\n", o->choices);
        } else {
            hs_buf_puts(b, ") echo ");
            put_value(b, o);
            hs_buf_puts(b, " ;;\n");
        }
    }
}

static void bash_names(hs_buf *b, const hs_cli_option *table, bool *first)
{
    FOR_EACH_OPTION(o, table) {
        if (o->short_name)
            hs_buf_printf(b, "%s-%c", *first ? "" : " ", o->short_name), *first = false;
        if (o->name)
            hs_buf_printf(b, "%s--%s", *first ? "" : " ", o->name), *first = false;
    }
}

static void dump_bash(hs_buf *b, const hs_cli_command *const *cmds, size_t n)
{
    hs_buf_puts(b, "_hotscan_commands=\"");
    for (size_t i = 0; i < n; i++)
        hs_buf_printf(b, "%s%s", i ? " " : "", cmds[i]->name);
    hs_buf_puts(b, "\"\n\n"
                   "# _hotscan_options COMMAND: the options COMMAND takes.\n"
                   "_hotscan_options() {\n"
                   "    case $1 in\n");
    for (size_t i = 0; i < n; i++) {
        const hs_cli_command *also = find(cmds, n, cmds[i]->also);
        hs_buf_printf(b, "    %s) echo \"", cmds[i]->name);
        bool first = true;
        bash_names(b, cmds[i]->options, &first);
        if (also)
            bash_names(b, also->options, &first);
        hs_buf_puts(b, "\" ;;\n");
    }
    hs_buf_puts(b, "    esac\n"
                   "}\n\n"
                   "# _hotscan_value COMMAND OPTION: how OPTION's value is completed (\"words W...\", files,\n"
                   "# dirs, rules or nothing); nothing printed for an option without a value.\n"
                   "_hotscan_value() {\n"
                   "    case $1 in\n");
    for (size_t i = 0; i < n; i++) {
        const hs_cli_command *also = find(cmds, n, cmds[i]->also);
        hs_buf_printf(b, "    %s)\n        case $2 in\n", cmds[i]->name);
        bash_values(b, cmds[i]->options);
        if (also)
            bash_values(b, also->options);
        hs_buf_puts(b, "        esac\n        ;;\n");
    }
    hs_buf_puts(b, "    esac\n}\n");
}

/* ---- the command ---- */

/* `template` with its "@OPTIONS@" line replaced by `fragment`; NULL when it has none. */
static char *fill(const char *template, const char *fragment)
{
    const char *at = strstr(template, MARKER);
    if (!at)
        return NULL;
    const char *line = at;
    while (line > template && line[-1] != '\n')
        line--;
    const char *next = strchr(at, '\n');
    next = next ? next + 1 : at + strlen(at);
    return hs_printf("%.*s%s%s", (int)(line - template), template, fragment, next);
}

int hs_cli_dump_options(int argc, char **argv, const hs_cli_command *const *cmds, size_t n)
{
    const char *kind = argc > 1 ? argv[1] : "";
    bool list = strcmp(kind, "list") == 0;
    if (!(list || strcmp(kind, "man") == 0 || strcmp(kind, "bash") == 0) || argc > 4 || (!list && argc < 3) ||
        (list && argc > 2)) {
        fprintf(stderr, "usage: hotscan --dump-options list | (man|bash) TEMPLATE [OUTPUT]\n");
        return 2;
    }
    hs_buf b;
    hs_buf_init(&b);
    if (list)
        dump_list(&b, cmds, n);
    else if (strcmp(kind, "man") == 0)
        dump_man(&b, cmds, n);
    else
        dump_bash(&b, cmds, n);
    char *fragment = hs_buf_take(&b);
    char *text = fragment;
    if (!list) {
        size_t size;
        char *template = hs_read_file_max(argv[2], (size_t)1 << 20, &size);
        if (!template) {
            fprintf(stderr, "hotscan: %s: %s\n", argv[2], strerror(errno));
            free(fragment);
            return 2;
        }
        text = fill(template, fragment);
        free(template);
        free(fragment);
        if (!text) {
            fprintf(stderr, "hotscan: %s: no line with %s, where the options go\n", argv[2], MARKER);
            return 2;
        }
    }
    int status = 0;
    if (argc == 4) {
        char *err = NULL;
        if (!hs_write_output(argv[3], text, strlen(text), &err)) {
            fprintf(stderr, "hotscan: %s\n", err);
            free(err);
            status = 2;
        }
    } else {
        fputs(text, stdout);
        status = hs_close_stdout("the options") ? 0 : 2;
    }
    free(text);
    return status;
}
