/*
 * fixits.c - text helpers for building fix-it edits (see fixits.h).
 */
#include "hotscan/fixits.h"
#include "hotscan/common.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

json_t *hs_edit_new(const char *file, size_t offset, size_t length, const char *replacement)
{
    return json_pack("{s:s, s:i, s:i, s:s}", "file", file, "offset", (json_int_t)offset, "length",
                     (json_int_t)length, "replacement", replacement);
}

bool hs_text_is_simple(const char *t)
{
    if (!t || !*t)
        return false;
    for (const char *p = t; *p; p++) {
        if (isalnum((unsigned char)*p) || *p == '_' || *p == '.' || *p == '[' || *p == ']')
            continue;
        if (p[0] == '-' && p[1] == '>') {
            p++;
            continue;
        }
        if (p[0] == ':' && p[1] == ':') {
            p++;
            continue;
        }
        return false;
    }
    return true;
}

char *hs_text_operand(const char *t)
{
    return hs_text_is_simple(t) ? hs_xstrdup(t) : hs_printf("(%s)", t);
}

char *hs_text_deref(const char *address)
{
    while (*address == ' ')
        address++;
    if (address[0] == '&')
        return hs_xstrdup(address + 1);
    char *inner = hs_text_operand(address);
    char *r = hs_printf("*%s", inner);
    free(inner);
    return r;
}

char *hs_join_call_text(const char *name, json_t *args)
{
    hs_buf b;
    hs_buf_init(&b);
    hs_buf_printf(&b, "%s(", name);
    size_t i;
    json_t *a;
    json_array_foreach(args, i, a) hs_buf_printf(&b, "%s%s", i ? ", " : "", json_string_value(a));
    hs_buf_puts(&b, ")");
    return hs_buf_take(&b);
}

static bool is_ident_char(char ch)
{
    return ch == '_' || isalnum((unsigned char)ch);
}

/* Appends [a, e) without surrounding white space; an empty one only when `keep_empty`
 * (the one argument of "f()" is no argument, an empty one in "f(a, )" is). */
static void push_trimmed(json_t *args, const char *a, const char *e, bool keep_empty)
{
    while (a < e && isspace((unsigned char)*a))
        a++;
    while (e > a && isspace((unsigned char)e[-1]))
        e--;
    if (e > a || keep_empty)
        json_array_append_new(args, json_stringn(a, (size_t)(e - a)));
}

bool hs_split_call_text(const char *text, char **name_out, json_t **args_out)
{
    size_t n = strlen(text), i = 0;
    while (i < n && (is_ident_char(text[i]) || text[i] == ':'))
        i++;
    size_t name_end = i;
    while (i < n && (text[i] == ' ' || text[i] == '\t'))
        i++;
    if (name_end == 0 || i >= n || text[i] != '(' || text[n - 1] != ')')
        return false;
    json_t *args = json_array();
    int depth = 0;
    size_t arg_start = i + 1;
    for (size_t k = i; k < n; k++) {
        char ch = text[k];
        if (ch == '"' || ch == '\'') {
            for (k++; k < n && text[k] != ch; k++)
                if (text[k] == '\\')
                    k++;
        } else if (ch == '(' || ch == '[' || ch == '{') {
            depth++;
        } else if (ch == ')' || ch == ']' || ch == '}') {
            depth--;
            if (depth == 0 && k == n - 1)
                push_trimmed(args, text + arg_start, text + k, json_array_size(args) > 0);
        } else if (ch == ',' && depth == 1) {
            push_trimmed(args, text + arg_start, text + k, true);
            arg_start = k + 1;
        }
    }
    *name_out = hs_xstrndup(text, name_end);
    *args_out = args;
    return true;
}

