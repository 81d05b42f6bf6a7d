/*
 * source_file.c - the check every source file a scan reads passes first, and the read that
 * repeats it on the opened descriptor (include/hotscan/source_file.h).
 */
#define _GNU_SOURCE
#include "hotscan/source_file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hotscan/common.h"

/* What a file of this mode is, when it is not a regular file. */
static char *kind_problem(mode_t mode)
{
    if (S_ISREG(mode))
        return NULL;
    const char *what = S_ISDIR(mode)    ? "a folder"
                       : S_ISFIFO(mode) ? "a FIFO (named pipe)"
                       : S_ISSOCK(mode) ? "a socket"
                       : S_ISCHR(mode)  ? "a character device"
                       : S_ISBLK(mode)  ? "a block device"
                                        : "a special file";
    return hs_printf("%s, not a regular file", what);
}

/* The check: a descriptor open for reading on the regular file `path`, or -1 with *problem.
 * Anything but a regular file is refused before it is opened (opening a device may do
 * something); the opened descriptor is checked again, so a FIFO that replaced the file in
 * between is refused too, and O_NONBLOCK keeps that open from waiting for a writer. */
static int open_source(const char *path, char **problem)
{
    struct stat st;
    *problem = NULL;
    if (stat(path, &st) != 0) {
        int e = errno;
        struct stat lst;
        if (e == ENOENT && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))
            *problem = hs_xstrdup("a symbolic link to a missing file");
        else
            *problem = hs_xstrdup(strerror(e));
        return -1;
    }
    if ((*problem = kind_problem(st.st_mode)) != NULL)
        return -1;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        *problem = hs_xstrdup(strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0) {
        *problem = hs_xstrdup(strerror(errno));
        close(fd);
        return -1;
    }
    if ((*problem = kind_problem(st.st_mode)) != NULL) {
        close(fd);
        return -1;
    }
    /* a regular file: reads block as they always do (network file systems) */
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0)
        (void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    return fd;
}

char *hs_source_file_problem(const char *path)
{
    char *problem;
    int fd = open_source(path, &problem);
    if (fd >= 0)
        close(fd);
    return problem;
}

char *hs_source_file_read(const char *path, size_t max, size_t *len, char **problem)
{
    int fd = open_source(path, problem);
    if (fd < 0)
        return NULL;
    hs_buf b;
    hs_buf_init(&b);
    char chunk[65536];
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            *problem = hs_xstrdup(strerror(errno));
            break;
        }
        if (n == 0)
            break;
        if ((size_t)n > max || b.len > max - (size_t)n) {
            *problem = hs_printf("larger than %zu bytes", max);
            break;
        }
        hs_buf_append(&b, chunk, (size_t)n);
    }
    close(fd);
    if (*problem) {
        hs_buf_free(&b);
        return NULL;
    }
    if (len)
        *len = b.len;
    return hs_buf_take(&b);
}
