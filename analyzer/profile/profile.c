/*
 * profile.c - reads a CPU profile in one streamed pass: `perf script` output with call chains
 * (optionally with source lines and inlined frames) or folded stacks ("a;b;c 123"). The
 * format is detected from the first lines; a file that is neither is an error naming the
 * line. Only distinct frames and distinct stacks with their counts are kept, so a profile of
 * many gigabytes costs the memory of its distinct stacks, not of its text; and a perf sample
 * whose call chain was read before costs little more than reading its bytes (see "reading"),
 * so parsing a large profile costs less than reading it twice (bench/profile_parse.sh).
 */
#define _GNU_SOURCE
#include "hotscan/profile.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

/* ---- reading ----
 *
 * The input is read in large blocks and lines are handed out in place (found with memchr), so
 * no line costs an allocation. A perf sample is usually read whole, without looking at its
 * lines: its call chain below the leaf frame (the bytes up to the blank line that ends the
 * sample, which repeat sample for sample because they are return addresses) is hashed and
 * looked up among the chains already read; only the leaf frame (its address and offset vary)
 * goes through the frame-line cache. A chain seen for the first time, and anything unusual,
 * is read line by line by the state machine below, which is the reference: the fast path only
 * reuses what the line-by-line reading of the same bytes produced. */

/* Read 64 KiB at a time (what is scanned is still in the cache), into a buffer that grows
 * when a sample does not fit. */
#define READ_BYTES (64u << 10)
#define BLOCK_BYTES (256u << 10)
/* A sample whose blank line is further than this is read line by line (and so is the rest of
 * a file whose samples are not separated by blank lines). */
#define SAMPLE_LIMIT (4u << 20)
/* Text kept for the chain and folded-line caches; past it, new chains are not cached. */
#define CACHE_BYTES (64u << 20)

typedef struct {
    FILE *in;
    char *buf;
    size_t cap, len, pos; /* buf[pos, len) is unread */
    bool eof;
} source;

/* Reads more input: the unread bytes move to the start of the buffer, which grows when they
 * fill half of it. False at the end of the input (ferror tells an error). */
static bool source_fill(source *s)
{
    if (s->eof)
        return false;
    if (s->pos) {
        memmove(s->buf, s->buf + s->pos, s->len - s->pos);
        s->len -= s->pos;
        s->pos = 0;
    }
    if (s->cap - s->len < s->cap / 2 + 1) {
        s->cap = s->cap ? s->cap * 2 : BLOCK_BYTES;
        s->buf = hs_xrealloc(s->buf, s->cap);
    }
    size_t want = s->cap - s->len - 1;
    size_t got = fread(s->buf + s->len, 1, want < READ_BYTES ? want : READ_BYTES, s->in);
    s->len += got;
    if (got == 0)
        s->eof = true;
    return got > 0;
}

/* The next line, in place and NUL-terminated (its newline overwritten), valid until the next
 * call; *n is its length without the newline. False at the end of the input. */
static bool source_line(source *s, char **line, size_t *n)
{
    size_t from = 0; /* from s->pos: the bytes already searched */
    for (;;) {
        size_t avail = s->len - s->pos;
        char *nl = avail > from ? memchr(s->buf + s->pos + from, '\n', avail - from) : NULL;
        if (nl) {
            *nl = 0;
            *line = s->buf + s->pos;
            *n = (size_t)(nl - *line);
            s->pos += *n + 1;
            return true;
        }
        from = avail;
        if (!source_fill(s)) {
            if (s->pos == s->len)
                return false;
            s->buf[s->len] = 0; /* source_fill leaves a byte for it */
            *line = s->buf + s->pos;
            *n = s->len - s->pos;
            s->pos = s->len;
            return true;
        }
    }
}

/* The first "\n\n" in [p, end): 32 bytes at a time with SSE2 where there is SSE2, else a word
 * at a time (newline bytes found exactly); no branch but the loop's until a pair is found. */
static const char *find_blank_line(const char *p, const char *end)
{
#if defined(__SSE2__)
    const __m128i nl = _mm_set1_epi8('\n');
    uint32_t carry = 0; /* the byte before p is a newline */
    while (end - p >= 32) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)p);
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(p + 16));
        uint32_t m = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(a, nl)) |
                     (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(b, nl)) << 16;
        uint32_t both = m & (m << 1 | carry); /* bit i: bytes i - 1 and i */
        if (both)
            return p + __builtin_ctz(both) - 1;
        carry = m >> 31;
        p += 32;
    }
    if (carry && p < end && *p == '\n')
        return p - 1;
#elif defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const uint64_t low7 = 0x7f7f7f7f7f7f7f7fULL, nl = 0x0a0a0a0a0a0a0a0aULL;
    uint64_t carry = 0;
    while (end - p >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        uint64_t x = w ^ nl;
        uint64_t z = ~(((x & low7) + low7) | x | low7); /* 0x80 in each newline byte */
        uint64_t both = z & (z << 8 | carry);        /* byte i: bytes i - 1 and i */
        if (both)
            return p + (__builtin_ctzll(both) >> 3) - 1;
        carry = z >> 56;
        p += 8;
    }
    if (carry && p < end && *p == '\n')
        return p - 1;
#endif
    for (; end - p >= 2; p++)
        if (p[0] == '\n' && p[1] == '\n')
            return p;
    return NULL;
}

/* The first newline (blank: the first "\n\n") at or after s->pos + from, reading more as
 * needed but not past `limit` unread bytes: its offset from s->pos, or -1. */
static long source_find(source *s, size_t from, bool blank, size_t limit)
{
    for (;;) {
        size_t avail = s->len - s->pos;
        size_t end = avail < limit ? avail : limit;
        if (from < end) {
            const char *b = s->buf + s->pos;
            const char *hit = blank ? find_blank_line(b + from, b + end) : memchr(b + from, '\n', end - from);
            if (hit)
                return (long)(hit - b);
        }
        if (avail >= limit || !source_fill(s))
            return -1;
        if (end > from)
            from = blank ? end - 1 : end; /* a "\n\n" may straddle the old end */
    }
}

/* Texts already read (a chain below a leaf frame, or a folded line's stack), each once. */
typedef struct {
    unsigned long long hash;
    char *text;
    size_t len;
    uint32_t value;   /* folded: the stack index */
    uint32_t *ids;    /* perf: the chain's frame ids below the leaf */
    size_t n_ids;
    unsigned long lines;
} text_entry;

typedef struct {
    text_entry *items;
    size_t n, cap;
    uint32_t *slots; /* entry index + 1, open addressing */
    size_t mask;
    size_t bytes;
} text_table;

static text_entry *text_find(const text_table *t, unsigned long long h, const char *text, size_t len)
{
    if (!t->slots)
        return NULL;
    for (size_t i = h & t->mask;; i = (i + 1) & t->mask) {
        uint32_t v = t->slots[i];
        if (!v)
            return NULL;
        text_entry *e = &t->items[v - 1];
        if (e->hash == h && e->len == len && memcmp(e->text, text, len) == 0)
            return e;
    }
}

/* A new entry for a text not in the table, or NULL when the table is full (CACHE_BYTES). */
static text_entry *text_add(text_table *t, unsigned long long h, const char *text, size_t len)
{
    if (t->bytes + len > CACHE_BYTES || t->n >= UINT32_MAX - 1)
        return NULL;
    if (2 * (t->n + 1) > t->mask) {
        size_t size = t->slots ? 2 * (t->mask + 1) : 1024;
        free(t->slots);
        t->slots = hs_xcalloc(size, sizeof *t->slots);
        t->mask = size - 1;
        for (size_t k = 0; k < t->n; k++) {
            size_t i = t->items[k].hash & t->mask;
            while (t->slots[i])
                i = (i + 1) & t->mask;
            t->slots[i] = (uint32_t)k + 1;
        }
    }
    t->items = hs_array_append(t->items, &t->n, &t->cap, sizeof *t->items);
    text_entry *e = &t->items[t->n - 1];
    memset(e, 0, sizeof *e);
    e->hash = h;
    e->text = hs_xmalloc(len ? len : 1);
    memcpy(e->text, text, len);
    e->len = len;
    t->bytes += len;
    size_t i = h & t->mask;
    while (t->slots[i])
        i = (i + 1) & t->mask;
    t->slots[i] = (uint32_t)t->n;
    return e;
}

static void text_table_free(text_table *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->items[i].text);
        free(t->items[i].ids);
    }
    free(t->items);
    free(t->slots);
}

/* (leaf frame id, chain entry) -> stack index + 1. */
typedef struct {
    uint64_t *keys;
    uint32_t *values;
    size_t n, mask;
} pair_table;

static uint32_t pair_get(const pair_table *t, uint64_t key)
{
    if (!t->values)
        return 0;
    for (size_t i = (size_t)XXH3_64bits(&key, sizeof key) & t->mask;; i = (i + 1) & t->mask) {
        if (!t->values[i])
            return 0;
        if (t->keys[i] == key)
            return t->values[i];
    }
}

static void pair_put(pair_table *t, uint64_t key, uint32_t value)
{
    if (2 * (t->n + 1) > t->mask) {
        size_t size = t->values ? 2 * (t->mask + 1) : 1024;
        uint64_t *keys = t->keys;
        uint32_t *values = t->values;
        size_t old = t->values ? t->mask + 1 : 0;
        t->keys = hs_xcalloc(size, sizeof *t->keys);
        t->values = hs_xcalloc(size, sizeof *t->values);
        t->mask = size - 1;
        t->n = 0;
        for (size_t i = 0; i < old; i++)
            if (values[i])
                pair_put(t, keys[i], values[i]);
        free(keys);
        free(values);
    }
    size_t i = (size_t)XXH3_64bits(&key, sizeof key) & t->mask;
    while (t->values[i] && t->keys[i] != key)
        i = (i + 1) & t->mask;
    if (!t->values[i])
        t->n++;
    t->keys[i] = key;
    t->values[i] = value;
}

/* A perf frame's raw text (its line and its source line) -> frame id: most frames of a
 * profile repeat line for line, and this skips re-parsing them. Direct-mapped; an entry's
 * buffer is reused. */
#define LINE_CACHE 4096
typedef struct {
    unsigned long long hash;
    char *text;
    size_t len, cap;
    uint32_t id;
} line_entry;

/* The chains (entry index + 1) last seen after a chain's first line, most recent first. */
#define GUESS_WAYS 4
typedef struct {
    unsigned long long hash;
    uint32_t ids[GUESS_WAYS];
} guess_entry;

static void guess_use(guess_entry *g, uint32_t id)
{
    int k = 0;
    while (k < GUESS_WAYS - 1 && g->ids[k] && g->ids[k] != id)
        k++;
    for (; k > 0; k--)
        g->ids[k] = g->ids[k - 1];
    g->ids[0] = id;
}

/* The reader's state: the line-by-line state machine, the frames of the sample being read,
 * and the caches. */
typedef struct {
    hs_profile *prof;
    const char *name;
    bool whole_samples;       /* the fast path may be used */
    hs_buf key;
    uint32_t *ids;
    size_t n_ids, cap_ids;
    uint32_t last_stack;      /* the stack add_stack counted last */
    line_entry *cache;
    guess_entry *guesses;     /* a chain's first line (hash) -> the chains last seen after it */
    text_table chains, folded;
    pair_table pairs;
    char *first;              /* the first content line, until the format is decided */
    unsigned long lineno, first_no, sample_line;
    int format;               /* -1 undecided, else hs_profile_format */
    bool in_sample;           /* perf: a header was read, frames may follow */
    bool last_was_frame;
    hs_buf pending;           /* perf: the frame waiting for a possible source line */
    bool have_pending;
    char *error;
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
        r->last_stack = (uint32_t)((uintptr_t)v - 1);
        p->stacks[r->last_stack].samples += count;
    } else {
        p->stacks = hs_array_append(p->stacks, &p->n_stacks, &p->cap_stacks, sizeof *p->stacks);
        hs_profile_stack *s = &p->stacks[p->n_stacks - 1];
        s->n = r->n_ids;
        s->frames = hs_xmalloc((r->n_ids ? r->n_ids : 1) * sizeof *s->frames);
        memcpy(s->frames, r->ids, r->n_ids * sizeof *s->frames);
        s->samples = count;
        hs_strmap_put(p->stack_index, r->key.data, (void *)(uintptr_t)p->n_stacks);
        r->last_stack = (uint32_t)(p->n_stacks - 1);
    }
    r->n_ids = 0;
}

static const char *frame_symbol(char *line, size_t *len);
static const char *srcline_file(char *line, size_t *len);

/* The id of the frame a perf frame line stands for; frame_line holds the line, then, when
 * has_src, a newline and its source line. */
static uint32_t cached_frame(reader *r, hs_buf *frame_line, bool has_src)
{
    unsigned long long h = XXH3_64bits(frame_line->data, frame_line->len);
    line_entry *e = &r->cache[h & (LINE_CACHE - 1)];
    if (e->text && e->hash == h && e->len == frame_line->len && memcmp(e->text, frame_line->data, e->len) == 0)
        return e->id;
    if (e->cap < frame_line->len + 1) {
        e->cap = frame_line->len + 1;
        e->text = hs_xrealloc(e->text, e->cap);
    }
    memcpy(e->text, frame_line->data, frame_line->len + 1);
    e->len = frame_line->len;
    e->hash = h;
    char *nl = has_src ? strchr(frame_line->data, '\n') : NULL;
    if (nl)
        *nl = 0;
    size_t len, flen = 0;
    const char *sym = frame_symbol(frame_line->data, &len);
    const char *file = nl ? srcline_file(nl + 1, &flen) : NULL;
    e->id = frame_id(r, sym, len, file, flen);
    return e->id;
}

static bool is_blank_n(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n')
            return false;
    return true;
}

static bool is_blank(const char *s)
{
    return is_blank_n(s, strlen(s));
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

static void folded_line(reader *r, const char *line, size_t stack_len, unsigned long long count)
{
    /* A stack already read: its count only. */
    unsigned long long h = 0;
    if (r->whole_samples) {
        h = XXH3_64bits(line, stack_len);
        text_entry *e = text_find(&r->folded, h, line, stack_len);
        if (e) {
            r->prof->samples += count;
            r->prof->stacks[e->value].samples += count;
            return;
        }
    }
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
    if (r->whole_samples) {
        text_entry *e = text_add(&r->folded, h, line, stack_len);
        if (e)
            e->value = r->last_stack;
    }
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

static void flush_pending(reader *r, const char *src)
{
    if (r->have_pending) {
        if (src) {
            hs_buf_append(&r->pending, "\n", 1);
            hs_buf_puts(&r->pending, src);
        }
        push_id(r, cached_frame(r, &r->pending, src != NULL));
    }
    r->have_pending = false;
}

/* perf: the sample being read ends; false (and the error) when it had no call chain. */
static bool end_sample(reader *r)
{
    flush_pending(r, NULL);
    if (!r->n_ids) {
        r->error = hs_printf("%s:%lu: this perf sample has no call chain: record with call graphs (perf record "
                             "-g or --call-graph dwarf; hotscan profile does)",
                             r->name, r->sample_line);
        return false;
    }
    add_stack(r, 1);
    return true;
}

/* Decides the format from the first content line and `line`, the second; false (and the
 * error) when it is neither. */
static bool decide_format(reader *r, const char *line)
{
    size_t sl;
    unsigned long long c;
    if (r->first[0] != ' ' && r->first[0] != '\t' && line && is_frame_line(line)) {
        r->format = HS_PROFILE_PERF_SCRIPT;
        r->in_sample = true;
        r->sample_line = r->first_no;
    } else if (split_folded(r->first, strlen(r->first), &sl, &c)) {
        r->format = HS_PROFILE_FOLDED;
        folded_line(r, r->first, sl, c);
    } else {
        char *q = quote_line(r->first);
        r->error = hs_printf("%s:%lu: %s; this line is %s", r->name, r->first_no, NEITHER, q);
        free(q);
        return false;
    }
    return true;
}

/* One line (without its newline) through the state machine; false (r->error) to stop. */
static bool feed_line(reader *r, char *line, size_t n)
{
    r->lineno++;
    n = chomp(line, n);
    if (memchr(line, 0, n)) {
        /* Text output has none; the line's own functions would stop reading at it. */
        r->error = hs_printf("%s:%lu: a NUL byte in the line: not perf script or folded text", r->name, r->lineno);
        return false;
    }
    if (r->format < 0) {
        if (is_blank(line) || line[0] == '#')
            return true;
        if (!r->first) {
            r->first = hs_xstrdup(line);
            r->first_no = r->lineno;
            return true;
        }
        if (!decide_format(r, line))
            return false;
        /* perf: the current line is the first frame, read below. */
    }
    if (r->format == HS_PROFILE_FOLDED) {
        if (is_blank(line) || line[0] == '#')
            return true;
        size_t sl;
        unsigned long long c;
        if (!split_folded(line, n, &sl, &c)) {
            char *q = quote_line(line);
            r->error = hs_printf("%s:%lu: not a folded stack line ('frame;frame;...;leaf COUNT'): %s", r->name,
                                 r->lineno, q);
            free(q);
            return false;
        }
        folded_line(r, line, sl, c);
        return true;
    }
    /* perf script. */
    if (is_blank(line)) {
        if (r->in_sample && !end_sample(r))
            return false;
        r->in_sample = false;
        r->last_was_frame = false;
        return true;
    }
    if (!r->in_sample || (line[0] != ' ' && line[0] != '\t')) {
        if (r->in_sample && !end_sample(r)) /* a new header without a blank line between */
            return false;
        r->in_sample = true;
        r->sample_line = r->lineno;
        r->last_was_frame = false;
        return true;
    }
    bool after_frame = r->last_was_frame && r->have_pending;
    if ((line[0] == '\t' && is_frame_line(line)) || (!after_frame && is_frame_line(line))) {
        flush_pending(r, NULL);
        r->pending.len = 0;
        hs_buf_append(&r->pending, line, n);
        r->have_pending = true;
        r->last_was_frame = true;
        return true;
    }
    if (after_frame) { /* the frame's source line */
        flush_pending(r, line);
        return true;
    }
    /* Any other indented line (a second source line, brstack text) is ignored. */
    return true;
}

static size_t chomped_len(const char *s, size_t n)
{
    while (n && s[n - 1] == '\r')
        n--;
    return n;
}

/* An indented, non-blank line (one the state machine reads as part of a call chain). */
static bool is_chain_line(const char *s, size_t n)
{
    return n && (s[0] == ' ' || s[0] == '\t') && !is_blank_n(s, n);
}

/* The first newline at or after s->pos + from (offset from s->pos), or -1. */
static long next_newline(source *s, size_t from)
{
    return source_find(s, from, false, SAMPLE_LIMIT);
}

/* Reads until `n` unread bytes are in the buffer (or the input ends). */
static bool source_has(source *s, size_t n)
{
    while (s->len - s->pos < n)
        if (!source_fill(s))
            return false;
    return true;
}

/*
 * perf: the sample at the current position read whole (see "reading" above). 1: read; 0: not
 * one the fast path takes (read it line by line); -1: an error (r->error).
 *
 * The chain is first guessed: the chain last seen after the same first chain line (the leaf's
 * caller), compared byte for byte and followed by the blank line, so a sample that repeats a
 * recent call path costs one comparison of its bytes. Otherwise the blank line is searched
 * for, and the chain hashed and looked up.
 */
static int perf_sample(reader *r, source *s)
{
    long h = next_newline(s, 0); /* the header's newline */
    if (h < 0 || is_blank_n(s->buf + s->pos, (size_t)h))
        return 0;
    long l1e = next_newline(s, (size_t)h + 1); /* the leaf frame line's */
    if (l1e < 0 || !is_frame_line(s->buf + s->pos + h + 1))
        return 0;
    long l2e = next_newline(s, (size_t)l1e + 1); /* the next line's */
    if (l2e < 0)
        return 0;
    char *b = s->buf + s->pos;
    char *l1 = b + h + 1, *l2 = NULL;
    long chain = l1e + 1; /* the offset of the chain below the leaf */
    if (l2e > l1e + 1 && !(b[l1e + 1] == '\t' && is_frame_line(b + l1e + 1))) {
        /* Not a frame: the leaf's source line. */
        if (!is_chain_line(b + l1e + 1, (size_t)(l2e - l1e - 1)))
            return 0;
        l2 = b + l1e + 1;
        chain = l2e + 1;
    }
    long f1 = chain == l1e + 1 ? l2e : next_newline(s, (size_t)chain); /* the chain's first line's */
    if (f1 < 0)
        return 0;
    b = s->buf + s->pos;
    l1 = b + h + 1;
    l2 = l2 ? b + l1e + 1 : NULL;
    text_entry *known = NULL;
    long e; /* the chain's last newline: a blank line follows it */
    unsigned long long hash = 0;
    guess_entry *guess = NULL;
    if (f1 == chain) { /* no chain: the leaf is the whole stack */
        e = chain - 1;
        hash = XXH3_64bits("", 0);
        known = text_find(&r->chains, hash, "", 0);
    } else {
        unsigned long long fh = XXH3_64bits(b + chain, (size_t)(f1 - chain));
        guess = &r->guesses[fh & (LINE_CACHE - 1)];
        if (guess->hash != fh)
            memset(guess, 0, sizeof *guess);
        guess->hash = fh;
        for (int k = 0; k < GUESS_WAYS && guess->ids[k] && !known; k++) {
            text_entry *g = &r->chains.items[guess->ids[k] - 1];
            if (!source_has(s, (size_t)chain + g->len + 2))
                continue;
            b = s->buf + s->pos;
            /* The cheap tests first: the blank line after it, its last bytes. */
            const char *t = b + chain;
            size_t tail = g->len < 16 ? g->len : 16;
            if (t[g->len] == '\n' && t[g->len + 1] == '\n' &&
                memcmp(t + g->len - tail, g->text + g->len - tail, tail) == 0 && memcmp(t, g->text, g->len) == 0)
                known = g;
        }
        if (known) {
            e = chain + (long)known->len;
        } else {
            e = source_find(s, (size_t)f1, true, SAMPLE_LIMIT);
            if (e < 0) {
                r->whole_samples = false; /* no blank lines between samples (or the last one) */
                return 0;
            }
            b = s->buf + s->pos;
            hash = XXH3_64bits(b + chain, (size_t)(e - chain));
            known = text_find(&r->chains, hash, b + chain, (size_t)(e - chain));
        }
        l1 = b + h + 1;
        l2 = l2 ? b + l1e + 1 : NULL;
    }
    /* A known chain holds no NUL byte (feed_line rejects one, and a read with an error ends);
     * the header and leaf lines may: line by line, so the error names the line. */
    if (known && memchr(b, 0, (size_t)chain))
        return 0;
    if (known) {
        if (guess)
            guess_use(guess, (uint32_t)(known - r->chains.items) + 1);
        /* Only the leaf is read; the rest is the chain's. */
        r->pending.len = 0;
        hs_buf_append(&r->pending, l1, chomped_len(l1, (size_t)(l1e - h - 1)));
        if (l2) {
            hs_buf_append(&r->pending, "\n", 1);
            hs_buf_append(&r->pending, l2, chomped_len(l2, (size_t)(l2e - l1e - 1)));
        }
        uint32_t leaf = cached_frame(r, &r->pending, l2 != NULL);
        uint64_t key = (uint64_t)leaf << 32 | (uint64_t)(known - r->chains.items);
        uint32_t v = pair_get(&r->pairs, key);
        if (v) {
            r->prof->samples++;
            r->prof->stacks[v - 1].samples++;
        } else {
            r->n_ids = 0;
            push_id(r, leaf);
            for (size_t i = 0; i < known->n_ids; i++)
                push_id(r, known->ids[i]);
            add_stack(r, 1);
            pair_put(&r->pairs, key, r->last_stack + 1);
        }
        r->lineno += 1 + 1 + (l2 ? 1 : 0) + known->lines + 1;
        s->pos += (size_t)e + 2;
        return 1;
    }
    /* A chain not seen yet: the sample line by line, then the chain is remembered (when all
     * its lines are chain lines, so the state machine read it as one sample). */
    size_t chain_len = e > chain ? (size_t)(e - chain) : 0;
    text_entry *add = text_add(&r->chains, hash, b + chain, chain_len);
    size_t chain_from = (size_t)chain, end = (size_t)e + 1, base = s->pos;
    bool clean = true;
    unsigned long chain_lines = 0;
    char *line;
    size_t n;
    source_line(s, &line, &n); /* the header; no refill happens inside what was found */
    if (!feed_line(r, line, n))
        return -1;
    while (s->pos < base + end) {
        bool in_chain = s->pos >= base + chain_from;
        source_line(s, &line, &n);
        clean &= is_chain_line(line, n);
        chain_lines += in_chain;
        if (!feed_line(r, line, n))
            return -1;
    }
    uint32_t *ids = NULL;
    size_t n_ids = 0;
    if (r->in_sample) {
        flush_pending(r, NULL);
        n_ids = r->n_ids;
        if (clean && n_ids) {
            ids = hs_xmalloc(n_ids * sizeof *ids);
            memcpy(ids, r->ids, n_ids * sizeof *ids);
        }
    }
    source_line(s, &line, &n); /* the blank line */
    if (!feed_line(r, line, n)) {
        free(ids);
        return -1;
    }
    if (add && ids) {
        add->ids = hs_xmalloc((n_ids - 1 ? n_ids - 1 : 1) * sizeof *add->ids);
        memcpy(add->ids, ids + 1, (n_ids - 1) * sizeof *ids);
        add->n_ids = n_ids - 1;
        add->lines = chain_lines;
        pair_put(&r->pairs, (uint64_t)ids[0] << 32 | (uint64_t)(add - r->chains.items), r->last_stack + 1);
        if (guess)
            guess_use(guess, (uint32_t)(add - r->chains.items) + 1);
    } else if (add) {
        /* Not a clean sample: never match it (the table keeps the entry, unreachable). */
        add->hash = ~add->hash;
        add->len = (size_t)-1;
    }
    free(ids);
    return 1;
}

static hs_profile *profile_read(FILE *in, const char *name, bool whole_samples, char **err)
{
    reader r = {.prof = profile_new(name),
                .name = name,
                .whole_samples = whole_samples,
                .cache = hs_xcalloc(LINE_CACHE, sizeof(line_entry)),
                .guesses = hs_xcalloc(LINE_CACHE, sizeof(guess_entry)),
                .format = -1};
    hs_buf_init(&r.key);
    hs_buf_init(&r.pending);
    source s = {.in = in};
    for (;;) {
        if (r.whole_samples && r.format == HS_PROFILE_PERF_SCRIPT && !r.in_sample) {
            int got = perf_sample(&r, &s);
            if (got < 0)
                break;
            if (got > 0)
                continue;
        }
        char *line;
        size_t n;
        if (!source_line(&s, &line, &n) || !feed_line(&r, line, n))
            break;
    }
    if (!r.error && ferror(in))
        r.error = hs_printf("%s: %s", name, strerror(errno));
    if (!r.error && r.format == HS_PROFILE_PERF_SCRIPT && r.in_sample)
        end_sample(&r);
    if (!r.error && r.format < 0) {
        if (r.first)
            decide_format(&r, NULL);
        else
            r.error = hs_printf("%s: the profile is empty", name);
    }
    if (!r.error && r.prof->samples == 0)
        r.error = hs_printf("%s: the profile has no samples", name);
    free(s.buf);
    free(r.first);
    free(r.ids);
    for (size_t i = 0; i < LINE_CACHE; i++)
        free(r.cache[i].text);
    free(r.cache);
    free(r.guesses);
    text_table_free(&r.chains);
    text_table_free(&r.folded);
    free(r.pairs.keys);
    free(r.pairs.values);
    hs_buf_free(&r.key);
    hs_buf_free(&r.pending);
    if (r.error) {
        *err = r.error;
        hs_profile_delete(r.prof);
        return NULL;
    }
    r.prof->format = (hs_profile_format)r.format;
    return r.prof;
}

hs_profile *hs_profile_read(FILE *in, const char *name, char **err)
{
    return profile_read(in, name, true, err);
}

hs_profile *hs_profile_read_by_lines(FILE *in, const char *name, char **err)
{
    return profile_read(in, name, false, err);
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
