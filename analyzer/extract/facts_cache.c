/*
 * facts_cache.c - a TU's facts kept across runs (issue 15), so a rerun parses only the TUs
 * whose inputs changed.
 *
 * An entry is found by the TU's identity: its main file, working directory, arguments, the
 * project root (what counts as project code), hotscan's own binary (any rebuild of the
 * extractor is another key) and the rule data it loaded, hashed with XXH3-128. The entry
 * lists every file the parse read (libclang's inclusions, system headers too) with a hash
 * of its bytes; it is used only when every one of them still hashes the same, as ccache's
 * direct mode does, so one edited header re-parses exactly the TUs that include it. A hash
 * is computed once per file per worker process.
 *
 * Entries are written to a temporary name and renamed, so concurrent runs never read half
 * an entry; an entry that does not parse, or holds another identity, is ignored and
 * rewritten after the parse. Nothing else is trusted from disk.
 */
#define _GNU_SOURCE
#include "hotscan/facts_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "hotscan/common.h"
#include "hotscan/strmap.h"

#define CACHE_FORMAT 1

struct hs_facts_cache {
    char *dir;
    char self[33];      /* the hotscan binary and the rule data, hashed */
    hs_strmap *hashes;  /* path -> "hex" of its content: this process's memo */
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

static const char *content_hash(hs_facts_cache *c, const char *path)
{
    const char *known = hs_strmap_get(c->hashes, path);
    if (known)
        return known;
    size_t size = 0;
    char *text = hs_read_file(path, &size);
    char hex[33] = "";
    if (text) {
        hex128(XXH3_128bits(text, size), hex);
        free(text);
    }
    char *kept = hs_xstrdup(hex); /* "" for a file that cannot be read: never matches */
    hs_strmap_put(c->hashes, path, kept);
    return kept;
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

static char *entry_path(const hs_facts_cache *c, const char *id)
{
    char hex[33];
    hex128(XXH3_128bits(id, strlen(id)), hex);
    return hs_printf("%s/%.2s/%s.json", c->dir, hex, hex + 2);
}

json_t *hs_facts_cache_get(hs_facts_cache *c, const hs_tu_input *in, const char *root)
{
    if (!c)
        return NULL;
    char *id = identity(c, in, root);
    char *path = entry_path(c, id);
    json_t *entry = json_load_file(path, JSON_REJECT_DUPLICATES, NULL);
    free(path);
    json_t *facts = NULL;
    bool ok = json_is_object(entry) && json_is_integer(json_object_get(entry, "format")) &&
              json_integer_value(json_object_get(entry, "format")) == CACHE_FORMAT &&
              json_is_string(json_object_get(entry, "identity")) &&
              strcmp(json_string_value(json_object_get(entry, "identity")), id) == 0 &&
              json_is_array(json_object_get(entry, "inputs")) && json_is_object(json_object_get(entry, "facts"));
    size_t i;
    json_t *input;
    if (ok) {
        json_array_foreach(json_object_get(entry, "inputs"), i, input) {
            const char *file = json_string_value(json_array_get(input, 0));
            const char *hash = json_string_value(json_array_get(input, 1));
            if (!file || !hash || strcmp(content_hash(c, file), hash) != 0) {
                ok = false;
                break;
            }
        }
    }
    if (ok)
        facts = json_incref(json_object_get(entry, "facts"));
    json_decref(entry);
    free(id);
    return facts;
}

bool hs_facts_cache_put(hs_facts_cache *c, const hs_tu_input *in, const char *root, json_t *facts,
                        json_t *inputs)
{
    if (!c || !json_is_array(inputs))
        return false;
    json_t *hashed = json_array();
    size_t i;
    json_t *input;
    json_array_foreach(inputs, i, input) {
        const char *file = json_string_value(input);
        const char *hash = file ? content_hash(c, file) : "";
        if (!hash[0]) {
            json_decref(hashed); /* a file that cannot be read again cannot be checked */
            return false;
        }
        json_array_append_new(hashed, json_pack("[s, s]", file, hash));
    }
    char *id = identity(c, in, root);
    char *path = entry_path(c, id);
    json_t *entry = json_pack("{s:i, s:s, s:o, s:O}", "format", CACHE_FORMAT, "identity", id, "inputs", hashed,
                              "facts", facts);
    char *dir = hs_xstrndup(path, (size_t)(strrchr(path, '/') - path));
    bool ok = false;
    if (entry && mkdir_p(dir) == 0) {
        char *text = json_dumps(entry, JSON_COMPACT);
        char *tmp = hs_printf("%s.%ld.tmp", path, (long)getpid());
        int fd = text ? open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
        if (fd >= 0) {
            size_t n = strlen(text), done = 0;
            while (done < n) {
                ssize_t w = write(fd, text + done, n - done);
                if (w <= 0)
                    break;
                done += (size_t)w;
            }
            ok = close(fd) == 0 && done == n && rename(tmp, path) == 0;
            if (!ok)
                unlink(tmp);
        }
        free(tmp);
        free(text);
    }
    json_decref(entry);
    free(dir);
    free(path);
    free(id);
    return ok;
}
