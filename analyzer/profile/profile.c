/*
 * profile.c - reads a CPU profile in one streamed pass: `perf script` output with call chains
 * (optionally with source lines and inlined frames) or folded stacks ("a;b;c 123"). The
 * format is detected from the first lines; a file that is neither is an error naming the
 * line. Only distinct frames and distinct stacks with their counts are kept, so a profile of
 * many gigabytes costs the memory of its distinct stacks, not of its text.
 */
#define _GNU_SOURCE
#include "hotscan/profile.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

const char *hs_profile_format_name(hs_profile_format format)
{
    return format == HS_PROFILE_FOLDED ? "folded" : "perf-script";
}

static hs_profile *profile_new(const char *name)
{
    hs_profile *prof = hs_xcalloc(1, sizeof *prof);
    prof->path = hs_xstrdup(name);
    prof->frame_index = hs_strmap_create();
    prof->stack_index = hs_strmap_create();
    return prof;
}

void hs_profile_delete(hs_profile *prof)
{
    if (!prof)
        return;
    for (size_t i = 0; i < prof->n_frames; i++) {
        free(prof->frames[i].name);
        free(prof->frames[i].file);
    }
    for (size_t i = 0; i < prof->n_stacks; i++)
        free(prof->stacks[i].frames);
    free(prof->frames);
    free(prof->stacks);
    hs_strmap_delete(prof->frame_index);
    hs_strmap_delete(prof->stack_index);
    free(prof->path);
    free(prof);
}

/* A perf frame's raw text (its line and its source line) -> frame id: most frames of a
 * profile repeat line for line, and this skips re-parsing them. Direct-mapped. */
#define LINE_CACHE 4096
typedef struct {
    unsigned long long hash;
    char *text;
    uint32_t id;
} line_entry;

/* The reader's state: the key buffer and the frames of the sample being read. */
typedef struct {
    hs_profile *prof;
    hs_buf key;
    uint32_t *ids;
    size_t n_ids, cap_ids;
    line_entry *cache;
} reader;

static uint32_t frame_id(reader *r, const char *name, size_t name_len, const char *file, size_t file_len)
{
    r->key.len = 0;
    hs_buf_append(&r->key, name, name_len);
    hs_buf_append(&r->key, "\x1f", 1);
    hs_buf_append(&r->key, file ? file : "", file ? file_len : 0);
    void *v = hs_strmap_get(r->prof->frame_index, r->key.data);
    if (v)
        return (uint32_t)((uintptr_t)v - 1);
    hs_profile *p = r->prof;
    p->frames = hs_array_append(p->frames, &p->n_frames, &p->cap_frames, sizeof *p->frames);
    hs_profile_frame *f = &p->frames[p->n_frames - 1];
    f->name = hs_xstrndup(name, name_len);
    f->file = file && file_len ? hs_xstrndup(file, file_len) : NULL;
    hs_strmap_put(p->frame_index, r->key.data, (void *)(uintptr_t)p->n_frames);
    return (uint32_t)(p->n_frames - 1);
}

static void push_id(reader *r, uint32_t id)
{
    if (r->n_ids == r->cap_ids) {
        r->cap_ids = r->cap_ids ? r->cap_ids * 2 : 64;
        r->ids = hs_xrealloc(r->ids, r->cap_ids * sizeof *r->ids);
    }
    r->ids[r->n_ids++] = id;
}

/* Ends a sample: its frames (leaf first, in r->ids) counted `count` times. */
static void add_stack(reader *r, unsigned long long count)
{
    hs_profile *p = r->prof;
    p->samples += count;
    char hex[17 * 8];
    r->key.len = 0;
    for (size_t i = 0; i < r->n_ids; i += 8) {
        unsigned long long v[8];
        size_t n = r->n_ids - i < 8 ? r->n_ids - i : 8;
        for (size_t k = 0; k < n; k++)
            v[k] = r->ids[i + k];
        hs_buf_puts(&r->key, hs_hex_key(hex, v, n));
        hs_buf_append(&r->key, ",", 1);
    }
    if (!r->key.data)
        hs_buf_append(&r->key, "", 0);
    void *v = hs_strmap_get(p->stack_index, r->key.data);
    if (v) {
        p->stacks[(uintptr_t)v - 1].samples += count;
    } else {
        p->stacks = hs_array_append(p->stacks, &p->n_stacks, &p->cap_stacks, sizeof *p->stacks);
        hs_profile_stack *s = &p->stacks[p->n_stacks - 1];
        s->n = r->n_ids;
        s->frames = hs_xmalloc((r->n_ids ? r->n_ids : 1) * sizeof *s->frames);
        memcpy(s->frames, r->ids, r->n_ids * sizeof *s->frames);
        s->samples = count;
        hs_strmap_put(p->stack_index, r->key.data, (void *)(uintptr_t)p->n_stacks);
    }
    r->n_ids = 0;
}

static const char *frame_symbol(char *line, size_t *len);
static const char *srcline_file(char *line, size_t *len);

/* The id of the frame a perf frame line (and its source line, or NULL) stand for. */
static uint32_t cached_frame(reader *r, hs_buf *frame_line, const char *src)
{
    if (src) {
        hs_buf_append(frame_line, "\n", 1);
        hs_buf_puts(frame_line, src);
    }
    unsigned long long h = XXH3_64bits(frame_line->data, frame_line->len);
    line_entry *e = &r->cache[h & (LINE_CACHE - 1)];
    if (e->text && e->hash == h && strcmp(e->text, frame_line->data) == 0)
        return e->id;
    char *text = hs_xstrdup(frame_line->data);
    char *nl = src ? strchr(frame_line->data, '\n') : NULL;
    if (nl)
        *nl = 0;
    size_t len, flen = 0;
    const char *sym = frame_symbol(frame_line->data, &len);
    const char *file = nl ? srcline_file(nl + 1, &flen) : NULL;
    uint32_t id = frame_id(r, sym, len, file, flen);
    free(e->text);
    e->hash = h;
    e->text = text;
    e->id = id;
    return id;
}

static bool is_blank(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
        s++;
    return !*s;
}

static size_t chomp(char *line, size_t n)
{
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        line[--n] = 0;
    return n;
}

/* A perf script call-chain frame: indentation, a hex address, a space, then the symbol. */
static bool is_frame_line(const char *s)
{
    if (*s != ' ' && *s != '\t')
        return false;
    while (*s == ' ' || *s == '\t')
        s++;
    const char *h = s;
    while (isxdigit((unsigned char)*s))
        s++;
    return s > h && *s == ' ';
}

/* The symbol of a frame line: "\t  4011d6 work+0x16 (/tmp/t)" -> "work" (length in *len). */
static const char *frame_symbol(char *line, size_t *len)
{
    char *s = line;
    while (*s == ' ' || *s == '\t')
        s++;
    while (isxdigit((unsigned char)*s))
        s++;
    while (*s == ' ')
        s++;
    char *end = s + strlen(s);
    while (end > s && end[-1] == ' ')
        end--;
    /* A trailing "(dso)": the parenthesis matching the last one, preceded by a space (a
     * C++ parameter list follows the name directly: "f(int)"). */
    if (end > s && end[-1] == ')') {
        int depth = 0;
        char *q = end - 1;
        for (; q >= s; q--) {
            if (*q == ')')
                depth++;
            else if (*q == '(' && --depth == 0)
                break;
        }
        if (q > s && q[-1] == ' ') {
            end = q - 1;
            while (end > s && end[-1] == ' ')
                end--;
        }
    }
    /* "+0x1f" offset. */
    for (char *q = end; q > s + 1; q--) {
        if (q[-1] == '+' && q + 1 < end && q[0] == '0' && q[1] == 'x') {
            bool hex = true;
            for (char *h = q + 2; h < end; h++)
                hex &= isxdigit((unsigned char)*h) != 0;
            if (hex && q + 2 < end)
                end = q - 1;
            break;
        }
        if (q[-1] == ' ' || q[-1] == ')')
            break;
    }
    *len = (size_t)(end - s);
    return s;
}

/* A source line under a frame ("  trx.c:12", "  t.c:3 (inlined)"): the file, or NULL for
 * "??:0" and "[kernel.kallsyms][...]". */
static const char *srcline_file(char *line, size_t *len)
{
    char *s = line;
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s == '[' || strncmp(s, "??", 2) == 0)
        return NULL;
    char *end = s + strlen(s);
    const char *inl = " (inlined)";
    size_t il = strlen(inl);
    if ((size_t)(end - s) > il && memcmp(end - il, inl, il) == 0)
        end -= il;
    char *colon = NULL;
    for (char *q = end; q > s; q--)
        if (q[-1] == ':') {
            colon = q - 1;
            break;
        }
    if (!colon || colon == s)
        return NULL;
    for (char *d = colon + 1; d < end; d++)
        if (!isdigit((unsigned char)*d))
            return NULL;
    *len = (size_t)(colon - s);
    return s;
}

/* A folded line "a;b;c 123": the stack's length and the count, or false. */
static bool split_folded(const char *line, size_t n, size_t *stack_len, unsigned long long *count)
{
    size_t sp = n;
    while (sp > 0 && line[sp - 1] != ' ')
        sp--;
    if (sp < 2 || sp == n || line[0] == ' ' || line[0] == '\t')
        return false;
    unsigned long long c = 0;
    for (size_t i = sp; i < n; i++) {
        if (!isdigit((unsigned char)line[i]))
            return false;
        if (c > (~0ULL - 9) / 10)
            return false;
        c = c * 10 + (unsigned long long)(line[i] - '0');
    }
    size_t end = sp - 1;
    while (end > 0 && line[end - 1] == ' ')
        end--;
    if (!end)
        return false;
    *stack_len = end;
    *count = c;
    return true;
}

static void folded_line(reader *r, char *line, size_t stack_len, unsigned long long count)
{
    /* Root first in the file; leaf first in the model. */
    size_t start = r->n_ids;
    size_t b = 0;
    while (b <= stack_len) {
        size_t e = b;
        while (e < stack_len && line[e] != ';')
            e++;
        size_t len = e - b;
        /* stackcollapse annotations: _[k] kernel, _[j] jit, _[i] inlined, _[w] waker. */
        if (len > 4 && line[b + len - 4] == '_' && line[b + len - 3] == '[' && line[b + len - 1] == ']')
            len -= 4;
        if (len)
            push_id(r, frame_id(r, line + b, len, NULL, 0));
        b = e + 1;
    }
    for (size_t i = start, j = r->n_ids; i < j--; i++) {
        uint32_t t = r->ids[i];
        r->ids[i] = r->ids[j];
        r->ids[j] = t;
    }
    add_stack(r, count);
}

static const char *const NEITHER =
    "not a profile hotscan reads: expected perf script output with call chains (a sample line, "
    "then its frames indented, as 'perf record -g' and 'perf script' write) or folded stacks "
    "('main;f;g 42')";

static char *quote_line(const char *line)
{
    size_t n = strlen(line);
    return n > 60 ? hs_printf("'%.60s...'", line) : hs_printf("'%s'", line);
}

hs_profile *hs_profile_read(FILE *in, const char *name, char **err)
{
    reader r = {.prof = profile_new(name), .cache = hs_xcalloc(LINE_CACHE, sizeof(line_entry))};
    hs_buf_init(&r.key);
    char *line = NULL, *first = NULL;
    size_t cap = 0;
    ssize_t got;
    unsigned long lineno = 0, first_no = 0, sample_line = 0;
    int format = -1;          /* -1 undecided, else hs_profile_format */
    bool in_sample = false;   /* perf: a header was read, frames may follow */
    bool last_was_frame = false;
    /* perf: the frame waiting for a possible source line. */
    hs_buf pending;
    hs_buf_init(&pending);
    bool have_pending = false;
    char *error = NULL;

#define FLUSH_PENDING(src_)                                                                        \
    do {                                                                                           \
        if (have_pending)                                                                          \
            push_id(&r, cached_frame(&r, &pending, (src_)));                                       \
        have_pending = false;                                                                      \
    } while (0)

    for (;;) {
        got = getline(&line, &cap, in);
        if (got < 0)
            break;
        lineno++;
        size_t n = chomp(line, (size_t)got);
        if (format < 0) {
            if (is_blank(line) || line[0] == '#')
                continue;
            if (!first) {
                first = hs_xstrdup(line);
                first_no = lineno;
                continue;
            }
            /* Decide on the first two content lines. */
            size_t sl;
            unsigned long long c;
            if (first[0] != ' ' && first[0] != '\t' && is_frame_line(line)) {
                format = HS_PROFILE_PERF_SCRIPT;
            } else if (split_folded(first, strlen(first), &sl, &c)) {
                format = HS_PROFILE_FOLDED;
                folded_line(&r, first, sl, c);
            } else {
                char *q = quote_line(first);
                error = hs_printf("%s:%lu: %s; this line is %s", name, first_no, NEITHER, q);
                free(q);
                break;
            }
            if (format == HS_PROFILE_PERF_SCRIPT) {
                in_sample = true;
                sample_line = first_no;
                /* The current line is the first frame: fall through to the perf branch. */
            }
        }
        if (format == HS_PROFILE_FOLDED) {
            if (is_blank(line) || line[0] == '#')
                continue;
            size_t sl;
            unsigned long long c;
            if (!split_folded(line, n, &sl, &c)) {
                char *q = quote_line(line);
                error = hs_printf("%s:%lu: not a folded stack line ('frame;frame;...;leaf COUNT'): %s",
                                  name, lineno, q);
                free(q);
                break;
            }
            folded_line(&r, line, sl, c);
            continue;
        }
        /* perf script. */
        if (is_blank(line)) {
            if (in_sample) {
                FLUSH_PENDING(NULL);
                if (!r.n_ids) {
                    error = hs_printf("%s:%lu: this perf sample has no call chain: record with call "
                                      "graphs (perf record -g or --call-graph dwarf; hotscan profile does)",
                                      name, sample_line);
                    break;
                }
                add_stack(&r, 1);
            }
            in_sample = false;
            last_was_frame = false;
            continue;
        }
        if (!in_sample || (line[0] != ' ' && line[0] != '\t')) {
            if (in_sample) { /* a new header without a blank line between */
                FLUSH_PENDING(NULL);
                if (!r.n_ids) {
                    error = hs_printf("%s:%lu: this perf sample has no call chain: record with call "
                                      "graphs (perf record -g or --call-graph dwarf; hotscan profile does)",
                                      name, sample_line);
                    break;
                }
                add_stack(&r, 1);
            }
            in_sample = true;
            sample_line = lineno;
            last_was_frame = false;
            continue;
        }
        if ((line[0] == '\t' && is_frame_line(line)) || (!(last_was_frame && have_pending) && is_frame_line(line))) {
            FLUSH_PENDING(NULL);
            pending.len = 0;
            hs_buf_append(&pending, line, n);
            have_pending = true;
            last_was_frame = true;
            continue;
        }
        if (last_was_frame && have_pending) { /* the frame's source line */
            FLUSH_PENDING(line);
            continue;
        }
        /* Any other indented line (a second source line, brstack text) is ignored. */
    }
    if (!error && ferror(in))
        error = hs_printf("%s: %s", name, strerror(errno));
    if (!error && format == HS_PROFILE_PERF_SCRIPT && in_sample) {
        FLUSH_PENDING(NULL);
        if (r.n_ids)
            add_stack(&r, 1);
        else
            error = hs_printf("%s:%lu: this perf sample has no call chain: record with call graphs "
                              "(perf record -g or --call-graph dwarf; hotscan profile does)",
                              name, sample_line);
    }
    if (!error && format < 0) {
        if (first) {
            size_t sl;
            unsigned long long c;
            if (split_folded(first, strlen(first), &sl, &c)) {
                format = HS_PROFILE_FOLDED;
                folded_line(&r, first, sl, c);
            } else {
                char *q = quote_line(first);
                error = hs_printf("%s:%lu: %s; this line is %s", name, first_no, NEITHER, q);
                free(q);
            }
        } else {
            error = hs_printf("%s: the profile is empty", name);
        }
    }
    if (!error && r.prof->samples == 0)
        error = hs_printf("%s: the profile has no samples", name);
#undef FLUSH_PENDING
    free(line);
    free(first);
    free(r.ids);
    for (size_t i = 0; i < LINE_CACHE; i++)
        free(r.cache[i].text);
    free(r.cache);
    hs_buf_free(&r.key);
    hs_buf_free(&pending);
    if (error) {
        *err = error;
        hs_profile_delete(r.prof);
        return NULL;
    }
    r.prof->format = (hs_profile_format)format;
    return r.prof;
}

hs_profile *hs_profile_load(const char *path, char **err)
{
    if (strcmp(path, "-") == 0)
        return hs_profile_read(stdin, "standard input", err);
    FILE *in = fopen(path, "r");
    if (!in) {
        *err = hs_printf("cannot read the profile %s: %s", path, strerror(errno));
        return NULL;
    }
    hs_profile *prof = hs_profile_read(in, path, err);
    fclose(in);
    return prof;
}

bool hs_profile_write_folded(const hs_profile *prof, FILE *out)
{
    for (size_t i = 0; i < prof->n_stacks; i++) {
        const hs_profile_stack *s = &prof->stacks[i];
        for (size_t k = s->n; k-- > 0;)
            fprintf(out, "%s%s", prof->frames[s->frames[k]].name, k ? ";" : "");
        fprintf(out, " %llu\n", s->samples);
    }
    return !ferror(out);
}

/* ---- symbol names ---- */

/* Removes every " [clone .xxx]" (demangled GCC clones). */
static void drop_clones(char *s)
{
    char *c;
    while ((c = strstr(s, " [clone ")) != NULL) {
        char *e = strchr(c, ']');
        if (!e)
            break;
        memmove(c, e + 1, strlen(e + 1) + 1);
    }
}

/* Length of an operator name starting at s (after "operator"), so its '(' or '<' is not
 * taken for a parameter list or template arguments. */
static size_t operator_len(const char *s)
{
    if (strncmp(s, "()", 2) == 0 || strncmp(s, "[]", 2) == 0)
        return 2;
    size_t n = 0;
    while (s[n] && strchr("<>=!+-*/%^&|~,", s[n]))
        n++;
    if (n == 0) { /* conversion, new, delete: up to the parameter list */
        while (s[n] && s[n] != '(')
            n++;
    }
    return n;
}

char *hs_profile_reduce_name(const char *symbol)
{
    char *s = hs_xstrdup(symbol);
    /* symbol version: clock_gettime@@GLIBC_2.17 */
    char *at = strchr(s, '@');
    if (at)
        *at = 0;
    drop_clones(s);
    /* A lambda (or block) is its enclosing function. */
    int angle = 0;
    for (char *q = s; *q; q++) {
        if (*q == '<')
            angle++;
        else if (*q == '>')
            angle--;
        else if (angle == 0 && strncmp(q, "::{lambda", 9) == 0) {
            *q = 0;
            break;
        }
    }
    /* One pass: drop <...> and (...) groups at depth 0 after the name (the parameter list and
     * anything after it), keep "(anonymous namespace)", cut a return type at a space. */
    hs_buf out;
    hs_buf_init(&out);
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        if (strncmp(s + i, "(anonymous namespace)", 21) == 0) {
            hs_buf_append(&out, s + i, 21);
            i += 21;
            continue;
        }
        if (strncmp(s + i, "operator", 8) == 0 && (i == 0 || s[i - 1] == ':' || s[i - 1] == ' ')) {
            size_t ol = operator_len(s + i + 8);
            hs_buf_append(&out, s + i, 8 + ol);
            i += 8 + ol;
            continue;
        }
        char c = s[i];
        if (c == '<') {
            int depth = 0;
            for (; i < n; i++) {
                if (s[i] == '<')
                    depth++;
                else if (s[i] == '>' && --depth == 0) {
                    i++;
                    break;
                }
            }
            continue;
        }
        if (c == '(') /* the parameter list: the rest is qualifiers */
            break;
        if (c == ' ' && s[i + 1] == '<') { /* "operator< <int>" */
            i++;
            continue;
        }
        if (c == ' ') { /* a return type before the name */
            out.len = 0;
            if (out.data)
                out.data[0] = 0;
            i++;
            continue;
        }
        hs_buf_append(&out, &c, 1);
        i++;
    }
    free(s);
    char *r = hs_buf_take(&out);
    if (!r)
        r = hs_xstrdup("");
    /* C clone suffixes: name.constprop.0, name.isra.0, name.part.1, name.cold, name.lto_priv.0. */
    char *dot = strchr(r, '.');
    if (dot && dot != r)
        *dot = 0;
    return r;
}
