/*
 * facts_json.c - a faster reader for facts documents (issue 15): the same jansson values
 * json_loadb makes, built without its lexer.
 *
 * Every scan reads each TU's facts document back from a file (a worker's result, a facts
 * cache entry, a shard's --facts-out file for `hotscan judge`), and jansson's reader spends
 * most of its time in a lexer that takes one byte at a time through a callback: on an
 * unchanged redis rerun, json_loadb was three quarters of the supervisor's instructions.
 * This reader walks the bytes directly and makes the values with jansson's own
 * constructors (json_object_setn_new_nocheck, json_stringn_nocheck, as jansson's parser does
 * after its checks), so what the merge gets is the same tree.
 *
 * It accepts only what it can prove jansson would read to the same value: objects and
 * arrays at the top, strings of valid UTF-8 with no NUL (an escaped \u0000 included) and no
 * raw control character, integers in range, true, false and null, nesting under 1024 levels.
 * Anything else (a real number, a bad byte, a syntax error, trailing bytes) is handed to
 * json_loadb, which reads it or gives its usual error: the answer is always jansson's.
 */
#include "hotscan/facts.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hotscan/common.h"

#define MAX_DEPTH 1024

typedef struct {
    const unsigned char *p, *end;
    char *scratch; /* decoded strings with escapes */
    size_t cap;
} reader;

static void skip_ws(reader *r)
{
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\t' || *r->p == '\r'))
        r->p++;
}

/* Length of the valid UTF-8 sequence at s (non-ASCII lead byte), 0 when invalid; as
 * jansson's utf8_check_full: no overlong forms, no surrogates, nothing above U+10FFFF. */
static size_t utf8_len(const unsigned char *s, const unsigned char *end)
{
    unsigned char c = s[0];
    size_t n;
    uint32_t v;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
        v = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        v = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        v = c & 0x07;
    } else {
        return 0;
    }
    if ((size_t)(end - s) < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3F);
    }
    if ((n == 3 && v < 0x800) || (n == 4 && v < 0x10000) || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    return n;
}

static int hex4(const unsigned char *s, uint32_t *out)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned char c = s[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (uint32_t)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (uint32_t)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (uint32_t)(c - 'A' + 10);
        else
            return 0;
    }
    *out = v;
    return 1;
}

static void put(reader *r, size_t *len, const void *bytes, size_t n)
{
    if (n == 0)
        return; /* nothing to copy (and the buffer may not exist yet) */
    if (*len + n > r->cap) {
        size_t cap = r->cap ? r->cap : 256;
        while (cap < *len + n)
            cap *= 2;
        r->scratch = hs_xrealloc(r->scratch, cap);
        r->cap = cap;
    }
    memcpy(r->scratch + *len, bytes, n);
    *len += n;
}

/* A string at r->p (past its opening quote): *s and *n name its bytes (in the input when it
 * has no escape, else in r->scratch). 0 when jansson would not read it the same way. */
static int read_string(reader *r, const char **s, size_t *n)
{
    const unsigned char *start = r->p, *q = r->p;
    while (q < r->end && *q != '"' && *q != '\\' && *q >= 0x20 && *q < 0x80)
        q++;
    if (q < r->end && *q == '"') {
        *s = (const char *)start;
        *n = (size_t)(q - start);
        r->p = q + 1;
        return 1;
    }
    size_t len = 0;
    put(r, &len, start, (size_t)(q - start));
    while (q < r->end) {
        unsigned char c = *q;
        if (c == '"') {
            *s = r->scratch;
            *n = len;
            r->p = q + 1;
            return 1;
        }
        if (c < 0x20)
            return 0;
        if (c >= 0x80) {
            size_t k = utf8_len(q, r->end);
            if (!k)
                return 0;
            put(r, &len, q, k);
            q += k;
            continue;
        }
        if (c != '\\') {
            put(r, &len, q, 1);
            q++;
            continue;
        }
        if (q + 1 >= r->end)
            return 0;
        char e = (char)q[1];
        const char *simple = strchr("\"\\/bfnrt", e);
        if (e && simple) {
            static const char decoded[] = "\"\\/\b\f\n\r\t";
            put(r, &len, &decoded[simple - "\"\\/bfnrt"], 1);
            q += 2;
            continue;
        }
        if (e != 'u' || r->end - q < 6)
            return 0;
        uint32_t v;
        if (!hex4(q + 2, &v))
            return 0;
        q += 6;
        if (v >= 0xD800 && v <= 0xDBFF) {
            uint32_t lo;
            if (r->end - q < 6 || q[0] != '\\' || q[1] != 'u' || !hex4(q + 2, &lo) || lo < 0xDC00 || lo > 0xDFFF)
                return 0;
            v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00);
            q += 6;
        } else if ((v >= 0xDC00 && v <= 0xDFFF) || v == 0) {
            return 0; /* a lone low surrogate, or NUL (jansson refuses it without JSON_ALLOW_NUL) */
        }
        unsigned char b[4];
        size_t k;
        if (v < 0x80) {
            b[0] = (unsigned char)v;
            k = 1;
        } else if (v < 0x800) {
            b[0] = (unsigned char)(0xC0 | (v >> 6));
            b[1] = (unsigned char)(0x80 | (v & 0x3F));
            k = 2;
        } else if (v < 0x10000) {
            b[0] = (unsigned char)(0xE0 | (v >> 12));
            b[1] = (unsigned char)(0x80 | ((v >> 6) & 0x3F));
            b[2] = (unsigned char)(0x80 | (v & 0x3F));
            k = 3;
        } else {
            b[0] = (unsigned char)(0xF0 | (v >> 18));
            b[1] = (unsigned char)(0x80 | ((v >> 12) & 0x3F));
            b[2] = (unsigned char)(0x80 | ((v >> 6) & 0x3F));
            b[3] = (unsigned char)(0x80 | (v & 0x3F));
            k = 4;
        }
        put(r, &len, b, k);
    }
    return 0;
}

static json_t *read_value(reader *r, int depth);

/* An integer as jansson's lexer reads one: -?(0|[1-9][0-9]*), in range; a fraction or an
 * exponent (a real) is left to jansson. */
static json_t *read_number(reader *r)
{
    const unsigned char *q = r->p;
    if (q < r->end && *q == '-')
        q++;
    if (q >= r->end || *q < '0' || *q > '9')
        return NULL;
    const unsigned char *digits = q;
    if (*q == '0')
        q++;
    else
        while (q < r->end && *q >= '0' && *q <= '9')
            q++;
    if (q < r->end && ((*q >= '0' && *q <= '9') || *q == '.' || *q == 'e' || *q == 'E'))
        return NULL;
    size_t n = (size_t)(q - r->p);
    if (n > 20 || q - digits > 19)
        return NULL;
    char buf[24];
    memcpy(buf, r->p, n);
    buf[n] = '\0';
    errno = 0;
    long long v = strtoll(buf, NULL, 10);
    if (errno == ERANGE)
        return NULL;
    r->p = q;
    return json_integer((json_int_t)v);
}

static int literal(reader *r, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n) != 0)
        return 0;
    r->p += n;
    return 1;
}

static json_t *read_object(reader *r, int depth)
{
    json_t *obj = json_object();
    skip_ws(r);
    if (r->p < r->end && *r->p == '}') {
        r->p++;
        return obj;
    }
    for (;;) {
        skip_ws(r);
        if (r->p >= r->end || *r->p != '"')
            break;
        r->p++;
        const char *key;
        size_t klen;
        if (!read_string(r, &key, &klen))
            break;
        /* The key may sit in the scratch buffer, which the value's strings reuse. */
        char small[128];
        char *kcopy = klen < sizeof small ? small : hs_xstrndup(key, klen);
        memcpy(kcopy, key, klen);
        kcopy[klen] = '\0';
        skip_ws(r);
        json_t *value = NULL;
        if (r->p < r->end && *r->p == ':') {
            r->p++;
            value = read_value(r, depth + 1);
        }
        bool ok = value && json_object_setn_new_nocheck(obj, kcopy, klen, value) == 0;
        if (kcopy != small)
            free(kcopy);
        if (!ok)
            break;
        skip_ws(r);
        if (r->p < r->end && *r->p == ',') {
            r->p++;
            continue;
        }
        if (r->p < r->end && *r->p == '}') {
            r->p++;
            return obj;
        }
        break;
    }
    json_decref(obj);
    return NULL;
}

static json_t *read_array(reader *r, int depth)
{
    json_t *arr = json_array();
    skip_ws(r);
    if (r->p < r->end && *r->p == ']') {
        r->p++;
        return arr;
    }
    for (;;) {
        json_t *value = read_value(r, depth + 1);
        if (!value || json_array_append_new(arr, value) != 0)
            break;
        skip_ws(r);
        if (r->p < r->end && *r->p == ',') {
            r->p++;
            continue;
        }
        if (r->p < r->end && *r->p == ']') {
            r->p++;
            return arr;
        }
        break;
    }
    json_decref(arr);
    return NULL;
}

static json_t *read_value(reader *r, int depth)
{
    if (depth > MAX_DEPTH)
        return NULL;
    skip_ws(r);
    if (r->p >= r->end)
        return NULL;
    switch (*r->p) {
    case '{':
        r->p++;
        return read_object(r, depth);
    case '[':
        r->p++;
        return read_array(r, depth);
    case '"': {
        r->p++;
        const char *s;
        size_t n;
        return read_string(r, &s, &n) ? json_stringn_nocheck(s, n) : NULL;
    }
    case 't':
        return literal(r, "true") ? json_true() : NULL;
    case 'f':
        return literal(r, "false") ? json_false() : NULL;
    case 'n':
        return literal(r, "null") ? json_null() : NULL;
    default:
        return read_number(r);
    }
}

json_t *hs_facts_loadb_fast(const char *buf, size_t n)
{
    reader r = {(const unsigned char *)buf, (const unsigned char *)buf + n, NULL, 0};
    skip_ws(&r);
    json_t *v = NULL;
    if (r.p < r.end && (*r.p == '{' || *r.p == '['))
        v = read_value(&r, 0);
    free(r.scratch);
    skip_ws(&r);
    if (v && r.p != r.end) {
        json_decref(v);
        v = NULL;
    }
    return v;
}

json_t *hs_facts_loadb(const char *buf, size_t n, json_error_t *err)
{
    json_t *v = hs_facts_loadb_fast(buf, n);
    /* Not provably what jansson reads: jansson decides, and words the error. */
    return v ? v : json_loadb(buf, n, 0, err);
}

/* Steps over one value without building it: strings to their closing quote, containers to
 * their matching end. 0 at anything malformed (the caller then lets jansson read it all). */
static int skip_value(reader *r)
{
    int depth = 0;
    do {
        skip_ws(r);
        if (r->p >= r->end)
            return 0;
        unsigned char c = *r->p;
        if (c == '"') {
            const unsigned char *q = r->p + 1;
            while (q < r->end && *q != '"')
                q += *q == '\\' ? 2 : 1;
            if (q >= r->end)
                return 0;
            r->p = q + 1;
        } else if (c == '{' || c == '[') {
            depth++;
            r->p++;
            continue;
        } else if (c == '}' || c == ']') {
            if (depth == 0)
                return 0;
            depth--;
            r->p++;
        } else if (c == ',' || c == ':') {
            if (depth == 0)
                return 0;
            r->p++;
            continue;
        } else {
            const unsigned char *q = r->p;
            while (q < r->end && strchr(",:]} \n\t\r", *q) == NULL)
                q++;
            if (q == r->p)
                return 0;
            r->p = q;
        }
    } while (depth > 0);
    return 1;
}

/* The top-level members `names` of the object in buf, or NULL when it is not one it can
 * step through (then the caller reads the whole document). */
static json_t *members_fast(const char *buf, size_t n, const char *const *names)
{
    reader r = {(const unsigned char *)buf, (const unsigned char *)buf + n, NULL, 0};
    json_t *out = json_object();
    skip_ws(&r);
    bool ok = r.p < r.end && *r.p == '{';
    r.p++;
    skip_ws(&r);
    if (ok && r.p < r.end && *r.p == '}')
        r.p++;
    else
        while (ok) {
            skip_ws(&r);
            const char *key;
            size_t klen;
            ok = r.p < r.end && *r.p == '"';
            r.p++;
            ok = ok && read_string(&r, &key, &klen);
            if (!ok)
                break;
            bool wanted = false;
            for (size_t i = 0; names[i] && !wanted; i++)
                wanted = strlen(names[i]) == klen && memcmp(names[i], key, klen) == 0;
            char *k = wanted ? hs_xstrndup(key, klen) : NULL;
            skip_ws(&r);
            ok = r.p < r.end && *r.p == ':';
            r.p++;
            if (ok && wanted) {
                json_t *v = read_value(&r, 1);
                ok = v && json_object_set_new_nocheck(out, k, v) == 0;
            } else if (ok) {
                ok = skip_value(&r);
            }
            free(k);
            skip_ws(&r);
            if (ok && r.p < r.end && *r.p == ',') {
                r.p++;
                continue;
            }
            ok = ok && r.p < r.end && *r.p == '}';
            r.p++;
            break;
        }
    free(r.scratch);
    if (ok) {
        skip_ws(&r);
        ok = r.p == r.end;
    }
    if (!ok) {
        json_decref(out);
        out = NULL;
    }
    return out;
}

json_t *hs_facts_load_members(const char *path, const char *const *names, json_error_t *err)
{
    size_t n = 0;
    char *text = hs_read_file(path, &n);
    if (!text)
        return json_load_file(path, 0, err);
    json_t *out = members_fast(text, n, names);
    if (!out) {
        json_t *all = hs_facts_loadb(text, n, err);
        if (json_is_object(all)) {
            out = json_object();
            for (size_t i = 0; names[i]; i++)
                if (json_object_get(all, names[i]))
                    json_object_set(out, names[i], json_object_get(all, names[i]));
        } else if (all) {
            out = json_incref(all); /* not an object: the caller says what it lacks */
        }
        json_decref(all);
    }
    free(text);
    return out;
}

json_t *hs_facts_load_file(const char *path, json_error_t *err)
{
    size_t n = 0;
    char *text = hs_read_file(path, &n);
    if (!text)
        return json_load_file(path, 0, err); /* its error names the file and the reason */
    json_t *v = hs_facts_loadb(text, n, err);
    free(text);
    return v;
}

/*
 * ---- Writing: json_dumps(doc, JSON_COMPACT), byte for byte ------------------------------
 *
 * Each worker writes its TU's facts as compact JSON, and jansson's writer spends most of its
 * time on bookkeeping a facts document does not need: every object and array is formatted
 * as "%p" and entered in a hash table to detect cycles, every integer goes through
 * snprintf and every string through a UTF-8 iterator, one callback per piece (haproxy: 725
 * million instructions for five TUs' documents). This writer makes the same bytes: members
 * in insertion order (what json_dumps does without JSON_SORT_KEYS), "," and ":" with no
 * space, integers as "%lld", and strings with `"`, `\` and the control characters escaped
 * as jansson escapes them (\b \f \n \r \t, else \u00XX in upper case; '/' and non-ASCII
 * left as they are). A document it cannot prove the same for (a real number, a string that
 * is not valid UTF-8, which json_dumps refuses, nesting deeper than MAX_DEPTH, a top level
 * that is not an object or array) is handed to json_dumps.
 */
typedef struct {
    char *buf;
    size_t len, cap;
} writer;

static void w_reserve(writer *w, size_t n)
{
    if (w->len + n <= w->cap)
        return;
    size_t cap = w->cap ? w->cap : 4096;
    while (cap < w->len + n)
        cap *= 2;
    w->buf = hs_xrealloc(w->buf, cap);
    w->cap = cap;
}

static void w_put(writer *w, const char *s, size_t n)
{
    w_reserve(w, n);
    memcpy(w->buf + w->len, s, n);
    w->len += n;
}

/* A string, quoted and escaped; 0 when it is not valid UTF-8. */
static int w_string(writer *w, const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str, *end = s + n;
    w_put(w, "\"", 1);
    while (s < end) {
        const unsigned char *run = s;
        while (s < end && *s >= 0x20 && *s < 0x80 && *s != '"' && *s != '\\')
            s++;
        w_put(w, (const char *)run, (size_t)(s - run));
        if (s == end)
            break;
        unsigned char c = *s;
        if (c >= 0x80) {
            size_t k = utf8_len(s, end);
            if (!k)
                return 0;
            w_put(w, (const char *)s, k);
            s += k;
            continue;
        }
        char esc[8];
        const char *text = esc;
        size_t len = 2;
        switch (c) {
        case '"': text = "\\\""; break;
        case '\\': text = "\\\\"; break;
        case '\b': text = "\\b"; break;
        case '\f': text = "\\f"; break;
        case '\n': text = "\\n"; break;
        case '\r': text = "\\r"; break;
        case '\t': text = "\\t"; break;
        default:
            memcpy(esc, "\\u00", 4);
            esc[4] = "0123456789ABCDEF"[c >> 4];
            esc[5] = "0123456789ABCDEF"[c & 15];
            len = 6;
            break;
        }
        w_put(w, text, len);
        s++;
    }
    w_put(w, "\"", 1);
    return 1;
}

static void w_integer(writer *w, json_int_t v)
{
    w_reserve(w, HS_INT_TEXT_MAX);
    w->len += hs_int_text(w->buf + w->len, v);
}

/* 0 when the value is one left to json_dumps. */
static int w_value(writer *w, json_t *v, int depth)
{
    if (depth > MAX_DEPTH)
        return 0;
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        w_put(w, "{", 1);
        bool first = true;
        for (void *it = json_object_iter(v); it; it = json_object_iter_next(v, it)) {
            if (!first)
                w_put(w, ",", 1);
            first = false;
            if (!w_string(w, json_object_iter_key(it), json_object_iter_key_len(it)))
                return 0;
            w_put(w, ":", 1);
            if (!w_value(w, json_object_iter_value(it), depth + 1))
                return 0;
        }
        w_put(w, "}", 1);
        return 1;
    }
    case JSON_ARRAY: {
        w_put(w, "[", 1);
        size_t n = json_array_size(v);
        for (size_t i = 0; i < n; i++) {
            if (i)
                w_put(w, ",", 1);
            if (!w_value(w, json_array_get(v, i), depth + 1))
                return 0;
        }
        w_put(w, "]", 1);
        return 1;
    }
    case JSON_STRING:
        return w_string(w, json_string_value(v), json_string_length(v));
    case JSON_INTEGER:
        w_integer(w, json_integer_value(v));
        return 1;
    case JSON_TRUE:
        w_put(w, "true", 4);
        return 1;
    case JSON_FALSE:
        w_put(w, "false", 5);
        return 1;
    case JSON_NULL:
        w_put(w, "null", 4);
        return 1;
    default:
        return 0; /* a real: jansson's own formatting */
    }
}

char *hs_facts_dumps(json_t *doc)
{
    writer w = {0};
    if ((json_is_object(doc) || json_is_array(doc)) && w_value(&w, doc, 1)) {
        w_put(&w, "", 1);
        return w.buf;
    }
    free(w.buf);
    return json_dumps(doc, JSON_COMPACT);
}
