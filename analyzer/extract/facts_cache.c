/*
 * facts_cache.c - a TU's facts kept across runs (issue 15), so a rerun parses only the TUs
 * whose inputs changed.
 *
 * An entry is found by the TU's identity: its main file, working directory, arguments, the
 * project root (what counts as project code), hotscan's own binary (any rebuild of the
 * extractor is another key) and the rule data it loaded, hashed with XXH3-128. It is two
 * files: the facts document, handed to the merge by a hard link, and a key file holding a
 * second digest of the identity, the document's digest and, for every file the parse read
 * (libclang's inclusions, system headers too), its size, modification time and content
 * hash. The entry is used only when every input is unchanged: same size and mtime are
 * trusted as make and ccache's file_stat_matches trust them, anything else is hashed again
 * (once per file per worker process). So one edited header re-parses exactly the TUs that
 * include it.
 *
 * An input whose modification time is not older than the parse's start (less a margin for
 * the file system's coarse clock) may have changed while it was parsed, or may change again
 * within the same clock tick at the same size, which its stamp could not tell: such an entry
 * is not kept (git calls these entries "racily clean"; ccache refuses a too-new include the
 * same way). Two `scan --fix` runs on one file, one renaming its fix in while the other
 * parses, otherwise left an entry that paired one content's stamp with another's facts.
 *
 * Both files are written to a temporary name and renamed, the document first, so concurrent
 * runs never read half an entry. Every file carries a digest that is checked before it is
 * used (entry_write, entry_read: the key and a verdict their own, the document its own in
 * the key); a damaged file is dropped, a key that names another identity is a miss, and the
 * entry is rewritten after the parse. Nothing else is trusted from disk.
 */
#define _GNU_SOURCE
#include "hotscan/facts_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "hotscan/common.h"
#include "hotscan/facts.h"
#include "hotscan/strmap.h"

#define CACHE_FORMAT 2

struct hs_facts_cache {
    char *dir;
    char self[33];      /* the hotscan binary and the rule data, hashed */
    hs_strmap *hashes;  /* path -> "hex size mtime_ns": this process's memo of its content */
    FILE *log;          /* where a dropped entry is said, or NULL */
};

/* mkdir -p: every missing folder of `dir`; 0 or -1 with errno. */
static int mkdir_p(const char *dir)
{
    char *p = hs_xstrdup(dir);
    int r = 0;
    for (char *s = p + 1; r == 0; s++) {
        bool end = *s == '\0';
        if (*s != '/' && !end)
            continue;
        *s = '\0';
        if (mkdir(p, 0755) != 0 && errno != EEXIST)
            r = -1;
        if (end)
            break;
        *s = '/';
    }
    free(p);
    return r;
}

static void hex128(XXH128_hash_t h, char out[33])
{
    snprintf(out, 33, "%016llx%016llx", (unsigned long long)h.high64, (unsigned long long)h.low64);
}

/* Hashes a file's bytes into `state`; false when it cannot be read. */
static bool hash_file_into(XXH3_state_t *state, const char *path)
{
    size_t size = 0;
    char *text = hs_read_file(path, &size);
    if (!text)
        return false;
    XXH3_128bits_update(state, text, size);
    free(text);
    return true;
}

static long long timespec_ns(const struct timespec *ts)
{
    return (long long)ts->tv_sec * 1000000000LL + ts->tv_nsec;
}

static long long mtime_ns(const struct stat *st)
{
    return timespec_ns(&st->st_mtim);
}

/* The hex digest of a file's content into out ("" when it cannot be read: never matches),
 * hashed once per process while its size and modification time stay those `st` gives. */
static void content_hash(hs_facts_cache *c, const char *path, const struct stat *st, char out[33])
{
    char stamp[64];
    snprintf(stamp, sizeof stamp, " %lld %lld", (long long)st->st_size, mtime_ns(st));
    const char *known = hs_strmap_get(c->hashes, path); /* "hex size mtime" */
    if (known && strlen(known) > 32 && strcmp(known + 32, stamp) == 0) {
        memcpy(out, known, 32);
        out[32] = '\0';
        return;
    }
    size_t size = 0;
    char *text = hs_read_file(path, &size);
    out[0] = '\0';
    if (!text)
        return;
    hex128(XXH3_128bits(text, size), out);
    free(text);
    free(hs_strmap_put(c->hashes, path, hs_printf("%s%s", out, stamp)));
}

hs_facts_cache *hs_facts_cache_open(const char *dir, const hs_ruledata *rd, char **err)
{
    if (mkdir_p(dir) != 0) {
        *err = hs_printf("cannot create the facts cache %s: %s", dir, strerror(errno));
        return NULL;
    }
    XXH3_state_t *state = XXH3_createState();
    XXH3_128bits_reset(state);
    int format = CACHE_FORMAT;
    XXH3_128bits_update(state, &format, sizeof format);
    if (!hash_file_into(state, "/proc/self/exe")) {
        XXH3_freeState(state);
        *err = hs_printf("cannot read hotscan's own binary (/proc/self/exe) for the facts cache key");
        return NULL;
    }
    for (size_t i = 0; rd && i < rd->files.len; i++) {
        const char *f = rd->files.items[i];
        XXH3_128bits_update(state, f, strlen(f) + 1);
        hash_file_into(state, f);
    }
    /* The bench switch changes what the walk records. */
    if (getenv("HOTSCAN_BENCH_NO_INDIRECT"))
        XXH3_128bits_update(state, "no-indirect", 11);
    hs_facts_cache *c = hs_xcalloc(1, sizeof *c);
    c->dir = hs_xstrdup(dir);
    hex128(XXH3_128bits_digest(state), c->self);
    XXH3_freeState(state);
    c->hashes = hs_strmap_create();
    return c;
}

void hs_facts_cache_set_log(hs_facts_cache *c, FILE *log)
{
    if (c)
        c->log = log;
}

void hs_facts_cache_close(hs_facts_cache *c)
{
    if (!c)
        return;
    const char *key;
    void *value;
    for (size_t it = 0; hs_strmap_next(c->hashes, &it, &key, &value);)
        free(value);
    hs_strmap_delete(c->hashes);
    free(c->dir);
    free(c);
}

/* The TU's identity as text: what its key hashes and what its entry repeats. */
static char *identity(const hs_facts_cache *c, const hs_tu_input *in, const char *root)
{
    hs_buf b;
    hs_buf_init(&b);
    hs_buf_puts(&b, c->self);
    const char *parts[] = {in->file, in->directory ? in->directory : "", root ? root : "",
                           in->default_flags ? "default" : "db"};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        hs_buf_append(&b, "\n", 1);
        hs_buf_puts(&b, parts[i]);
    }
    for (int i = 0; i < in->argc; i++) {
        hs_buf_append(&b, "\n", 1);
        hs_buf_puts(&b, in->argv[i]);
    }
    return hs_buf_take(&b);
}

/* An entry is two files: BASE.facts.json (the facts document, as a worker hands it over)
 * and BASE.key (what it was made from), BASE named by the identity's digest. */
static char *entry_base(const hs_facts_cache *c, const char *id)
{
    char hex[33];
    hex128(XXH3_128bits(id, strlen(id)), hex);
    return hs_printf("%s/%.2s/%s", c->dir, hex, hex + 2);
}

/* The identity, digested with another seed than the file name: the key file's check. */
static void identity_check(const char *id, char out[17])
{
    snprintf(out, 17, "%016llx", (unsigned long long)XXH3_64bits_withSeed(id, strlen(id), 0x68737363));
}

/*
 * Whether one input line "HASH SIZE MTIME_NS PATH" still holds: a file whose size and
 * modification time (ns) are as recorded is trusted without reading it, as make and
 * ccache's file_stat_matches trust them; otherwise its bytes are hashed again.
 */
static bool input_unchanged(hs_facts_cache *c, char *line)
{
    char *sp1 = strchr(line, ' '), *sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL, *sp3 = sp2 ? strchr(sp2 + 1, ' ') : NULL;
    if (!sp3)
        return false;
    *sp1 = *sp2 = *sp3 = '\0';
    const char *hash = line, *path = sp3 + 1;
    long long size = atoll(sp1 + 1), mtime = atoll(sp2 + 1);
    struct stat st;
    if (stat(path, &st) != 0)
        return false;
    if ((long long)st.st_size == size && mtime_ns(&st) == mtime)
        return true;
    char now[33];
    content_hash(c, path, &st, now);
    return now[0] && strcmp(now, hash) == 0;
}

/* Whether every "HASH SIZE MTIME_NS PATH" line from `lines` to the end still holds; a line
 * cut short (no newline) does not. `lines` is overwritten; *count (when given) gets the
 * number of lines. */
static bool inputs_unchanged(hs_facts_cache *c, char *lines, size_t *count)
{
    for (char *line = lines; *line;) {
        if (count)
            ++*count;
        char *nl = strchr(line, '\n');
        if (!nl)
            return false; /* a key cut short */
        *nl = '\0';
        if (!input_unchanged(c, line))
            return false;
        line = nl + 1;
    }
    return true;
}

/* Within this much of a parse's start a file's modification time does not prove it older
 * than the parse: file times come from the kernel's coarse clock, a tick (1-10 ms) behind. */
#define RACY_MARGIN_NS 20000000LL

/* Appends an input line for each of `inputs` (real paths) to `key`; false when a file
 * cannot be read again (then it cannot be checked) or was modified no earlier than the
 * parse began (`parse_start_ns`, CLOCK_REALTIME: it may not be what was parsed, or may
 * change again unseen); then nothing may be stored. */
static bool append_inputs(hs_facts_cache *c, hs_buf *key, json_t *inputs, long long parse_start_ns)
{
    size_t i;
    json_t *input;
    json_array_foreach(inputs, i, input) {
        const char *file = json_string_value(input);
        struct stat st;
        char hash[33] = "";
        if (file && !strchr(file, '\n') && stat(file, &st) == 0 && mtime_ns(&st) < parse_start_ns - RACY_MARGIN_NS)
            content_hash(c, file, &st, hash);
        if (!hash[0])
            return false;
        char *line = hs_printf("%s %lld %lld %s\n", hash, (long long)st.st_size, mtime_ns(&st), file);
        hs_buf_puts(key, line);
        free(line);
    }
    return true;
}

long long hs_facts_cache_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return timespec_ns(&ts);
}

/* Writes `data` to `path` through a temporary file and a rename. Not hs_write_file_atomic:
 * an entry needs no fsync or folder lock (a lost one is a miss), and each worker writes one
 * per TU. */
static bool write_atomically(const char *path, const char *data, size_t n)
{
    char *tmp = hs_printf("%s.%ld.tmp", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    bool ok = false;
    if (fd >= 0) {
        size_t done = 0;
        while (done < n) {
            ssize_t w = write(fd, data + done, n - done);
            if (w <= 0)
                break;
            done += (size_t)w;
        }
        ok = close(fd) == 0 && done == n && rename(tmp, path) == 0;
        if (!ok)
            unlink(tmp);
    }
    free(tmp);
    return ok;
}

/*
 * Every file the cache holds is written by entry_write and read by entry_read, and each
 * carries a digest that is checked before anything in it is used:
 *
 * - a key (BASE.key) and a verdict (BASE.verdict) begin with a line "HEAD DIGEST", HEAD
 *   being the kind, the format and the identity's check, DIGEST the XXH3-128 of HEAD, a
 *   newline and the rest of the file (the body);
 * - a facts document (BASE.facts.json) is plain JSON, handed to the merge as it is: its
 *   digest is in the key that vouches for it, so it is read with that digest (`head` NULL).
 *
 * A file whose digest does not match is damaged: it is dropped (unlinked, said on the
 * cache's log) and the entry is a miss, recomputed and written again by the caller. A file
 * with a good digest and another HEAD (another identity or format) is a miss and is left to
 * be overwritten. An unlink may race with another run's rename of a fresh entry into place;
 * that costs the other run's entry, a miss later, never a wrong answer.
 */

/* The digest of an entry's head (NULL: none) and body. */
static void entry_digest(const char *head, const char *body, size_t n, char out[33])
{
    XXH3_state_t *state = XXH3_createState();
    XXH3_128bits_reset(state);
    if (head) {
        XXH3_128bits_update(state, head, strlen(head));
        XXH3_128bits_update(state, "\n", 1);
    }
    XXH3_128bits_update(state, body, n);
    hex128(XXH3_128bits_digest(state), out);
    XXH3_freeState(state);
}

/* Writes an entry: `head` and the digest, then `body` (see above); `body` alone when `head`
 * is NULL (its digest goes into the entry that vouches for it). False when not written. */
static bool entry_write(const char *path, const char *head, const char *body, size_t n)
{
    if (!head)
        return write_atomically(path, body, n);
    char sum[33];
    entry_digest(head, body, n, sum);
    hs_buf b;
    hs_buf_init(&b);
    hs_buf_puts(&b, head);
    hs_buf_append(&b, " ", 1);
    hs_buf_puts(&b, sum);
    hs_buf_append(&b, "\n", 1);
    hs_buf_append(&b, body, n);
    bool ok = write_atomically(path, b.data, b.len);
    hs_buf_free(&b);
    return ok;
}

/* A damaged file of the cache: unlinked, and said when the cache has a log. */
static void entry_drop(const hs_facts_cache *c, const char *path)
{
    if (unlink(path) == 0 && c->log)
        fprintf(c->log, "hotscan: note: dropped the damaged cache entry %s (its digest does not match); "
                        "recomputing it\n", path);
}

/*
 * Reads an entry written with `head` (NULL: a document whose digest must be `digest`). The
 * whole file's text is the result (malloc'd); *body points into it at the body (NUL-terminated,
 * *size bytes). NULL for no file, a damaged one (then dropped) or another head.
 */
static char *entry_read(const hs_facts_cache *c, const char *path, const char *head, const char *digest,
                        char **body, size_t *size)
{
    size_t len = 0;
    char *text = hs_read_file(path, &len);
    if (!text)
        return NULL;
    char sum[33];
    const char *start = text, *nl = head ? memchr(text, '\n', len) : NULL;
    bool whole;
    if (head) {
        /* "HEAD DIGEST\n": the digest is the line's last 32 characters. */
        size_t line = nl ? (size_t)(nl - text) : 0;
        whole = nl && line > 33 && text[line - 33] == ' ';
        if (whole) {
            text[line - 33] = '\0';
            start = nl + 1;
            entry_digest(text, start, len - (size_t)(start - text), sum);
            whole = strncmp(sum, text + line - 32, 32) == 0;
        }
    } else {
        entry_digest(NULL, text, len, sum);
        whole = strcmp(sum, digest) == 0;
    }
    if (!whole) {
        entry_drop(c, path);
        free(text);
        return NULL;
    }
    if (head && strcmp(text, head) != 0) {
        free(text);
        return NULL;
    }
    *body = (char *)start;
    *size = len - (size_t)(start - text);
    return text;
}

bool hs_facts_cache_fetch(hs_facts_cache *c, const hs_tu_input *in, const char *root, const char *dest)
{
    if (!c)
        return false;
    char *id = identity(c, in, root);
    char *base = entry_base(c, id);
    char *key_path = hs_printf("%s.key", base), *facts_path = hs_printf("%s.facts.json", base);
    char check[17];
    identity_check(id, check);
    char *head = hs_printf("hotscan-facts-cache %d %s", CACHE_FORMAT, check);
    /* The key's body: the document's digest on its own line, then the inputs. */
    char *body = NULL;
    size_t size = 0;
    char *text = entry_read(c, key_path, head, NULL, &body, &size);
    char facts_digest[33] = "";
    bool ok = text && size > 32 && body[32] == '\n';
    if (ok) {
        memcpy(facts_digest, body, 32);
        ok = inputs_unchanged(c, body + 33, NULL);
    }
    /* The document must be the one the key vouches for (a cut or damaged file is a miss);
     * it is handed over by a hard link when it can be (same file system), else copied. */
    char *facts_body = NULL;
    char *facts = ok ? entry_read(c, facts_path, NULL, facts_digest, &facts_body, &size) : NULL;
    ok = facts != NULL;
    if (ok && link(facts_path, dest) != 0)
        ok = write_atomically(dest, facts_body, size);
    free(facts);
    free(head);
    free(text);
    free(key_path);
    free(facts_path);
    free(base);
    free(id);
    return ok;
}

bool hs_facts_cache_put(hs_facts_cache *c, const hs_tu_input *in, const char *root, json_t *facts,
                        json_t *inputs, long long parse_start_ns)
{
    if (!c || !json_is_array(inputs))
        return false;
    char *id = identity(c, in, root);
    char check[17];
    identity_check(id, check);
    char *text = hs_facts_dumps(facts); /* json_dumps(facts, JSON_COMPACT), faster */
    hs_buf key;
    hs_buf_init(&key);
    char *base = entry_base(c, id);
    char *dir = hs_xstrndup(base, (size_t)(strrchr(base, '/') - base));
    char *facts_path = hs_printf("%s.facts.json", base), *key_path = hs_printf("%s.key", base);
    char *head = hs_printf("hotscan-facts-cache %d %s", CACHE_FORMAT, check);
    bool ok = text != NULL;
    if (ok) {
        char digest[33];
        entry_digest(NULL, text, strlen(text), digest);
        hs_buf_puts(&key, digest);
        hs_buf_append(&key, "\n", 1);
    }
    /* The facts first: a key is never there before the document it vouches for. */
    ok = ok && append_inputs(c, &key, inputs, parse_start_ns) && mkdir_p(dir) == 0 &&
         entry_write(facts_path, NULL, text, strlen(text)) && entry_write(key_path, head, key.data, key.len);
    hs_buf_free(&key);
    free(head);
    free(facts_path);
    free(key_path);
    free(text);
    free(dir);
    free(base);
    free(id);
    return ok;
}

/*
 * Verdicts: whether a fix-it's edits add a compile error is a reparse of its TU with the
 * edited files in memory (verify.c), and on an unchanged rerun the same reparses would give
 * the same counts. A verdict is kept by the TU's identity and every edited file's path and
 * content digest, with the files that reparse read (the worker's inclusions: an edit that
 * pulls in another header is covered) checked like a facts entry's inputs.
 */
static char *verdict_identity(const hs_facts_cache *c, const hs_tu_input *in, const char *root, json_t *unsaved)
{
    char *id = identity(c, in, root);
    hs_buf b;
    hs_buf_init(&b);
    hs_buf_puts(&b, id);
    free(id);
    hs_buf_puts(&b, "\nverify");
    size_t i;
    json_t *u;
    json_array_foreach(unsaved, i, u) {
        json_t *content = json_object_get(u, "content");
        const char *file = json_string_value(json_object_get(u, "file"));
        char hex[33];
        hex128(XXH3_128bits(json_string_value(content) ? json_string_value(content) : "",
                            json_string_length(content)), hex);
        hs_buf_append(&b, "\n", 1);
        hs_buf_puts(&b, file ? file : "");
        hs_buf_append(&b, "\n", 1);
        hs_buf_puts(&b, hex);
    }
    return hs_buf_take(&b);
}

json_t *hs_facts_cache_verdict_get(hs_facts_cache *c, const hs_tu_input *in, const char *root, json_t *unsaved)
{
    if (!c)
        return NULL;
    char *id = verdict_identity(c, in, root, unsaved);
    char *base = entry_base(c, id);
    char *path = hs_printf("%s.verdict", base);
    char check[17];
    identity_check(id, check);
    char *head = hs_printf("hotscan-verdict %d %s", CACHE_FORMAT, check);
    char *body = NULL;
    size_t size = 0;
    char *text = entry_read(c, path, head, NULL, &body, &size);
    json_t *r = NULL;
    /* The body's first line: the verdict as one line of JSON; then the inputs. */
    char *nl = text ? strchr(body, '\n') : NULL;
    if (nl) {
        *nl = '\0';
        json_t *v = json_loads(body, 0, NULL);
        size_t n = 0;
        if (json_is_integer(json_object_get(v, "errors")) && json_is_string(json_object_get(v, "first")) &&
            json_is_integer(json_object_get(v, "inputs")) && inputs_unchanged(c, nl + 1, &n) &&
            n > 0 && (json_int_t)n == json_integer_value(json_object_get(v, "inputs")))
            r = json_pack("{s:O, s:O}", "errors", json_object_get(v, "errors"), "first",
                          json_object_get(v, "first"));
        json_decref(v);
    }
    free(head);
    free(text);
    free(path);
    free(base);
    free(id);
    return r;
}

bool hs_facts_cache_verdict_put(hs_facts_cache *c, const hs_tu_input *in, const char *root, json_t *unsaved,
                                json_t *result, long long parse_start_ns)
{
    json_t *inputs = json_object_get(result, "inputs");
    json_t *errors = json_object_get(result, "errors"), *first = json_object_get(result, "first");
    if (!c || !json_is_array(inputs) || json_array_size(inputs) == 0 || !json_is_integer(errors) ||
        !json_is_string(first))
        return false;
    char *id = verdict_identity(c, in, root, unsaved);
    char check[17];
    identity_check(id, check);
    hs_buf body;
    hs_buf_init(&body);
    /* With the number of input lines that follow. */
    json_t *v = json_pack("{s:O, s:O, s:I}", "errors", errors, "first", first, "inputs",
                          (json_int_t)json_array_size(inputs));
    char *line = json_dumps(v, JSON_COMPACT); /* control characters escaped: one line */
    json_decref(v);
    bool ok = line != NULL;
    if (ok) {
        hs_buf_puts(&body, line);
        hs_buf_append(&body, "\n", 1);
    }
    free(line);
    ok = ok && append_inputs(c, &body, inputs, parse_start_ns);
    char *base = entry_base(c, id);
    char *dir = hs_xstrndup(base, (size_t)(strrchr(base, '/') - base));
    char *path = hs_printf("%s.verdict", base);
    char *head = hs_printf("hotscan-verdict %d %s", CACHE_FORMAT, check);
    ok = ok && mkdir_p(dir) == 0 && entry_write(path, head, body.data, body.len);
    hs_buf_free(&body);
    free(head);
    free(path);
    free(dir);
    free(base);
    free(id);
    return ok;
}
