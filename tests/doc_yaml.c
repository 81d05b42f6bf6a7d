/*
 * doc_yaml.c - the YAML the project shows or ships must parse: every ```yaml / ```yml fenced
 * block of the Markdown files given (docs/, README.md) and every .yml / .yaml file given whole
 * (contrib/'s workflow, .pre-commit-hooks.yaml), read with libyaml as a user's tools would,
 * and no mapping in them may give a key twice (GitHub refuses such a workflow; libyaml does not).
 *
 * Usage: doc_yaml FILE...   Prints FILE:LINE:COLUMN and the problem for each block that does
 * not parse, and exits 1 then (also when the Markdown files hold no YAML block at all, so a
 * broken extraction cannot pass by finding nothing).
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "hotscan/yaml_keys.h"

/* Parses `text` (every document in it); false after printing where and why it does not. The
 * text's first line is line `first_line` of `file`, its columns start `indent` further right. */
static bool parse_yaml(const char *file, size_t first_line, size_t indent, const char *text, size_t len)
{
    yaml_parser_t parser;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    bool ok = true;
    for (;;) {
        yaml_document_t doc;
        if (!yaml_parser_load(&parser, &doc)) {
            const yaml_mark_t *m = &parser.problem_mark;
            fprintf(stderr, "%s:%zu:%zu: not valid YAML: %s%s%s\n", file, first_line + m->line,
                    indent + m->column + 1, parser.problem ? parser.problem : "unreadable",
                    parser.context ? " " : "", parser.context ? parser.context : "");
            ok = false;
            break;
        }
        yaml_node_t *root = yaml_document_get_root_node(&doc);
        const yaml_node_t *first, *again = hs_yaml_duplicate_key_anywhere(&doc, root, &first);
        if (again) {
            fprintf(stderr, "%s:%zu:%zu: duplicate key '%s' (first at line %zu)\n", file,
                    first_line + again->start_mark.line, indent + again->start_mark.column + 1,
                    (const char *)again->data.scalar.value, first_line + first->start_mark.line);
            ok = false;
        }
        bool end = root == NULL;
        yaml_document_delete(&doc);
        if (end)
            break;
    }
    yaml_parser_delete(&parser);
    return ok;
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            cap = (cap + 4096) * 2;
            char *grown = realloc(text, cap);
            if (!grown) {
                free(text);
                fclose(f);
                return NULL;
            }
            text = grown;
        }
        size_t got = fread(text + n, 1, 4096, f);
        n += got;
        if (got < 4096)
            break;
    }
    bool failed = ferror(f);
    fclose(f);
    if (failed) {
        free(text);
        return NULL;
    }
    text[n] = '\0';
    *len = n;
    return text;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The fence that opens a YAML block ("```yaml", "~~~yml", indented in a list item), or 0. */
static size_t yaml_fence(const char *line, size_t len, size_t *indent, char *fence)
{
    size_t i = 0;
    while (i < len && line[i] == ' ')
        i++;
    size_t f = i;
    while (i < len && (line[i] == '`' || line[i] == '~') && line[i] == line[f])
        i++;
    if (i - f < 3)
        return 0;
    size_t tag = i;
    while (tag < len && line[tag] == ' ')
        tag++;
    size_t end = tag;
    while (end < len && line[end] != ' ' && line[end] != '{')
        end++;
    if (!((end - tag == 4 && strncmp(line + tag, "yaml", 4) == 0) ||
          (end - tag == 3 && strncmp(line + tag, "yml", 3) == 0)))
        return 0;
    *indent = f;
    *fence = line[f];
    return i - f;
}

/* A line closing a fence of `width` `fence` characters. */
static bool closes(const char *line, size_t len, char fence, size_t width)
{
    size_t i = 0;
    while (i < len && line[i] == ' ')
        i++;
    size_t f = i;
    while (i < len && line[i] == fence)
        i++;
    if (i - f < width)
        return false;
    while (i < len && (line[i] == ' ' || line[i] == '\r'))
        i++;
    return i == len;
}

/* Checks each YAML block of a Markdown file; counts them in *blocks. */
static bool check_markdown(const char *path, const char *text, size_t *blocks)
{
    bool ok = true;
    size_t lineno = 0;
    const char *p = text;
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        lineno++;
        size_t indent, width;
        char fence;
        const char *next = eol ? eol + 1 : p + len;
        if (!(width = yaml_fence(p, len, &indent, &fence))) {
            p = next;
            continue;
        }
        /* The block: the lines up to the closing fence, less the fence's indentation. */
        size_t open_line = lineno;
        char *block = NULL;
        size_t block_len = 0;
        FILE *b = open_memstream(&block, &block_len);
        bool closed = false;
        p = next;
        while (*p) {
            eol = strchr(p, '\n');
            len = eol ? (size_t)(eol - p) : strlen(p);
            next = eol ? eol + 1 : p + len;
            lineno++;
            if (closes(p, len, fence, width)) {
                closed = true;
                p = next;
                break;
            }
            size_t skip = 0;
            while (skip < indent && skip < len && p[skip] == ' ')
                skip++;
            fwrite(p + skip, 1, len - skip, b);
            fputc('\n', b);
            p = next;
        }
        fclose(b);
        if (!closed) {
            fprintf(stderr, "%s:%zu: the YAML block opened here is never closed\n", path, open_line);
            ok = false;
        } else if (!parse_yaml(path, open_line + 1, indent, block, block_len)) {
            ok = false;
        }
        free(block);
        (*blocks)++;
    }
    return ok;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: doc_yaml FILE...\n");
        return 2;
    }
    bool ok = true;
    size_t blocks = 0, files = 0, markdown = 0;
    for (int i = 1; i < argc; i++) {
        size_t len;
        char *text = read_all(argv[i], &len);
        if (!text) {
            perror(argv[i]);
            ok = false;
            continue;
        }
        if (ends_with(argv[i], ".md")) {
            markdown++;
            ok &= check_markdown(argv[i], text, &blocks);
        } else {
            files++;
            ok &= parse_yaml(argv[i], 1, 0, text, len);
        }
        free(text);
    }
    if (markdown && blocks == 0) {
        fprintf(stderr, "doc_yaml: no ```yaml block in the %zu Markdown files; is the extraction broken?\n",
                markdown);
        ok = false;
    }
    printf("%zu YAML blocks in %zu Markdown files, %zu YAML files: %s\n", blocks, markdown, files,
           ok ? "all parse" : "some do not parse");
    return ok ? 0 : 1;
}
