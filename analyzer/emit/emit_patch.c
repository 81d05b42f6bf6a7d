/*
 * emit_patch.c - the verified fixes as a unified diff that `git apply` and `patch -p1` accept.
 *
 * No diff algorithm: the edits say exactly which bytes change, so each run of edits becomes
 * a block of whole old lines replaced by whole new lines, trimmed of lines that come out
 * equal, and blocks closer than twice the context share a hunk. The plan (edits.c) decides
 * which edits are in, so the patch always matches what `hotscan apply` would write.
 */
#include "hotscan/edits.h"
#include "hotscan/emit.h"

#include <stdlib.h>
#include <string.h>

enum { CONTEXT = 3 };

/* A span of text. */
typedef struct {
    const char *p;
    size_t n;
} span;

/* Splits text into lines, each keeping its '\n' (the last one may have none). */
static span *split_lines(const char *text, size_t size, size_t *count)
{
    size_t cap = 16, n = 0;
    span *lines = hs_xmalloc(cap * sizeof *lines);
    size_t start = 0;
    for (size_t i = 0; i < size; i++) {
        if (text[i] != '\n' && i + 1 < size)
            continue;
        if (n == cap) {
            cap *= 2;
            lines = hs_xrealloc(lines, cap * sizeof *lines);
        }
        lines[n++] = (span){text + start, i + 1 - start};
        start = i + 1;
    }
    *count = n;
    return lines;
}

static bool same_line(span a, span b)
{
    return a.n == b.n && memcmp(a.p, b.p, a.n) == 0;
}

/* Old lines [old_start, old_start + old_count) become new_lines. */
typedef struct {
    size_t old_start, old_count;
    span *new_lines;          /* points into `new_text` */
    size_t new_count;
    char *new_text;
} block;

static size_t line_start(const char *content, size_t pos)
{
    while (pos > 0 && content[pos - 1] != '\n')
        pos--;
    return pos;
}

/* Index of the line starting at `pos` (a line start or the end of the content). */
static size_t line_index(const span *lines, size_t count, const char *content, size_t pos)
{
    size_t lo = 0, hi = count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if ((size_t)(lines[mid].p - content) < pos)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Groups the edits into blocks of whole lines; returns the number of blocks. */
static size_t make_blocks(const hs_file_edits *fe, const span *old_lines, size_t old_count,
                          block **out)
{
    const char *content = fe->content;
    size_t n = fe->edits.len, nblocks = 0;
    block *blocks = hs_xcalloc(n ? n : 1, sizeof *blocks);
    size_t i = 0;
    while (i < n) {
        const hs_edit *e = fe->edits.items[i];
        size_t bs = line_start(content, e->offset), be;
        hs_buf text;
        hs_buf_init(&text);
        hs_buf_append(&text, content + bs, e->offset - bs);
        hs_buf_puts(&text, e->replacement);
        size_t pos = e->offset + e->length;
        i++;
        for (;;) {
            bool at_line_start = pos == 0 || content[pos - 1] == '\n';
            bool text_whole = text.len == 0 || text.data[text.len - 1] == '\n';
            if (at_line_start && text_whole) {
                be = pos;
            } else {
                be = pos;
                while (be < fe->size && content[be] != '\n')
                    be++;
                if (be < fe->size)
                    be++;
            }
            if (i >= n)
                break;
            const hs_edit *next = fe->edits.items[i];
            /* A block that reaches the end of the file takes every later edit along: its
               new text need not end with a newline, so nothing can follow it as a block. */
            if (be < fe->size && line_start(content, next->offset) >= be)
                break;
            hs_buf_append(&text, content + pos, next->offset - pos);
            hs_buf_puts(&text, next->replacement);
            pos = next->offset + next->length;
            i++;
        }
        hs_buf_append(&text, content + pos, be - pos);

        block *b = &blocks[nblocks];
        b->old_start = line_index(old_lines, old_count, content, bs);
        b->old_count = line_index(old_lines, old_count, content, be) - b->old_start;
        size_t text_len = text.len;
        b->new_text = hs_buf_take(&text);
        b->new_lines = split_lines(b->new_text, text_len, &b->new_count);
        /* Lines that come out the same are context, not change. */
        size_t skip = 0;
        while (skip < b->old_count && skip < b->new_count &&
               same_line(old_lines[b->old_start + skip], b->new_lines[skip]))
            skip++;
        b->old_start += skip;
        b->old_count -= skip;
        memmove(b->new_lines, b->new_lines + skip, (b->new_count - skip) * sizeof(span));
        b->new_count -= skip;
        while (b->old_count > 0 && b->new_count > 0 &&
               same_line(old_lines[b->old_start + b->old_count - 1],
                         b->new_lines[b->new_count - 1])) {
            b->old_count--;
            b->new_count--;
        }
        if (b->old_count == 0 && b->new_count == 0) {
            free(b->new_lines);
            free(b->new_text);
            continue;
        }
        nblocks++;
    }
    *out = blocks;
    return nblocks;
}

static void put_line(FILE *out, char prefix, span line)
{
    fputc(prefix, out);
    fwrite(line.p, 1, line.n, out);
    if (line.n == 0 || line.p[line.n - 1] != '\n')
        fputs("\n\\ No newline at end of file\n", out);
}

static void put_range(FILE *out, size_t start, size_t count)
{
    if (count == 1)
        fprintf(out, "%zu", start + 1);
    else if (count == 0)
        fprintf(out, "%zu,0", start);
    else
        fprintf(out, "%zu,%zu", start + 1, count);
}

/*
 * One side of a file header, quoted as git quotes names (quote_c_style): a name with a
 * control character, a double quote, a backslash or a byte >= 0x80 is written in double
 * quotes with C escapes (`"a/new\nline.c"`); a name with a space gets a tab after it, so
 * that `git apply` and `patch` see where it ends.
 */
static void write_header_name(FILE *out, const char *prefix, const char *path)
{
    bool quote = false;
    for (const unsigned char *p = (const unsigned char *)path; *p; p++)
        if (*p < 0x20 || *p == '"' || *p == '\\' || *p >= 0x7f)
            quote = true;
    if (!quote) {
        fprintf(out, "%s%s%s\n", prefix, path, strchr(path, ' ') ? "\t" : "");
        return;
    }
    fputc('"', out);
    fputs(prefix, out);
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        switch (*p) {
        case '\a': fputs("\\a", out); break;
        case '\b': fputs("\\b", out); break;
        case '\t': fputs("\\t", out); break;
        case '\n': fputs("\\n", out); break;
        case '\v': fputs("\\v", out); break;
        case '\f': fputs("\\f", out); break;
        case '\r': fputs("\\r", out); break;
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        default:
            if (*p < 0x20 || *p >= 0x7f)
                fprintf(out, "\\%03o", *p);
            else
                fputc(*p, out);
        }
    }
    fputs("\"\n", out);
}

static void write_file_diff(FILE *out, const hs_file_edits *fe)
{
    size_t old_count;
    span *old_lines = split_lines(fe->content, fe->size, &old_count);
    block *blocks;
    size_t nblocks = make_blocks(fe, old_lines, old_count, &blocks);
    if (nblocks > 0) {
        fputs("--- ", out);
        write_header_name(out, "a/", fe->path);
        fputs("+++ ", out);
        write_header_name(out, "b/", fe->path);
    }
    long delta = 0; /* new line numbers minus old ones, before the current hunk */
    size_t first = 0;
    while (first < nblocks) {
        size_t last = first;
        while (last + 1 < nblocks &&
               blocks[last + 1].old_start - (blocks[last].old_start + blocks[last].old_count) <=
                   2 * CONTEXT)
            last++;
        size_t h_start = blocks[first].old_start > CONTEXT ? blocks[first].old_start - CONTEXT : 0;
        size_t h_end = blocks[last].old_start + blocks[last].old_count + CONTEXT;
        if (h_end > old_count)
            h_end = old_count;
        long hunk_delta = 0;
        for (size_t k = first; k <= last; k++)
            hunk_delta += (long)blocks[k].new_count - (long)blocks[k].old_count;
        size_t h_old = h_end - h_start;
        fputs("@@ -", out);
        put_range(out, h_start, h_old);
        fputs(" +", out);
        put_range(out, (size_t)((long)h_start + delta), (size_t)((long)h_old + hunk_delta));
        fputs(" @@\n", out);
        size_t line = h_start;
        for (size_t k = first; k <= last; k++) {
            for (; line < blocks[k].old_start; line++)
                put_line(out, ' ', old_lines[line]);
            for (size_t m = 0; m < blocks[k].old_count; m++)
                put_line(out, '-', old_lines[line++]);
            for (size_t m = 0; m < blocks[k].new_count; m++)
                put_line(out, '+', blocks[k].new_lines[m]);
        }
        for (; line < h_end; line++)
            put_line(out, ' ', old_lines[line]);
        delta += hunk_delta;
        first = last + 1;
    }
    for (size_t k = 0; k < nblocks; k++) {
        free(blocks[k].new_lines);
        free(blocks[k].new_text);
    }
    free(blocks);
    free(old_lines);
}

bool hs_edit_plan_write_patch(FILE *out, const hs_edit_plan *plan)
{
    for (size_t i = 0; i < plan->files.len; i++)
        write_file_diff(out, plan->files.items[i]);
    return !ferror(out);
}

bool hs_emit_patch(FILE *out, json_t *report, char **err)
{
    hs_edit_plan plan;
    if (!hs_edit_plan_build_fresh(report, &plan, err))
        return false;
    bool ok = hs_edit_plan_write_patch(out, &plan);
    if (!ok)
        *err = hs_xstrdup("cannot write the patch");
    hs_edit_plan_free(&plan);
    return ok;
}
