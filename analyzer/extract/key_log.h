/*
 * key_log.h - the header-skip keys the extraction workers of one run share (key_log.c),
 * private to the extractor: a record per TU, (TU index, its header function body keys, its
 * header prefix keys), appended to one file in the run's temporary directory and read by
 * every worker before each TU (workers.c; extract.c, "Header functions walked once").
 */
#ifndef HOTSCAN_KEY_LOG_H
#define HOTSCAN_KEY_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A record: magic, TU index, number of body keys, number of prefix keys (4 bytes each), the
 * keys' check (XXH3-64 of them), the header's check (the low half of XXH3-64 of the 24 bytes
 * before it), then the keys, 16 bytes each (body keys first). A damaged header is known at
 * once; only a whole header whose keys run past the end is waited for. Host byte order: the
 * file never leaves the run. */
#define HS_KEY_LOG_MAGIC 0x314b5348u /* "HSK1" */
#define HS_KEY_LOG_HEADER 28
/* More keys than this in one record is damage, not a TU (a TU has thousands at most). */
#define HS_KEY_LOG_MAX_KEYS (1u << 22)

typedef struct {
    uint32_t tu;
    uint32_t nbody, nheaders;
    const unsigned char *body;    /* nbody keys of 16 bytes */
    const unsigned char *headers; /* nheaders keys of 16 bytes */
} hs_key_record;

/* One record (malloc'd, *len bytes) for TU `tu`. */
unsigned char *hs_key_log_record(uint32_t tu, const unsigned char (*body)[16], size_t nbody,
                                 const unsigned char (*headers)[16], size_t nheaders, size_t *len);

/*
 * Hands `each` every whole record in buf[0, len) whose checks hold, in order, and returns
 * how many bytes were read: up to a record that may still be being written (its header, or
 * the keys of a whole header, run past `len`), which a later call must start at. Bytes that
 * are not a record (a torn or damaged one: wrong magic, a check that fails, impossible
 * counts) are skipped up to the next magic; none is ever handed on.
 */
size_t hs_key_log_parse(const unsigned char *buf, size_t len, void (*each)(const hs_key_record *r, void *user),
                        void *user);

/* A worker's place in the shared file (`fd`, read with pread only), and the records it read
 * that were not usable yet. */
typedef struct hs_key_log_reader hs_key_log_reader;
hs_key_log_reader *hs_key_log_reader_create(int fd);
void hs_key_log_reader_delete(hs_key_log_reader *r);

/*
 * Reads what was appended since the last call and calls `each` for every key of a record
 * from a TU below `before` (header: a prefix key, else a body key), once; a record from TU
 * `before` or above is held back until a later call's `before` passes it. Returns the
 * number of keys handed on.
 */
size_t hs_key_log_reader_update(hs_key_log_reader *r, uint32_t before,
                                void (*each)(bool header, const unsigned char *key, void *user), void *user);

/* Bytes read from the file so far. */
size_t hs_key_log_reader_offset(const hs_key_log_reader *r);

#endif
