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


bool hs_text_has_directive(const char *text, size_t len)
{
    bool line_start = false; /* the text's first line starts inside code */
    for (size_t i = 0; i < len; i++) {
        char ch = text[i];
        if (ch == '\n')
            line_start = true;
        else if (ch == '#' && line_start)
            return true;
        else if (ch != ' ' && ch != '\t' && ch != '\r' && ch != '\f' && ch != '\v')
            line_start = false;
    }
    return false;
}

/*
 * A forward reader of C and C++ text for hs_text_statement_alone: it knows comments, string
 * and character literals (raw strings too), line splices and preprocessor directive lines,
 * and remembers the last token it passed and whether a directive line came after it.
 */
typedef struct {
    const char *text;
    size_t size, i;
    bool line_start;      /* only white space since the last newline */
    size_t tok, tok_len;  /* the last token passed (tok_len 0: none yet) */
    bool directive;       /* a directive line since that token */
} text_reader;

/* Past a backslash-newline at r->i (a line splice), if there is one. */
static bool skip_splice(text_reader *r)
{
    size_t j = r->i;
    if (j >= r->size || r->text[j] != '\\')
        return false;
    j++;
    while (j < r->size && (r->text[j] == ' ' || r->text[j] == '\t' || r->text[j] == '\r'))
        j++;
    if (j >= r->size || r->text[j] != '\n')
        return false;
    r->i = j + 1;
    return true;
}

/* Past a block comment starting at r->i ("/" "*"). */
static void skip_block_comment(text_reader *r)
{
    r->i += 2;
    while (r->i + 1 < r->size && !(r->text[r->i] == '*' && r->text[r->i + 1] == '/'))
        r->i++;
    r->i = r->i + 1 < r->size ? r->i + 2 : r->size;
}

/* Past a line comment or a directive's line, splices included; stops at the newline. */
static void skip_line(text_reader *r, bool comments)
{
    while (r->i < r->size && r->text[r->i] != '\n') {
        if (skip_splice(r))
            continue;
        if (comments && r->text[r->i] == '/' && r->i + 1 < r->size && r->text[r->i + 1] == '*') {
            skip_block_comment(r);
            continue;
        }
        if (comments && r->text[r->i] == '/' && r->i + 1 < r->size && r->text[r->i + 1] == '/')
            comments = false; /* the rest of the line is a comment */
        r->i++;
    }
}

/* Past a quoted literal starting at r->i; an unterminated one ends with its line, as the
 * preprocessor ends one in code it skips (`#if 0` / `don't` / `#endif`). A raw string
 * (R"d(...)d") when `raw`. */
static void skip_literal(text_reader *r, bool raw)
{
    const char *t = r->text;
    char quote = t[r->i];
    if (raw) {
        size_t d = r->i + 1, open = d;
        while (open < r->size && open - d <= 16 && t[open] != '(')
            open++;
        if (open < r->size && t[open] == '(') {
            size_t dlen = open - d;
            for (size_t k = open + 1; k + dlen + 1 < r->size; k++) {
                if (t[k] == ')' && memcmp(t + k + 1, t + d, dlen) == 0 && t[k + 1 + dlen] == '"') {
                    r->i = k + dlen + 2;
                    return;
                }
            }
            r->i = r->size;
            return;
        }
    }
    r->i++;
    while (r->i < r->size && t[r->i] != quote && t[r->i] != '\n') {
        if (t[r->i] == '\\' && r->i + 1 < r->size)
            r->i++;
        r->i++;
    }
    if (r->i < r->size && t[r->i] == quote)
        r->i++;
}

/* Reads one thing at r->i: white space, a splice, a comment, a directive's line or a token. */
static void read_one(text_reader *r)
{
    const char *t = r->text;
    char ch = t[r->i];
    if (ch == '\n') {
        r->line_start = true;
        r->i++;
    } else if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v') {
        r->i++;
    } else if (skip_splice(r)) {
        return;
    } else if (ch == '#' && r->line_start) {
        skip_line(r, true);
        r->directive = true;
    } else if (ch == '/' && r->i + 1 < r->size && t[r->i + 1] == '/') {
        skip_line(r, false);
    } else if (ch == '/' && r->i + 1 < r->size && t[r->i + 1] == '*') {
        skip_block_comment(r);
    } else {
        size_t begin = r->i;
        if (ch == '"' || ch == '\'') {
            skip_literal(r, false);
        } else if (is_ident_char(ch)) {
            while (r->i < r->size && is_ident_char(t[r->i]))
                r->i++;
            /* A prefixed literal: L"..", u8'..', R"(..)". */
            if (r->i < r->size && (t[r->i] == '"' || t[r->i] == '\'') && r->i - begin <= 3) {
                bool raw = t[r->i] == '"' && t[r->i - 1] == 'R';
                skip_literal(r, raw);
            }
        } else {
            r->i++;
        }
        r->tok = begin;
        r->tok_len = r->i - begin;
        r->directive = false;
        r->line_start = false;
    }
}

static bool token_is(const text_reader *r, const char *word)
{
    size_t n = strlen(word);
    return r->tok_len == n && memcmp(r->text + r->tok, word, n) == 0;
}

bool hs_text_statement_alone(const char *text, size_t size, size_t from, size_t start, size_t end)
{
    if (!text || from >= start || start >= end || end > size || text[from] != '{')
        return false;
    text_reader r = {text, size, from, false, 0, 0, false};
    while (r.i < start)
        read_one(&r);
    /* Landing past `start` means the reader took it for a comment or a literal. */
    if (r.i != start || r.directive || r.tok_len == 0)
        return false;
    static const char *const before[] = {";", "{", "}", ")", ":", "else", "do"};
    bool ok = false;
    for (size_t k = 0; k < sizeof before / sizeof before[0] && !ok; k++)
        ok = token_is(&r, before[k]);
    if (!ok || hs_text_has_directive(text + start, end - start))
        return false;
    /* The token after it, with no directive line between. */
    r.i = end;
    r.tok_len = 0;
    r.line_start = false;
    r.directive = false;
    while (r.i < size && r.tok_len == 0)
        read_one(&r);
    return !r.directive && (token_is(&r, ";") || token_is(&r, ")"));
}
