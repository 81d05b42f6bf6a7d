/*
 * common.c - allocation, buffers, vectors and path helpers shared by every module.
 */
#define _GNU_SOURCE
#include "hotscan/common.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dirent.h>
#include <sys/resource.h>
#include <sys/stat.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
/* Inlined: hash tables call hs_table_hash on every lookup. */
#define XXH_INLINE_ALL
#include <xxhash.h>

void *hs_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "hotscan: out of memory\n");
        abort();
    }
    return p;
}

void *hs_xcalloc(size_t count, size_t n)
{
    void *p = calloc(count ? count : 1, n ? n : 1);
    if (!p) {
        fprintf(stderr, "hotscan: out of memory\n");
        abort();
    }
    return p;
}

void *hs_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fprintf(stderr, "hotscan: out of memory\n");
        abort();
    }
    return q;
}

char *hs_xstrdup(const char *s)
{
    return hs_xstrndup(s, strlen(s));
}

char *hs_xstrndup(const char *s, size_t n)
{
    char *p = hs_xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *hs_strjoin3(const char *a, const char *b, const char *c)
{
    size_t na = strlen(a), nb = strlen(b), nc = strlen(c);
    char *p = hs_xmalloc(na + nb + nc + 1);
    memcpy(p, a, na);
    memcpy(p + na, b, nb);
    memcpy(p + na + nb, c, nc + 1);
    return p;
}

size_t hs_int_text(char *out, long long v)
{
    char digits[HS_INT_TEXT_MAX];
    size_t n = 0;
    /* As unsigned, so the most negative value needs no special case. */
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    do {
        digits[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    size_t len = 0;
    if (v < 0)
        out[len++] = '-';
    while (n)
        out[len++] = digits[--n];
    return len;
}

char *hs_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *out = NULL;
    if (vasprintf(&out, fmt, ap) < 0) {
        fprintf(stderr, "hotscan: out of memory\n");
        abort();
    }
    va_end(ap);
    return out;
}

void hs_buf_init(hs_buf *b)
{
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
}

void hs_buf_free(hs_buf *b)
{
    free(b->data);
    hs_buf_init(b);
}

static void buf_reserve(hs_buf *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + extra + 1)
        cap *= 2;
    b->data = hs_xrealloc(b->data, cap);
    b->cap = cap;
}

void hs_buf_append(hs_buf *b, const char *s, size_t n)
{
    buf_reserve(b, n);
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void hs_buf_puts(hs_buf *b, const char *s)
{
    hs_buf_append(b, s, strlen(s));
}

void hs_buf_printf(hs_buf *b, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        va_end(ap2);
        return;
    }
    buf_reserve(b, (size_t)n);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    b->len += (size_t)n;
}

char *hs_buf_take(hs_buf *b)
{
    char *s = b->data ? b->data : hs_xstrdup("");
    hs_buf_init(b);
    return s;
}

void *hs_array_append(void *items, size_t *len, size_t *cap, size_t size)
{
    if (*len == *cap) {
        *cap = *cap ? *cap * 2 : 4;
        items = hs_xrealloc(items, *cap * size);
    }
    memset((char *)items + *len * size, 0, size);
    (*len)++;
    return items;
}

void hs_vec_push(hs_vec *v, void *item)
{
    v->items = hs_array_append(v->items, &v->len, &v->cap, sizeof(void *));
    v->items[v->len - 1] = item;
}

void hs_vec_free(hs_vec *v)
{
    free(v->items);
    v->items = NULL;
    v->len = v->cap = 0;
}

char *hs_realpath(const char *path)
{
    char *r = realpath(path, NULL);
    return r;
}

char *hs_path_join(const char *dir, const char *name)
{
    if (name[0] == '/' || !dir || !dir[0])
        return hs_xstrdup(name);
    size_t dl = strlen(dir);
    if (dir[dl - 1] == '/')
        return hs_printf("%s%s", dir, name);
    return hs_printf("%s/%s", dir, name);
}

char *hs_dirname(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return hs_xstrdup(".");
    if (slash == path)
        return hs_xstrdup("/");
    return hs_xstrndup(path, (size_t)(slash - path));
}

bool hs_path_is_under(const char *root, const char *path)
{
    size_t rl = strlen(root);
    while (rl > 1 && root[rl - 1] == '/')
        rl--;
    if (strncmp(root, path, rl) != 0)
        return false;
    if (rl == 1 && root[0] == '/')
        return true;
    return path[rl] == '\0' || path[rl] == '/';
}

char *hs_path_relative(const char *root, const char *path)
{
    if (!root || !hs_path_is_under(root, path))
        return hs_xstrdup(path);
    size_t rl = strlen(root);
    while (rl > 1 && root[rl - 1] == '/')
        rl--;
    const char *rest = path + rl;
    while (*rest == '/')
        rest++;
    return hs_xstrdup(*rest ? rest : ".");
}

char *hs_read_file(const char *path, size_t *len_out)
{
    return hs_read_file_max(path, (size_t)-1, len_out);
}

char *hs_read_file_max(const char *path, size_t max, size_t *len_out)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        errno = EISDIR;
        return NULL;
    }
    hs_buf b;
    hs_buf_init(&b);
    char chunk[65536];
    size_t n;
    int err = 0;
    errno = 0;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (n > max || b.len > max - n) {
            err = EFBIG;
            break;
        }
        hs_buf_append(&b, chunk, n);
    }
    if (!err && ferror(f))
        err = errno ? errno : EIO;
    fclose(f);
    if (err) {
        hs_buf_free(&b);
        errno = err;
        return NULL;
    }
    if (len_out)
        *len_out = b.len;
    return hs_buf_take(&b);
}

unsigned long long hs_hash64(const void *data, size_t n, unsigned long long seed)
{
    const unsigned char *p = data;
    unsigned long long h = 1469598103934665603ULL ^ seed;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

unsigned long long hs_table_hash(const void *data, size_t n)
{
    return (unsigned long long)XXH3_64bits(data, n);
}

char *hs_hex_key(char *buf, const unsigned long long *v, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    char *p = buf;
    for (size_t i = 0; i < n; i++) {
        if (i)
            *p++ = ':';
        unsigned long long x = v[i];
        char tmp[16];
        int k = 0;
        do {
            tmp[k++] = digits[x & 15];
            x >>= 4;
        } while (x);
        while (k)
            *p++ = tmp[--k];
    }
    *p = '\0';
    return buf;
}

double hs_now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double hs_cpu_seconds_with_children(void)
{
    struct rusage self, children;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &children);
    const struct timeval *t[4] = {&self.ru_utime, &self.ru_stime, &children.ru_utime, &children.ru_stime};
    double sum = 0;
    for (int i = 0; i < 4; i++)
        sum += (double)t[i]->tv_sec + (double)t[i]->tv_usec / 1e6;
    return sum;
}

int hs_compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void collect_json_files(const char *dir, int depth, hs_vec *out)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *ent;
    while ((ent = readdir(d)) != NULL) {
        if (ent->d_name[0] == '.')
            continue;
        size_t n = strlen(ent->d_name);
        char *path = hs_path_join(dir, ent->d_name);
        struct stat st;
        if (n > 5 && strcmp(ent->d_name + n - 5, ".json") == 0) {
            hs_vec_push(out, path);
            continue;
        }
        if (depth > 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
            collect_json_files(path, depth - 1, out);
        free(path);
    }
    closedir(d);
}

void hs_list_json_files(const char *dir, int depth, hs_vec *out)
{
    size_t before = out->len;
    collect_json_files(dir, depth, out);
    if (out->len > before)
        qsort(out->items + before, out->len - before, sizeof *out->items, hs_compare_strings);
}

void hs_malloc_for_documents(void)
{
#ifdef __GLIBC__
    mallopt(M_MXFAST, 0);
#endif
}

void hs_malloc_for_parsing(void)
{
#ifdef __GLIBC__
    /* glibc's DEFAULT_MXFAST (malloc/malloc.c): 64 * sizeof(size_t) / 4. */
    mallopt(M_MXFAST, (int)(64 * sizeof(size_t) / 4));
#endif
}

bool hs_env_flag(const char *name)
{
    const char *v = getenv(name);
    return v && v[0] && strcmp(v, "0") != 0;
}

void hs_memory_trace(const char *step)
{
    if (!hs_env_flag("HOTSCAN_MEMORY_TRACE"))
        return;
    long rss = 0, hwm = 0;
    char line[256];
    FILE *st = fopen("/proc/self/status", "r");
    while (st && fgets(line, sizeof line, st)) {
        sscanf(line, "VmRSS: %ld", &rss);
        sscanf(line, "VmHWM: %ld", &hwm);
    }
    if (st)
        fclose(st);
    double heap = -1;
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    struct mallinfo2 mi = mallinfo2();
    heap = (double)(mi.uordblks + mi.hblkhd) / (1024.0 * 1024.0);
#endif
    fprintf(stderr, "hotscan: memory: %s: rss %.1f MB, peak %.1f MB, heap %.1f MB\n", step, rss / 1024.0,
            hwm / 1024.0, heap);
}
