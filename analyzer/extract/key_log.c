/*
 * key_log.c - the header-skip keys shared by the extraction workers of one run.
 *
 * A worker skips a header function body when an earlier TU, in TU order, whose facts reach
 * the merge walked the same body (extract.c, "Header functions walked once"). Each worker
 * used to know only its own earlier TUs, so with -j N every worker walked every header body
 * at least once. Here the workers of a run share what they commit:
 *
 * - Each record is one TU's new keys: (TU index, body keys, prefix keys), framed with a
 *   magic and checks of the header and of the keys (key_log.h). A worker writes its TU's record to
 *   `<dir>/<index>.keys` beside the facts, before it answers (workers.c).
 * - The supervisor appends that record, with one write() to `<dir>/keys` (O_APPEND), when it
 *   loads the TU's facts for the merge, and only then. Workers never append. The reason is
 *   failure: keys may be used only when the facts of their TU are merged, and only the
 *   supervisor knows that. A worker can write its facts and still lose its TU (killed at
 *   --tu-timeout between the facts and its answer: the kill and the answer race), and a
 *   worker that dies mid-TU never answers; keys it had appended itself would let another
 *   worker skip bodies whose facts no merged TU holds. Inside one worker that never
 *   mattered: its keys die with it.
 * - So the supervisor is the file's only writer, and a torn record can only be its own
 *   failed or short write (a full disk), after which it appends nothing more: a torn record
 *   is the file's last bytes, where a reader waits without using them. The reader checks
 *   every record anyway: a wrong magic, impossible counts or a failed check are skipped up
 *   to the next magic, never read as keys, and a record running past the end is left for
 *   the next read.
 * - Before each TU t a worker reads what was appended since its last read (pread from its
 *   offset to the end) and takes the keys of records from TUs below t; others are held back
 *   until t passes them (hs_key_log_reader_update). The merge keeps the first TU's facts in
 *   TU order, so a body is skipped in TU t only when an earlier TU delivered them. The
 *   supervisor delivers in TU order and hands out work after delivering, so a record from a
 *   later TU does not appear in practice, but nothing here depends on that.
 * - A worker records only keys in none of its sets (its own and those it read), so a key is
 *   in the file at most once per worker that walked it before hearing of it. The supervisor
 *   stops appending at HS_KEY_LOG_MAX_BYTES (workers.c): a pathological tree then costs
 *   what it did without sharing.
 */
#define _GNU_SOURCE
#include "key_log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "hotscan/common.h"

static uint32_t get32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static uint64_t get64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

unsigned char *hs_key_log_record(uint32_t tu, const unsigned char (*body)[16], size_t nbody,
                                 const unsigned char (*headers)[16], size_t nheaders, size_t *len)
{
    size_t n = HS_KEY_LOG_HEADER + 16 * (nbody + nheaders);
    unsigned char *p = hs_xmalloc(n);
    uint32_t magic = HS_KEY_LOG_MAGIC, nb = (uint32_t)nbody, nh = (uint32_t)nheaders;
    memcpy(p, &magic, 4);
    memcpy(p + 4, &tu, 4);
    memcpy(p + 8, &nb, 4);
    memcpy(p + 12, &nh, 4);
    if (nbody)
        memcpy(p + HS_KEY_LOG_HEADER, body, 16 * nbody);
    if (nheaders)
        memcpy(p + HS_KEY_LOG_HEADER + 16 * nbody, headers, 16 * nheaders);
    uint64_t check = XXH3_64bits(p + HS_KEY_LOG_HEADER, n - HS_KEY_LOG_HEADER);
    memcpy(p + 16, &check, 8);
    uint32_t header_check = (uint32_t)XXH3_64bits(p, 24);
    memcpy(p + 24, &header_check, 4);
    *len = n;
    return p;
}

/* Where the next record may start after `from`: the next magic, or the last bytes that may
 * begin one. */
static size_t next_magic(const unsigned char *buf, size_t len, size_t from)
{
    static const uint32_t magic = HS_KEY_LOG_MAGIC;
    for (size_t i = from; i + 4 <= len; i++)
        if (memcmp(buf + i, &magic, 4) == 0)
            return i;
    return len >= 3 && len - 3 > from ? len - 3 : from;
}

size_t hs_key_log_parse(const unsigned char *buf, size_t len, void (*each)(const hs_key_record *r, void *user),
                        void *user)
{
    size_t pos = 0;
    for (;;) {
        if (len - pos < 4)
            return pos;
        if (get32(buf + pos) != HS_KEY_LOG_MAGIC) {
            pos = next_magic(buf, len, pos + 1);
            continue;
        }
        if (len - pos < HS_KEY_LOG_HEADER)
            return pos;
        const unsigned char *h = buf + pos;
        uint32_t nb = get32(h + 8), nh = get32(h + 12);
        if ((uint32_t)XXH3_64bits(h, 24) != get32(h + 24) || nb > HS_KEY_LOG_MAX_KEYS || nh > HS_KEY_LOG_MAX_KEYS ||
            nb + nh > HS_KEY_LOG_MAX_KEYS) {
            pos = next_magic(buf, len, pos + 1);
            continue;
        }
        size_t size = HS_KEY_LOG_HEADER + 16 * ((size_t)nb + nh);
        if (len - pos < size)
            return pos; /* still being written, or torn at the end */
        if (XXH3_64bits(h + HS_KEY_LOG_HEADER, size - HS_KEY_LOG_HEADER) != get64(h + 16)) {
            pos = next_magic(buf, len, pos + 1);
            continue;
        }
        hs_key_record r = {get32(h + 4), nb, nh, h + HS_KEY_LOG_HEADER, h + HS_KEY_LOG_HEADER + 16 * (size_t)nb};
        each(&r, user);
        pos += size;
    }
}

/* A record from a TU not below the reader's TU yet: its keys, kept until it is. */
typedef struct {
    uint32_t tu, nbody, nheaders;
    unsigned char *keys;
} held_record;

struct hs_key_log_reader {
    int fd;
    size_t offset;         /* bytes of the file parsed (a partial record is read again) */
    held_record *held;
    size_t nheld, cap;
};

hs_key_log_reader *hs_key_log_reader_create(int fd)
{
    hs_key_log_reader *r = hs_xcalloc(1, sizeof *r);
    r->fd = fd;
    return r;
}

void hs_key_log_reader_delete(hs_key_log_reader *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->nheld; i++)
        free(r->held[i].keys);
    free(r->held);
    free(r);
}

size_t hs_key_log_reader_offset(const hs_key_log_reader *r)
{
    return r->offset;
}

typedef struct {
    hs_key_log_reader *r;
    uint32_t before;
    void (*each)(bool header, const unsigned char *key, void *user);
    void *user;
    size_t handed;
} update_args;

static void hand_on(update_args *a, const unsigned char *body, uint32_t nbody, const unsigned char *headers,
                    uint32_t nheaders)
{
    for (uint32_t i = 0; i < nbody; i++)
        a->each(false, body + 16 * (size_t)i, a->user);
    for (uint32_t i = 0; i < nheaders; i++)
        a->each(true, headers + 16 * (size_t)i, a->user);
    a->handed += (size_t)nbody + nheaders;
}

static void on_record(const hs_key_record *rec, void *user)
{
    update_args *a = user;
    if (rec->tu < a->before) {
        hand_on(a, rec->body, rec->nbody, rec->headers, rec->nheaders);
        return;
    }
    hs_key_log_reader *r = a->r;
    if (r->nheld == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 8;
        r->held = hs_xrealloc(r->held, r->cap * sizeof *r->held);
    }
    size_t n = 16 * ((size_t)rec->nbody + rec->nheaders);
    held_record *h = &r->held[r->nheld++];
    h->tu = rec->tu;
    h->nbody = rec->nbody;
    h->nheaders = rec->nheaders;
    h->keys = hs_xmalloc(n ? n : 1);
    if (n)
        memcpy(h->keys, rec->body, n); /* body and prefix keys are contiguous */
}

size_t hs_key_log_reader_update(hs_key_log_reader *r, uint32_t before,
                                void (*each)(bool header, const unsigned char *key, void *user), void *user)
{
    update_args a = {r, before, each, user, 0};
    /* Held records first: they were appended before anything read now. */
    size_t kept = 0;
    for (size_t i = 0; i < r->nheld; i++) {
        held_record *h = &r->held[i];
        if (h->tu < before) {
            hand_on(&a, h->keys, h->nbody, h->keys + 16 * (size_t)h->nbody, h->nheaders);
            free(h->keys);
        } else {
            r->held[kept++] = *h;
        }
    }
    r->nheld = kept;
    struct stat st;
    if (fstat(r->fd, &st) != 0 || st.st_size <= 0 || (size_t)st.st_size <= r->offset)
        return a.handed;
    size_t want = (size_t)st.st_size - r->offset, got = 0;
    unsigned char *buf = hs_xmalloc(want);
    while (got < want) {
        ssize_t n = pread(r->fd, buf + got, want - got, (off_t)(r->offset + got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    r->offset += hs_key_log_parse(buf, got, on_record, &a);
    free(buf);
    return a.handed;
}
