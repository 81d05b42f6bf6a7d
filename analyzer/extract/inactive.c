/*
 * inactive.c - the identifiers in code a TU's configuration compiles out.
 *
 * A verdict made from one configuration of a program can be wrong in another: a counter
 * that release builds only add to may be waited on under `#ifndef NDEBUG`, and a fix-it
 * made from the release build's uses would then change what the debug build does.
 * libclang lists the ranges the preprocessor skipped (the parse asks for
 * CXTranslationUnit_DetailedPreprocessingRecord, without which it lists none; on
 * redis's networking.c and rocksdb's db_impl.cc the parse cost the same within noise).
 * This file reads the project files' skipped ranges once per TU, splits them into
 * identifiers (skipping comments, string and character literals and numbers) and keeps
 * the first place of each, so a collector can ask "does `refs` appear in code this build
 * does not see?" in constant time. It cannot say what that code does with the name: the
 * answer only says where to look, and a rule that needs the whole program's uses treats
 * a mention as a use it cannot judge.
 *
 * One skipped range is not compiled-out code: the body of an include-guarded header that
 * the TU enters again while the guard is defined (a header that includes itself back
 * through another, or one whose guard clang does not recognise because something precedes
 * it). The preprocessor skips the whole guarded body there, yet the same text was compiled
 * in the inclusion that defined the guard. Such a range starts with the guard's opener
 * (`#ifndef G` or `#if !defined(G)`) followed by `#define G`; it is left out, while the
 * ranges the first inclusion skipped inside the body are kept.
 */
#include "inactive.h"

#include <stdlib.h>
#include <string.h>

#include "hotscan/common.h"

/* An identifier's first place. The name is not copied: it points into the file's text,
 * which libclang keeps for the TU's life (hs_walk_file_contents). */
typedef struct {
    const char *name;   /* NULL: an empty slot */
    size_t len;
    hs_pos at;
} first_place;

/* Open addressing over the identifiers' bytes, grown at half load: every identifier of every
 * skipped range is looked up, most of them many times, with no allocation per lookup. */
struct hs_inactive_code {
    first_place *slots;
    size_t cap, len;    /* cap is a power of two */
};

static first_place *find(const hs_inactive_code *ic, const char *name, size_t len)
{
    size_t j = (size_t)hs_table_hash(name, len) & (ic->cap - 1);
    while (ic->slots[j].name && (ic->slots[j].len != len || memcmp(ic->slots[j].name, name, len) != 0))
        j = (j + 1) & (ic->cap - 1);
    return &ic->slots[j];
}

static void grow(hs_inactive_code *ic)
{
    hs_inactive_code grown = {hs_xcalloc(2 * ic->cap, sizeof(first_place)), 2 * ic->cap, ic->len};
    for (size_t i = 0; i < ic->cap; i++)
        if (ic->slots[i].name)
            *find(&grown, ic->slots[i].name, ic->slots[i].len) = ic->slots[i];
    free(ic->slots);
    *ic = grown;
}

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
            first_place *p = find(ic, text + s, i - s);
            if (!p->name) {
                size_t col = s;
                while (col > 0 && text[col - 1] != '\n')
                    col--;
                *p = (first_place){text + s, i - s, {file, line, (unsigned)(s - col) + 1, (unsigned)s}};
                if (2 * ++ic->len > ic->cap)
                    grow(ic);
            }
        } else {
            i++;
        }
    }
}

/* Past spaces, tabs and comments (a line comment to its end, not past it). */
static size_t skip_blank(const char *text, size_t i, size_t end, bool newlines)
{
    while (i < end) {
        if (text[i] == ' ' || text[i] == '\t' || (newlines && (text[i] == '\n' || text[i] == '\r'))) {
            i++;
        } else if (text[i] == '/' && i + 1 < end && text[i + 1] == '*') {
            i += 2;
            while (i < end && !(text[i] == '*' && i + 1 < end && text[i + 1] == '/'))
                i++;
            i = i + 2 < end ? i + 2 : end;
        } else if (newlines && text[i] == '/' && i + 1 < end && text[i + 1] == '/') {
            while (i < end && text[i] != '\n')
                i++;
        } else {
            break;
        }
    }
    return i;
}

/* The word at text[i] equals `word` and ends there. */
static bool word_at(const char *text, size_t i, size_t end, const char *word)
{
    size_t n = strlen(word);
    return i + n <= end && memcmp(text + i, word, n) == 0 && (i + n == end || !ident_char(text[i + n]));
}

/* An identifier at text[i]: its length, 0 when none. */
static size_t ident_at(const char *text, size_t i, size_t end)
{
    size_t n = 0;
    if (i < end && ident_start(text[i]))
        while (i + n < end && ident_char(text[i + n]))
            n++;
    return n;
}

/*
 * Is text[begin, end) an include guard's body skipped because the guard is defined:
 * `#ifndef G` or `#if !defined(G)` / `#if !defined G`, then, after blank lines and
 * comments, `#define G`?
 */
static bool guard_body(const char *text, size_t begin, size_t end)
{
    size_t i = skip_blank(text, begin, end, false);
    if (i >= end || text[i] != '#')
        return false;
    i = skip_blank(text, i + 1, end, false);
    size_t g, glen;
    if (word_at(text, i, end, "ifndef")) {
        g = skip_blank(text, i + 6, end, false);
    } else if (word_at(text, i, end, "if")) {
        i = skip_blank(text, i + 2, end, false);
        if (i >= end || text[i] != '!')
            return false;
        i = skip_blank(text, i + 1, end, false);
        if (!word_at(text, i, end, "defined"))
            return false;
        i = skip_blank(text, i + 7, end, false);
        bool paren = i < end && text[i] == '(';
        g = skip_blank(text, i + paren, end, false);
        size_t after = skip_blank(text, g + ident_at(text, g, end), end, false);
        if (paren && (after >= end || text[after] != ')'))
            return false;
    } else {
        return false;
    }
    glen = ident_at(text, g, end);
    if (glen == 0)
        return false;
    /* The rest of the opener's line, then blank lines and comments. */
    i = g + glen;
    while (i < end && text[i] != '\n')
        i++;
    i = skip_blank(text, i, end, true);
    if (i >= end || text[i] != '#')
        return false;
    i = skip_blank(text, i + 1, end, false);
    if (!word_at(text, i, end, "define"))
        return false;
    i = skip_blank(text, i + 6, end, false);
    return ident_at(text, i, end) == glen && memcmp(text + i, text + g, glen) == 0;
}

hs_inactive_code *hs_inactive_code_create(hs_walk *w, CXTranslationUnit tu)
{
    hs_inactive_code *ic = hs_xcalloc(1, sizeof *ic);
    ic->cap = 1024;
    ic->slots = hs_xcalloc(ic->cap, sizeof(first_place));
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
        if (guard_body(text, boff, eoff < size ? eoff : size))
            continue;
        add_identifiers(ic, file, text, boff, eoff < size ? eoff : size, line);
    }
    if (ranges)
        clang_disposeSourceRangeList(ranges);
    return ic;
}

bool hs_inactive_code_mentions(const hs_inactive_code *ic, const char *name, hs_pos *at)
{
    const first_place *p = ic && name ? find(ic, name, strlen(name)) : NULL;
    if (!p || !p->name)
        return false;
    if (at)
        *at = p->at;
    return true;
}

void hs_inactive_code_delete(hs_inactive_code *ic)
{
    if (!ic)
        return;
    free(ic->slots);
    free(ic);
}
