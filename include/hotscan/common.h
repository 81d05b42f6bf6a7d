/*
 * common.h - small helpers every hotscan module uses: checked allocation, a growable
 * string buffer, a growable pointer vector, and path utilities.
 *
 * Library code never exits on bad input; it returns an error the caller can report.
 * Allocation failure is the one exception: it aborts, as there is nothing sane to do.
 */
#ifndef HOTSCAN_COMMON_H
#define HOTSCAN_COMMON_H

#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>

#define HOTSCAN_VERSION "0.1.0"

void *hs_xmalloc(size_t n);
void *hs_xcalloc(size_t count, size_t n);
void *hs_xrealloc(void *p, size_t n);
char *hs_xstrdup(const char *s);
char *hs_xstrndup(const char *s, size_t n);
char *hs_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* a, b and c end to end, malloc'd: hs_printf("%s%s%s") without the format's parsing, for
 * the keys and names the walk makes per node (vasprintf costs ~1,700 instructions). */
char *hs_strjoin3(const char *a, const char *b, const char *c);
/* The text "%lld" prints for v, without a NUL, into out (HS_INT_TEXT_MAX bytes); its length.
 * For the keys and documents written per fact, where snprintf's format parsing was the cost. */
#define HS_INT_TEXT_MAX 20
size_t hs_int_text(char *out, long long v);

/* A growable, always NUL-terminated string. */
typedef struct {
    char *data;
    size_t len;
    size_t cap;
} hs_buf;

void hs_buf_init(hs_buf *b);
void hs_buf_free(hs_buf *b);
void hs_buf_append(hs_buf *b, const char *s, size_t n);
void hs_buf_puts(hs_buf *b, const char *s);
void hs_buf_printf(hs_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Hands the string to the caller and leaves the buffer empty. */
char *hs_buf_take(hs_buf *b);

/* A growable array of pointers; the vector does not own what it points to. */
typedef struct {
    void **items;
    size_t len;
    size_t cap;
} hs_vec;

void hs_vec_push(hs_vec *v, void *item);

/*
 * Grows an array of `size`-byte elements by one zeroed element at the end (doubling its
 * capacity when full) and returns the array, which may have moved:
 *     s->reads = hs_array_append(s->reads, &s->len, &s->cap, sizeof *s->reads);
 *     hs_clock_read *r = &s->reads[s->len - 1];
 */
void *hs_array_append(void *items, size_t *len, size_t *cap, size_t size);
void hs_vec_free(hs_vec *v);

/* Paths. All return freshly allocated strings or NULL. */
char *hs_realpath(const char *path);              /* NULL when the path does not exist */
char *hs_path_join(const char *dir, const char *name);
char *hs_dirname(const char *path);
/* `path` relative to `root` when it lies under it, else a copy of `path`. */
char *hs_path_relative(const char *root, const char *path);
/* True when `path` is `root` or lies under it (both absolute, normalized). */
bool hs_path_is_under(const char *root, const char *path);

/* qsort's comparator for an array of char*: by strcmp. */
int hs_compare_strings(const void *a, const void *b);
/* Appends DIR's *.json files (paths; names starting with '.' left out), and with `depth` > 0
 * those of its subfolders that deep, to `out`, the appended ones sorted by path. A folder
 * that cannot be opened adds nothing. */
void hs_list_json_files(const char *dir, int depth, hs_vec *out);

/* Reads a whole file; NULL and errno set on failure (EISDIR for a folder). */
char *hs_read_file(const char *path, size_t *len_out);
/* The same, failing with EFBIG past `max` bytes (for /dev/zero and the like). */
char *hs_read_file_max(const char *path, size_t max, size_t *len_out);

/* FNV-1a 64-bit, for fingerprints and content hashes. Its values are written to reports,
 * baselines and patches, so it never changes; it reads one byte at a time, so hash tables
 * use hs_table_hash. */
unsigned long long hs_hash64(const void *data, size_t n, unsigned long long seed);
/* XXH3 64-bit, for hash tables' slots: several times cheaper than hs_hash64 on the long keys
 * the walk builds. Never written anywhere, so it may change with libxxhash. */
unsigned long long hs_table_hash(const void *data, size_t n);
/* Writes `n` numbers as hex digits joined by ':' into `buf` (room for n * 17 bytes) and
 * returns it: a cache key for pointers and offsets, much cheaper than snprintf's "%p". */
char *hs_hex_key(char *buf, const unsigned long long *v, size_t n);

double hs_now_seconds(void);
/* User + system CPU seconds of this process and of its children it has waited for. */
double hs_cpu_seconds_with_children(void);

/* glibc allocator tuning by kind of work. hotscan's own processes build and free millions of
 * small JSON nodes per facts document, and with glibc's fastbins on, each larger request
 * after such frees runs malloc_consolidate over them: a quarter of a warm haproxy rerun's
 * CPU in perf. hs_malloc_for_documents() turns fastbins off (tcache still serves small
 * sizes): the rerun costs about a fifth less. libclang's parse is a few percent slower
 * without them, so a parsing worker calls hs_malloc_for_parsing() to restore glibc's
 * default. No-ops without glibc. */
void hs_malloc_for_documents(void);
void hs_malloc_for_parsing(void);

/* True when the environment variable `name` is set to anything but "" or "0": how every
 * HOTSCAN_* switch is read (HOTSCAN_NO_CACHE, HOTSCAN_PREFILTER, ...). */
bool hs_env_flag(const char *name);

/* With HOTSCAN_MEMORY_TRACE set (to anything but "" or "0"): one line on stderr,
 * "hotscan: memory: STEP: rss R MB, peak P MB, heap H MB" (VmRSS and VmHWM of this process,
 * glibc's heap in use), for reading where a scan's supervisor peaks (docs/performance.md).
 * Otherwise nothing. */
void hs_memory_trace(const char *step);

#endif
