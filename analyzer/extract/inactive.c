/*
 * inactive.c - the identifiers in code a TU's configuration compiles out.
 *
 * A verdict made from one configuration of a program can be wrong in another: a counter
 * that release builds only add to may be waited on under `#ifndef NDEBUG`, and a fix-it
 * made from the release build's uses would then change what the debug build does
 * (issue 10, item 5). libclang lists the ranges the preprocessor skipped (the parse asks
 * for CXTranslationUnit_DetailedPreprocessingRecord, without which it lists none; on
 * redis's networking.c and rocksdb's db_impl.cc the parse cost the same within noise).
 * This file reads the project files' skipped ranges once per TU, splits them into
 * identifiers (skipping comments, string and character literals and numbers) and keeps
 * the first place of each, so a collector can ask "does `refs` appear in code this build
 * does not see?" in constant time. It cannot say what that code does with the name: the
 * answer only says where to look, and a rule that needs the whole program's uses treats
 * a mention as a use it cannot judge.
 */
#include "inactive.h"

#include <stdlib.h>
#include <string.h>

#include "hotscan/common.h"

struct hs_inactive_code {
    hs_strmap *first; /* identifier -> hs_pos* (the first place, in range order) */
};

static bool ident_start(char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool ident_char(char c)
{
    return ident_start(c) || (c >= '0' && c <= '9');
}

/* Splits text[begin, end) into identifiers; `line` is the line `begin` is on. */
static void add_identifiers(hs_inactive_code *ic, const char *file, const char *text, size_t begin,
                            size_t end, unsigned line)
{
    size_t i = begin;
    while (i < end) {
        char c = text[i];
        if (c == '\n') {
            line++;
            i++;
        } else if (c == '/' && i + 1 < end && text[i + 1] == '/') {
            while (i < end && text[i] != '\n')
                i++;
        } else if (c == '/' && i + 1 < end && text[i + 1] == '*') {
            i += 2;
            while (i < end && !(text[i] == '*' && i + 1 < end && text[i + 1] == '/')) {
                line += text[i] == '\n';
                i++;
            }
            i += 2;
        } else if (c == '"' || c == '\'') {
            /* A literal ends at its quote or, unterminated (`#error don't`), at the line's end. */
            i++;
            while (i < end && text[i] != c && text[i] != '\n') {
                if (text[i] == '\\' && i + 1 < end)
                    i++;
                i++;
            }
            if (i < end && text[i] == c)
                i++;
        } else if (c >= '0' && c <= '9') {
            while (i < end && (ident_char(text[i]) || text[i] == '.'))
                i++;
        } else if (ident_start(c)) {
            size_t s = i;
            while (i < end && ident_char(text[i]))
                i++;
            /* Most identifiers were seen before: looked up from a copy on the stack. */
            char small[128];
            char *name = i - s < sizeof small ? small : hs_xmalloc(i - s + 1);
            memcpy(name, text + s, i - s);
            name[i - s] = '\0';
            if (!hs_strmap_has(ic->first, name)) {
                hs_pos *at = hs_xcalloc(1, sizeof *at);
                at->file = file;
                at->line = line;
                at->offset = (unsigned)s;
                size_t col = s;
                while (col > 0 && text[col - 1] != '\n')
                    col--;
                at->column = (unsigned)(s - col) + 1;
                hs_strmap_put(ic->first, name, at);
            }
            if (name != small)
                free(name);
        } else {
            i++;
        }
    }
}

hs_inactive_code *hs_inactive_code_create(hs_walk *w, CXTranslationUnit tu)
{
    hs_inactive_code *ic = hs_xcalloc(1, sizeof *ic);
    ic->first = hs_strmap_create();
    CXSourceRangeList *ranges = clang_getAllSkippedRanges(tu);
    for (unsigned r = 0; ranges && r < ranges->count; r++) {
        CXSourceLocation b = clang_getRangeStart(ranges->ranges[r]);
        CXSourceLocation e = clang_getRangeEnd(ranges->ranges[r]);
        if (clang_Location_isInSystemHeader(b))
            continue;
        CXFile fb, fe;
        unsigned line, boff, eoff;
        clang_getSpellingLocation(b, &fb, &line, NULL, &boff);
        clang_getSpellingLocation(e, &fe, NULL, NULL, &eoff);
        if (!fb || !clang_File_isEqual(fb, fe))
            continue;
        const char *file = hs_project_file(w, fb);
        if (!file[0])
            continue;
        size_t size = 0;
        const char *text = hs_walk_file_contents(w, fb, &size);
        if (!text || boff >= size)
            continue;
        add_identifiers(ic, file, text, boff, eoff < size ? eoff : size, line);
    }
    if (ranges)
        clang_disposeSourceRangeList(ranges);
    return ic;
}

bool hs_inactive_code_mentions(const hs_inactive_code *ic, const char *name, hs_pos *at)
{
    const hs_pos *p = ic && name ? hs_strmap_get(ic->first, name) : NULL;
    if (p && at)
        *at = *p;
    return p != NULL;
}

void hs_inactive_code_delete(hs_inactive_code *ic)
{
    if (!ic)
        return;
    const char *key;
    void *value;
    for (size_t it = 0; hs_strmap_next(ic->first, &it, &key, &value);)
        free(value);
    hs_strmap_delete(ic->first);
    free(ic);
}
