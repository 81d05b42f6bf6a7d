/*
 * header_prefix.c - where the preprocessor stood when a TU entered each header.
 *
 * A worker walks the function bodies of a header (static inline helpers) in the first TU
 * that has them and skips them in later TUs that would give the same facts, which the merge
 * would drop (extract.c, "Header functions walked once"). Proving "the same facts" one body
 * at a time means visiting every cursor of the body in every TU (the body digest): on redis
 * that cost as much as the walk it saved. This file proves it once per header and TU.
 *
 * Preprocessing and parsing are a function of the command line, the files read and the
 * order they are read in. When a TU enters header H, what the front end knows (macros,
 * declarations, pragma state) is decided by the command line, the main file's text before
 * the directive that brought H in (directly or through other headers), and the files
 * entered before H, each one's whole text fixed by its identity (device, inode and
 * modification time: one scan reads one file system). What the TU then makes of H's text,
 * its function bodies and the declarations their names are bound to, follows from that
 * state and the files. So two TUs of a scan with the same key for H see H's bodies as the
 * same cursors bound to the same declarations, which is what the body digest checks cursor
 * by cursor.
 *
 * The key hashes: the command line and directory (`context`), the main file's text up to
 * the directive, and the identities of the files entered before H and of H, in order. The
 * main file's text is read as the preprocessor reads it: backslash-newlines spliced,
 * each comment one space, each run of white space one space or, if it holds a newline, one
 * newline; string and character literals and the <...> name of an #include as written. Two
 * .c files whose licence comments differ above the same #include lines then share keys.
 * Not lexed, so hashed byte for byte: a prefix holding `R"` (a C++ raw string could hide
 * a comment's start). __has_include, __has_embed and #embed look at files without entering
 * them, relative to the main file's folder: a prefix naming one hashes that folder too. A
 * file entered twice (a header without an include guard, an X-macro list) has two states
 * and gets no key; its bodies fall back to the body digest.
 */
#define _GNU_SOURCE /* memmem */
#include "header_prefix.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "hotscan/common.h"

/* ---- the main file's prefix, read as the preprocessor reads it ---------------------- */

enum { N_CODE, N_LINE_COMMENT, N_BLOCK_COMMENT, N_STRING, N_CHAR, N_HEADER_NAME };

/* Everything the normalizer holds back or remembers: with the output so far, it is the
 * digest of a cut. */
typedef struct {
    unsigned char mode;
    char space;          /* white space read in code and not yet written: 0, ' ' or '\n' */
    bool slash;          /* code: a '/' read, maybe a comment's start */
    bool star;           /* block comment: a '*' read, maybe its end */
    bool escape;         /* literal: the last character was a backslash */
    bool line_start;     /* code: only white space and comments since the last newline */
    unsigned char directive; /* 0 none, 1 '#' at a line start, 2 reading its name, 3 an #include */
    unsigned char name_len;
    char name[14];
} norm_state;

typedef struct {
    hs_buf out;
    norm_state s;
} normalizer;

static bool ident_char(char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static void end_directive_name(norm_state *s)
{
    if (s->directive != 2)
        return;
    static const char *const including[] = {"include", "include_next", "import"};
    s->directive = 0;
    for (size_t k = 0; k < sizeof including / sizeof including[0]; k++)
        if (s->name_len == strlen(including[k]) && memcmp(s->name, including[k], s->name_len) == 0)
            s->directive = 3;
}

static void put(normalizer *n, char c)
{
    hs_buf_append(&n->out, &c, 1);
}

/* A character of code that is not white space, a comment or a held '/'. */
static void code_char(normalizer *n, char c)
{
    norm_state *s = &n->s;
    if (s->space && n->out.len > 0) /* white space before the first token is nothing */
        put(n, s->space);
    s->space = 0;
    put(n, c);
    if (s->line_start && c == '#') {
        s->directive = 1;
        s->name_len = 0;
    } else if (s->directive == 1 || s->directive == 2) {
        if (ident_char(c) && s->name_len < sizeof s->name) {
            s->directive = 2;
            s->name[s->name_len++] = c;
        } else {
            end_directive_name(s);
            if (s->directive == 3 && c == '<')
                s->mode = N_HEADER_NAME;
            s->directive = 0;
        }
    } else if (s->directive == 3) {
        if (c == '<')
            s->mode = N_HEADER_NAME;
        s->directive = 0;
    }
    s->line_start = false;
    if (s->mode == N_CODE && c == '"')
        s->mode = N_STRING;
    else if (s->mode == N_CODE && c == '\'')
        s->mode = N_CHAR;
}

static void white(normalizer *n, char c)
{
    norm_state *s = &n->s;
    end_directive_name(s);
    if (c == '\n') {
        s->space = '\n';
        s->line_start = true;
        s->directive = 0;
    } else if (s->space != '\n') {
        s->space = ' ';
    }
}

/* One character after line splicing. */
static void feed(normalizer *n, char c)
{
    norm_state *s = &n->s;
    switch (s->mode) {
    case N_CODE:
        if (s->slash) {
            s->slash = false;
            if (c == '/' || c == '*') {
                s->mode = c == '/' ? N_LINE_COMMENT : N_BLOCK_COMMENT;
                s->star = false;
                return;
            }
            code_char(n, '/');
            if (s->mode != N_CODE) { /* cannot happen: '/' opens no literal */
                feed(n, c);
                return;
            }
        }
        if (c == '/')
            s->slash = true;
        else if (c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r' || c == '\n')
            white(n, c);
        else
            code_char(n, c);
        return;
    case N_LINE_COMMENT:
        if (c == '\n') {
            s->mode = N_CODE;
            white(n, '\n');
        }
        return;
    case N_BLOCK_COMMENT:
        if (s->star && c == '/') {
            s->mode = N_CODE;
            white(n, ' ');
            return;
        }
        s->star = c == '*';
        return;
    default: /* a literal or a header name: as written */
        put(n, c);
        if (c == '\n') { /* an unterminated one ends with its line */
            s->mode = N_CODE;
            s->escape = false;
            s->line_start = true;
            s->directive = 0;
        } else if (s->escape) {
            s->escape = false;
        } else if (c == '\\' && s->mode != N_HEADER_NAME) {
            s->escape = true;
        } else if ((s->mode == N_STRING && c == '"') || (s->mode == N_CHAR && c == '\'') ||
                   (s->mode == N_HEADER_NAME && c == '>')) {
            s->mode = N_CODE;
        }
        return;
    }
}

static void cut_digest(const normalizer *n, unsigned char out[16])
{
    XXH3_state_t *st = XXH3_createState();
    XXH3_128bits_reset(st);
    XXH3_128bits_update(st, n->out.data, n->out.len);
    /* The state that still matters, member by member (no padding bytes, nothing left over
     * from a comment, literal or directive already ended). */
    const norm_state *s = &n->s;
    bool literal = s->mode == N_STRING || s->mode == N_CHAR;
    size_t name_len = s->directive == 2 ? s->name_len : 0;
    unsigned char tail[8 + sizeof s->name] = {s->mode,
                                              (unsigned char)(n->out.len > 0 ? s->space : 0),
                                              s->mode == N_CODE && s->slash,
                                              s->mode == N_BLOCK_COMMENT && s->star,
                                              literal && s->escape,
                                              s->line_start,
                                              s->mode == N_CODE ? s->directive : 0,
                                              (unsigned char)name_len};
    memcpy(tail + 8, s->name, name_len);
    XXH3_128bits_update(st, tail, 8 + name_len);
    XXH128_canonicalFromHash((XXH128_canonical_t *)out, XXH3_128bits_digest(st));
    XXH3_freeState(st);
}

/* out[k]: cut k's digest, copied from cut k - 1 when they are the same cut. */
static void same_or_cut(const normalizer *n, const size_t *cuts, size_t k, unsigned char (*out)[16])
{
    if (k > 0 && cuts[k] == cuts[k - 1])
        memcpy(out[k], out[k - 1], 16);
    else
        cut_digest(n, out[k]);
}

void hs_normalized_prefix_digests(const char *text, size_t size, const size_t *cuts, size_t ncuts,
                                  unsigned char (*out)[16])
{
    normalizer n = {.s = {.line_start = true}};
    hs_buf_init(&n.out);
    size_t k = 0, i = 0;
    while (k < ncuts) {
        /* A cut is a token's start, never inside a backslash-newline. */
        for (; k < ncuts && cuts[k] <= i; k++)
            same_or_cut(&n, cuts, k, out);
        if (k == ncuts || i >= size)
            break;
        if (text[i] == '\\' && i + 1 < size && text[i + 1] == '\n') {
            i += 2;
            continue;
        }
        if (text[i] == '\\' && i + 2 < size && text[i + 1] == '\r' && text[i + 2] == '\n') {
            i += 3;
            continue;
        }
        feed(&n, text[i++]);
    }
    for (; k < ncuts; k++) /* cuts past the end */
        same_or_cut(&n, cuts, k, out);
    hs_buf_free(&n.out);
}

/* ---- the files the TU entered, in order ---------------------------------------------- */

typedef struct {
    CXFile file;
    unsigned depth;
    size_t top;           /* where in the main file the directive that led here is, or 0 */
    CXFileUniqueID id;
} entered;

typedef struct {
    entered *items;
    size_t len, cap;
    CXFile main;
} entered_list;

static void on_inclusion(CXFile file, CXSourceLocation *stack, unsigned depth, CXClientData data)
{
    entered_list *l = data;
    if (l->len == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->items = hs_xrealloc(l->items, l->cap * sizeof *l->items);
    }
    entered *e = &l->items[l->len++];
    memset(e, 0, sizeof *e);
    e->file = file;
    e->depth = depth;
    if (depth == 0 && !l->main) /* the first entry: libclang creates the main file first */
        l->main = file;
    if (depth > 0) {
        CXFile at = NULL;
        unsigned offset = 0;
        clang_getFileLocation(stack[depth - 1], &at, NULL, NULL, &offset);
        e->top = at && at == l->main ? offset : 0;
    }
    clang_getFileUniqueID(file, &e->id);
}

static int by_file(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)*(CXFile const *)a, y = (uintptr_t)*(CXFile const *)b;
    return x < y ? -1 : x > y;
}

static bool mentions(const char *text, size_t size, const char *word)
{
    return size > 0 && memmem(text, size, word, strlen(word)) != NULL;
}

void hs_header_prefix_keys(CXTranslationUnit tu, const void *context, size_t context_size, const char *main_dir,
                           hs_prefix_key_fn each, void *user)
{
    entered_list l = {0};
    clang_getInclusions(tu, on_inclusion, &l);
    if (!l.main || l.items[0].file != l.main) {
        free(l.items);
        return;
    }
    /* Files entered more than once, sorted. */
    CXFile *sorted = hs_xcalloc(l.len ? l.len : 1, sizeof *sorted);
    CXFile *twice = hs_xcalloc(l.len ? l.len : 1, sizeof *twice);
    for (size_t i = 0; i < l.len; i++)
        sorted[i] = l.items[i].file;
    qsort(sorted, l.len, sizeof *sorted, by_file);
    size_t ntwice = 0;
    for (size_t i = 1; i < l.len; i++)
        if (sorted[i] == sorted[i - 1] && (ntwice == 0 || twice[ntwice - 1] != sorted[i]))
            twice[ntwice++] = sorted[i];

    size_t main_size = 0;
    const char *main_text = clang_getFileContents(tu, l.main, &main_size);
    /* Each file's cut: where the main file's text stops counting. Files are entered in
     * order, so the cuts only grow; if they do not, this TU gets no keys. */
    size_t *cuts = hs_xcalloc(l.len ? l.len : 1, sizeof *cuts);
    size_t ncuts = 0, last = 0;
    bool ordered = true;
    for (size_t i = 1; i < l.len; i++) { /* items[0] is the main file */
        size_t top = l.items[i].top;
        ordered = ordered && top >= last && top <= main_size;
        cuts[ncuts++] = top;
        last = top > last ? top : last;
    }
    const char *text = main_text ? main_text : "";
    size_t prefix_size = main_text ? last : 0;
    bool probes = mentions(text, prefix_size, "__has_include") || mentions(text, prefix_size, "embed");
    if (!ordered || (!main_text && last > 0) || (probes && !main_dir)) {
        free(cuts);
        free(twice);
        free(sorted);
        free(l.items);
        return;
    }
    unsigned char (*digests)[16] = hs_xcalloc(ncuts ? ncuts : 1, sizeof *digests);
    bool bytewise = mentions(text, prefix_size, "R\"");
    if (bytewise) {
        for (size_t k = 0; k < ncuts; k++) {
            if (k > 0 && cuts[k] == cuts[k - 1])
                memcpy(digests[k], digests[k - 1], 16);
            else
                XXH128_canonicalFromHash((XXH128_canonical_t *)digests[k], XXH3_128bits(text, cuts[k]));
        }
    } else {
        hs_normalized_prefix_digests(text, main_text ? main_size : 0, cuts, ncuts, digests);
    }

    XXH3_state_t *ids = XXH3_createState();
    XXH3_128bits_reset(ids);
    for (size_t i = 1; i < l.len; i++) {
        const entered *e = &l.items[i];
        size_t k = i - 1; /* its cut */
        XXH3_128bits_update(ids, e->id.data, sizeof e->id.data);
        if (bsearch(&e->file, twice, ntwice, sizeof *twice, by_file)) {
            each(e->file, NULL, user);
            continue;
        }
        XXH128_hash_t upto = XXH3_128bits_digest(ids);
        XXH3_state_t *st = XXH3_createState();
        XXH3_128bits_reset(st);
        XXH3_128bits_update(st, context, context_size);
        XXH3_128bits_update(st, &bytewise, sizeof bytewise);
        XXH3_128bits_update(st, digests[k], sizeof digests[k]);
        XXH3_128bits_update(st, &upto, sizeof upto);
        if (probes)
            XXH3_128bits_update(st, main_dir, strlen(main_dir) + 1);
        XXH128_hash_t h = XXH3_128bits_digest(st);
        XXH3_freeState(st);
        unsigned char key[16];
        XXH128_canonicalFromHash((XXH128_canonical_t *)key, h);
        each(e->file, key, user);
    }
    XXH3_freeState(ids);
    free(digests);
    free(cuts);
    free(twice);
    free(sorted);
    free(l.items);
}
