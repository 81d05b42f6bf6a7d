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
 * runs never read half an entry; a key that does not parse, names another identity or
 * vouches for another document is a miss, and the entry is rewritten after the parse.
 * Nothing else is trusted from disk.
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

#define CACHE_FORMAT 1

struct hs_facts_cache {
    char *dir;
    char self[33];      /* the hotscan binary and the rule data, hashed */
    hs_strmap *hashes;  /* path -> "hex size mtime_ns": this process's memo of its content */
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

bool hs_facts_cache_fetch(hs_facts_cache *c, const hs_tu_input *in, const char *root, const char *dest)
{
    if (!c)
        return false;
    char *id = identity(c, in, root);
    char *base = entry_base(c, id);
    char *key_path = hs_printf("%s.key", base), *facts_path = hs_printf("%s.facts.json", base);
    char *text = hs_read_file(key_path, NULL);
    char check[17];
    identity_check(id, check);
    char *want = hs_printf("hotscan-facts-cache %d %s ", CACHE_FORMAT, check);
    bool ok = text && strncmp(text, want, strlen(want)) == 0 && strlen(text) > strlen(want) + 32 &&
              text[strlen(want) + 32] == '\n';
    char facts_digest[33] = "";
    if (ok)
        memcpy(facts_digest, text + strlen(want), 32);
    if (ok)
        ok = inputs_unchanged(c, text + strlen(want) + 33, NULL);
    /* The document must be the one the key vouches for (a cut or damaged file is a miss);
     * it is handed over by a hard link when it can be (same file system), else copied. */
    size_t size = 0;
    char *facts = ok ? hs_read_file(facts_path, &size) : NULL;
    char got[33] = "";
    if (facts)
        hex128(XXH3_128bits(facts, size), got);
    ok = facts && strcmp(got, facts_digest) == 0;
    if (ok && link(facts_path, dest) != 0)
        ok = write_atomically(dest, facts, size);
    free(facts);
    free(want);
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
    char digest[33] = "";
    if (text)
        hex128(XXH3_128bits(text, strlen(text)), digest);
    hs_buf key;
    hs_buf_init(&key);
    char *head = hs_printf("hotscan-facts-cache %d %s %s\n", CACHE_FORMAT, check, digest);
    hs_buf_puts(&key, head);
    free(head);
    bool ok = text != NULL && append_inputs(c, &key, inputs, parse_start_ns);
    char *base = entry_base(c, id);
    char *dir = hs_xstrndup(base, (size_t)(strrchr(base, '/') - base));
    char *facts_path = hs_printf("%s.facts.json", base), *key_path = hs_printf("%s.key", base);
    char *key_text = hs_buf_take(&key);
    /* The facts first: a key is never there before the document it vouches for. */
    ok = ok && mkdir_p(dir) == 0 && write_atomically(facts_path, text, strlen(text)) &&
         write_atomically(key_path, key_text, strlen(key_text));
    free(key_text);
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
    char *text = hs_read_file(path, NULL);
    char check[17];
    identity_check(id, check);
    char *want = hs_printf("hotscan-verdict %d %s\n", CACHE_FORMAT, check);
    json_t *r = NULL;
    /* Line 2: the verdict as one line of JSON; then the inputs. */
    char *line2 = text && strncmp(text, want, strlen(want)) == 0 ? text + strlen(want) : NULL;
    char *nl = line2 ? strchr(line2, '\n') : NULL;
    if (nl) {
        *nl = '\0';
        json_t *v = json_loads(line2, 0, NULL);
        size_t n = 0;
        if (json_is_integer(json_object_get(v, "errors")) && json_is_string(json_object_get(v, "first")) &&
            json_is_integer(json_object_get(v, "inputs")) && inputs_unchanged(c, nl + 1, &n) &&
            n > 0 && (json_int_t)n == json_integer_value(json_object_get(v, "inputs")))
            r = json_pack("{s:O, s:O}", "errors", json_object_get(v, "errors"), "first",
                          json_object_get(v, "first"));
        json_decref(v);
    }
    free(want);
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
    hs_buf key;
    hs_buf_init(&key);
    char *head = hs_printf("hotscan-verdict %d %s\n", CACHE_FORMAT, check);
    hs_buf_puts(&key, head);
    free(head);
    /* The number of input lines that follow: a file cut at a line's end is a miss too. */
    json_t *v = json_pack("{s:O, s:O, s:I}", "errors", errors, "first", first, "inputs",
                          (json_int_t)json_array_size(inputs));
    char *line = json_dumps(v, JSON_COMPACT); /* control characters escaped: one line */
    json_decref(v);
    bool ok = line != NULL;
    if (ok) {
        hs_buf_puts(&key, line);
        hs_buf_append(&key, "\n", 1);
    }
    free(line);
    ok = ok && append_inputs(c, &key, inputs, parse_start_ns);
    char *base = entry_base(c, id);
    char *dir = hs_xstrndup(base, (size_t)(strrchr(base, '/') - base));
    char *path = hs_printf("%s.verdict", base);
    char *text = hs_buf_take(&key);
    ok = ok && mkdir_p(dir) == 0 && write_atomically(path, text, strlen(text));
    free(text);
    free(path);
    free(dir);
    free(base);
    free(id);
    return ok;
}
