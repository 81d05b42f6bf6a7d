/*
 * suppress.c - NOLINT suppressions, so a reviewed finding can be silenced where it is
 * instead of turning its rule off for the whole tree. Each file a finding lies in is read
 * once and its comments lexed (strings and character literals skipped, so NOLINT in a
 * literal is not a suppression); the spellings are clang-tidy's, the check names hotscan's
 * rule ids or hotscan-<rule>, so one comment can silence clang-tidy and hotscan together.
 */
#include "hotscan/suppress.h"

#include <stdlib.h>
#include <string.h>

#include "hotscan/common.h"
#include "hotscan/source_file.h"
#include "hotscan/rules.h"
#include "hotscan/strmap.h"

typedef enum { KIND_LINE, KIND_NEXTLINE, KIND_BEGIN, KIND_END } kind;

typedef struct {
    kind kind;
    unsigned line, column;
    char *text;      /* the comment's directive as written ("NOLINT(timer-hot-path)") */
    char *checks;    /* what was between the parentheses, or NULL: all checks */
    unsigned last;   /* a BEGIN's region ends on this line (its END's, or the file's end) */
    bool paired;     /* BEGIN/END: found its other half */
    bool used;
} entry;

typedef struct {
    entry *items;
    size_t len, cap;
} file_entries;

struct hs_suppressions {
    char *root;
    hs_strmap *files; /* absolute path -> file_entries* */
};

hs_suppressions *hs_suppressions_create(const char *root)
{
    hs_suppressions *s = hs_xcalloc(1, sizeof *s);
    s->root = hs_xstrdup(root ? root : ".");
    s->files = hs_strmap_create();
    return s;
}

static void entries_free(file_entries *fe)
{
    if (!fe)
        return;
    for (size_t i = 0; i < fe->len; i++) {
        free(fe->items[i].text);
        free(fe->items[i].checks);
    }
    free(fe->items);
    free(fe);
}

void hs_suppressions_delete(hs_suppressions *s)
{
    if (!s)
        return;
    const char *k;
    void *v;
    for (size_t it = 0; hs_strmap_next(s->files, &it, &k, &v);)
        entries_free(v);
    hs_strmap_delete(s->files);
    free(s->root);
    free(s);
}

/* `*` matches any run of characters, anything else itself. One pass that retries from the
 * last `*` only (what lies before it is matched for good), so a name of many stars costs
 * length times length, not exponential time (`NOLINT(hot*****...*x)` once hung a scan). */
static bool glob_match(const char *p, const char *s)
{
    const char *star = NULL, *resume = NULL;
    while (*s) {
        if (*p == '*') {
            star = p++;
            resume = s;
        } else if (*p == *s) {
            p++;
            s++;
        } else if (star) {
            p = star + 1;
            s = ++resume;
        } else {
            return false;
        }
    }
    while (*p == '*')
        p++;
    return !*p;
}

bool hs_suppression_names_rule(const char *pattern, const char *rule)
{
    if (glob_match(pattern, rule))
        return true;
    char *prefixed = hs_printf("hotscan-%s", rule);
    bool m = glob_match(pattern, prefixed);
    free(prefixed);
    return m;
}

/* Calls `fn` with each trimmed name of a comma-separated list; stops when it returns true. */
static bool each_check(const char *checks, bool (*fn)(const char *name, const void *arg), const void *arg)
{
    const char *p = checks;
    while (*p) {
        const char *end = strchr(p, ',');
        if (!end)
            end = p + strlen(p);
        const char *a = p, *b = end;
        while (a < b && (*a == ' ' || *a == '\t'))
            a++;
        while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
            b--;
        if (b > a) {
            char *name = hs_xstrndup(a, (size_t)(b - a));
            bool stop = fn(name, arg);
            free(name);
            if (stop)
                return true;
        }
        p = *end ? end + 1 : end;
    }
    return false;
}

static bool name_matches(const char *name, const void *rule)
{
    return hs_suppression_names_rule(name, rule);
}

static bool entry_covers_rule(const entry *e, const char *rule)
{
    return !e->checks || each_check(e->checks, name_matches, rule);
}

static bool name_is_hotscan(const char *name, const void *unused)
{
    (void)unused;
    if (strcmp(name, "*") == 0)
        return false;
    size_t n;
    const hs_rule *const *rules = hs_rules_all(&n);
    for (size_t i = 0; i < n; i++)
        if (hs_suppression_names_rule(name, rules[i]->id))
            return true;
    return false;
}

static void push(file_entries *fe, entry e)
{
    fe->items = hs_array_append(fe->items, &fe->len, &fe->cap, sizeof *fe->items);
    fe->items[fe->len - 1] = e;
}

/* One comment's text [a, b) starting at line/column: every NOLINT directive in it. */
static void scan_comment(file_entries *fe, const char *a, const char *b, unsigned line, unsigned col)
{
    for (const char *p = a; p + 6 <= b; p++) {
        if (*p == '\n') {
            line++;
            col = 1;
            continue;
        }
        if (memcmp(p, "NOLINT", 6) != 0 || (p > a && (p[-1] == '_' || (p[-1] >= 'A' && p[-1] <= 'Z')))) {
            col++;
            continue;
        }
        const char *q = p + 6;
        kind k = KIND_LINE;
        static const struct { const char *word; kind k; } words[] = {
            {"NEXTLINE", KIND_NEXTLINE}, {"BEGIN", KIND_BEGIN}, {"END", KIND_END}};
        for (size_t w = 0; w < 3; w++) {
            size_t n = strlen(words[w].word);
            if ((size_t)(b - q) >= n && memcmp(q, words[w].word, n) == 0) {
                k = words[w].k;
                q += n;
                break;
            }
        }
        /* NOLINTFOO is not a directive. */
        if (q < b && ((*q >= 'A' && *q <= 'Z') || (*q >= 'a' && *q <= 'z') || *q == '_')) {
            col++;
            continue;
        }
        char *checks = NULL;
        if (q < b && *q == '(') {
            const char *close = memchr(q, ')', (size_t)(b - q));
            const char *nl = memchr(q, '\n', (size_t)(b - q));
            if (close && (!nl || close < nl)) {
                checks = hs_xstrndup(q + 1, (size_t)(close - q - 1));
                q = close + 1;
            }
        }
        entry e = {.kind = k, .line = line, .column = col, .text = hs_xstrndup(p, (size_t)(q - p)),
                   .checks = checks};
        push(fe, e);
        col += (unsigned)(q - p);
        p = q - 1;
    }
}

/* Pairs each END with the nearest open BEGIN of the same check list (clang-tidy's rule). */
static void pair_regions(file_entries *fe, unsigned last_line)
{
    for (size_t i = 0; i < fe->len; i++) {
        entry *end = &fe->items[i];
        if (end->kind != KIND_END)
            continue;
        for (size_t j = i; j-- > 0;) {
            entry *begin = &fe->items[j];
            bool same = (!begin->checks && !end->checks) ||
                        (begin->checks && end->checks && strcmp(begin->checks, end->checks) == 0);
            if (begin->kind == KIND_BEGIN && !begin->paired && same) {
                begin->paired = end->paired = true;
                begin->last = end->line;
                break;
            }
        }
    }
    for (size_t i = 0; i < fe->len; i++)
        if (fe->items[i].kind == KIND_BEGIN && !fe->items[i].paired)
            fe->items[i].last = last_line;
}

static file_entries *parse_text(const char *text, size_t size)
{
    file_entries *fe = hs_xcalloc(1, sizeof *fe);
    unsigned line = 1, col = 1;
    size_t i = 0;
    while (i < size) {
        char c = text[i];
        if (c == '/' && i + 1 < size && (text[i + 1] == '/' || text[i + 1] == '*')) {
            bool block = text[i + 1] == '*';
            size_t start = i + 2, j = start;
            if (block) {
                while (j + 1 < size && !(text[j] == '*' && text[j + 1] == '/'))
                    j++;
                if (j + 1 >= size)
                    j = size;
            } else {
                /* A line comment continues over backslash-newlines. */
                while (j < size && !(text[j] == '\n' && !(j > 0 && text[j - 1] == '\\')))
                    j++;
            }
            scan_comment(fe, text + start, text + j, line, col + 2);
            for (size_t k = i; k < j; k++) {
                if (text[k] == '\n')
                    line++, col = 1;
                else
                    col++;
            }
            i = block ? (j + 2 < size ? j + 2 : size) : j;
            col += block ? 2 : 0;
            continue;
        }
        /* A quote after a digit is C++14's digit separator (1'000), not a literal. */
        if (c == '"' || (c == '\'' && !(i > 0 && text[i - 1] >= '0' && text[i - 1] <= '9'))) {
            size_t j = i + 1;
            while (j < size && text[j] != c && text[j] != '\n') {
                if (text[j] == '\\' && j + 1 < size)
                    j++;
                j++;
            }
            for (size_t k = i; k < j && k < size; k++) {
                if (text[k] == '\n')
                    line++, col = 1;
                else
                    col++;
            }
            i = j < size && text[j] == c ? j + 1 : j;
            col++;
            continue;
        }
        if (c == '\n')
            line++, col = 1;
        else
            col++;
        i++;
    }
    pair_regions(fe, line);
    return fe;
}

void hs_suppressions_add_text(hs_suppressions *s, const char *file, const char *text, size_t size)
{
    file_entries *fe = parse_text(text, size);
    entries_free(hs_strmap_put(s->files, file, fe));
}

static char *absolute(const hs_suppressions *s, const char *file)
{
    return file[0] == '/' ? hs_xstrdup(file) : hs_path_join(s->root, file);
}

static file_entries *entries_of(hs_suppressions *s, const char *file)
{
    char *abs = absolute(s, file);
    file_entries *fe = hs_strmap_get(s->files, abs);
    if (!fe && !hs_strmap_has(s->files, abs)) {
        size_t size;
        char *problem = NULL; /* a FIFO among the scanned files suppresses nothing, and never blocks */
        char *text = hs_source_file_read(abs, (size_t)256 << 20, &size, &problem);
        free(problem);
        fe = text ? parse_text(text, size) : NULL;
        free(text);
        hs_strmap_put(s->files, abs, fe);
    }
    free(abs);
    return fe;
}

void hs_suppressions_load(hs_suppressions *s, const char *file)
{
    (void)entries_of(s, file);
}

bool hs_suppressions_matches(hs_suppressions *s, const char *file, unsigned line, const char *rule)
{
    file_entries *fe = entries_of(s, file);
    if (!fe)
        return false;
    for (size_t i = 0; i < fe->len; i++) {
        entry *e = &fe->items[i];
        bool here = (e->kind == KIND_LINE && e->line == line) ||
                    (e->kind == KIND_NEXTLINE && e->line + 1 == line) ||
                    (e->kind == KIND_BEGIN && e->line <= line && line <= e->last);
        if (here && entry_covers_rule(e, rule)) {
            e->used = true;
            return true;
        }
    }
    return false;
}

size_t hs_suppressions_mark(hs_suppressions *s, json_t *findings)
{
    size_t n = 0, i;
    json_t *f;
    json_array_foreach(findings, i, f) {
        const char *file = json_string_value(json_object_get(f, "file"));
        const char *rule = json_string_value(json_object_get(f, "rule"));
        unsigned line = (unsigned)json_integer_value(json_object_get(f, "line"));
        if (file && rule && hs_suppressions_matches(s, file, line, rule)) {
            json_object_set_new(f, "suppressed", json_true());
            n++;
        }
    }
    return n;
}

/* A JSON string of `s` even when it is not UTF-8 (a comment in Latin-1, a file name's bytes):
 * each byte past ASCII becomes U+FFFD then, so no entry is lost to json_pack's NULL. */
static json_t *text_value(const char *s)
{
    json_t *v = json_string(s);
    if (v)
        return v;
    hs_buf b;
    hs_buf_init(&b);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p < 0x80)
            hs_buf_append(&b, (const char *)p, 1);
        else
            hs_buf_append(&b, "\xEF\xBF\xBD", 3);
    }
    v = json_string(b.data ? b.data : "");
    hs_buf_free(&b);
    return v;
}

static int compare_unused(const void *pa, const void *pb)
{
    json_t *a = *(json_t *const *)pa, *b = *(json_t *const *)pb;
    int c = strcmp(json_string_value(json_object_get(a, "file")), json_string_value(json_object_get(b, "file")));
    if (c)
        return c;
    json_int_t x = json_integer_value(json_object_get(a, "line")), y = json_integer_value(json_object_get(b, "line"));
    return x < y ? -1 : x > y;
}

json_t *hs_suppressions_unused(hs_suppressions *s)
{
    hs_vec found = {0};
    const char *path;
    void *v;
    for (size_t it = 0; hs_strmap_next(s->files, &it, &path, &v);) {
        file_entries *fe = v;
        if (!fe)
            continue;
        char *rel = hs_path_relative(s->root, path);
        for (size_t i = 0; i < fe->len; i++) {
            entry *e = &fe->items[i];
            const char *message = NULL;
            bool hotscan_s = !e->checks || each_check(e->checks, name_is_hotscan, NULL);
            if ((e->kind == KIND_BEGIN || e->kind == KIND_END) && !e->paired && hotscan_s)
                message = e->kind == KIND_BEGIN ? "NOLINTBEGIN without a matching NOLINTEND (it lasts to "
                                                  "the end of the file)"
                                                : "NOLINTEND without a matching NOLINTBEGIN";
            else if (e->kind != KIND_END && !e->used && e->checks && each_check(e->checks, name_is_hotscan, NULL))
                message = "suppresses no finding";
            if (!message)
                continue;
            hs_vec_push(&found, json_pack("{s:o, s:i, s:i, s:o, s:s}", "file", text_value(rel), "line",
                                          (json_int_t)e->line, "column", (json_int_t)e->column, "text",
                                          text_value(e->text), "message", message));
        }
        free(rel);
    }
    if (found.len)
        qsort(found.items, found.len, sizeof(void *), compare_unused);
    json_t *out = json_array();
    for (size_t i = 0; i < found.len; i++)
        json_array_append_new(out, found.items[i]);
    hs_vec_free(&found);
    return out;
}
