/*
 * tempfiles.c - the cleanup registry and its signal handler, folder locks, and atomic file
 * replacement (see tempfiles.h). The handler uses only async-signal-safe calls: kill,
 * waitpid, unlink, open, getdents64, unlinkat, rmdir, sigaction, sigprocmask, raise.
 */
#define _GNU_SOURCE
#include "hotscan/tempfiles.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hotscan/common.h"

/* ---- the registry ---- */

enum { ENTRY_FILE, ENTRY_DIR, ENTRY_PID };

typedef struct {
    int kind;
    char *path;
    pid_t pid;
} entry;

static entry *entries;
static size_t n_entries, cap_entries;
static sigset_t handled;
static bool handled_ready, installed;

static const int terminating[] = {SIGINT,  SIGTERM, SIGHUP,  SIGQUIT,   SIGPIPE, SIGALRM,
                                  SIGUSR1, SIGUSR2, SIGXCPU, SIGVTALRM, SIGPROF, SIGXFSZ};
#define N_TERMINATING (sizeof terminating / sizeof terminating[0])

static void init_set(void)
{
    if (handled_ready)
        return;
    sigemptyset(&handled);
    for (size_t i = 0; i < N_TERMINATING; i++)
        sigaddset(&handled, terminating[i]);
    handled_ready = true;
}

/* The registry changes only with the handled signals blocked, so the handler never sees it
 * half-updated (hotscan's supervisor is single-threaded). */
static void block(sigset_t *old)
{
    init_set();
    sigprocmask(SIG_BLOCK, &handled, old);
}

static void unblock(const sigset_t *old)
{
    sigprocmask(SIG_SETMASK, old, NULL);
}

static void add(int kind, const char *path, pid_t pid)
{
    char *copy = path ? hs_xstrdup(path) : NULL;
    sigset_t old;
    block(&old);
    if (n_entries == cap_entries) {
        cap_entries = cap_entries ? cap_entries * 2 : 16;
        entries = hs_xrealloc(entries, cap_entries * sizeof *entries);
    }
    entries[n_entries++] = (entry){.kind = kind, .path = copy, .pid = pid};
    unblock(&old);
}

static void forget(int kind, const char *path, pid_t pid)
{
    char *gone = NULL;
    sigset_t old;
    block(&old);
    for (size_t i = n_entries; i-- > 0;) {
        entry *e = &entries[i];
        bool hit = kind == ENTRY_PID ? e->kind == ENTRY_PID && e->pid == pid
                                     : e->kind != ENTRY_PID && strcmp(e->path, path) == 0;
        if (hit) {
            gone = e->path;
            entries[i] = entries[--n_entries];
            break;
        }
    }
    if (n_entries == 0) {
        free(entries);
        entries = NULL;
        cap_entries = 0;
    }
    unblock(&old);
    free(gone);
}

void hs_cleanup_hold(sigset_t *old) { block(old); }
void hs_cleanup_release(const sigset_t *old) { unblock(old); }

void hs_cleanup_add_file(const char *path) { add(ENTRY_FILE, path, 0); }
void hs_cleanup_add_dir(const char *path) { add(ENTRY_DIR, path, 0); }
void hs_cleanup_add_pid(pid_t pid) { add(ENTRY_PID, NULL, pid); }
void hs_cleanup_forget_path(const char *path) { forget(ENTRY_FILE, path, 0); }
void hs_cleanup_forget_pid(pid_t pid) { forget(ENTRY_PID, NULL, pid); }

/* The first call of every child that goes on running hotscan: bench/instructions.sh zeroes callgrind's
 * counts when a process enters it (--zero-before), so keep the name and that order. */
void hs_cleanup_in_child(void)
{
    sigset_t old;
    block(&old);
    for (size_t i = 0; i < n_entries; i++)
        free(entries[i].path);
    free(entries);
    entries = NULL;
    n_entries = cap_entries = 0;
    if (installed) {
        struct sigaction dfl = {0};
        dfl.sa_handler = SIG_DFL;
        for (size_t i = 0; i < N_TERMINATING; i++) {
            struct sigaction cur;
            if (sigaction(terminating[i], NULL, &cur) == 0 && cur.sa_handler != SIG_IGN)
                sigaction(terminating[i], &dfl, NULL);
        }
        installed = false;
    }
    unblock(&old);
}

/* Removes a folder's entries (our folders hold plain files only), then the folder. */
struct dirent64_raw {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

static void remove_dir_now(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        char buf[4096] __attribute__((aligned(8)));
        for (int pass = 0; pass < 64; pass++) {
            bool removed = false;
            lseek(fd, 0, SEEK_SET);
            for (;;) {
                long n = syscall(SYS_getdents64, fd, buf, sizeof buf);
                if (n <= 0)
                    break;
                for (long off = 0; off < n;) {
                    struct dirent64_raw *d = (struct dirent64_raw *)(buf + off);
                    const char *nm = d->d_name;
                    if (!(nm[0] == '.' && (nm[1] == 0 || (nm[1] == '.' && nm[2] == 0))))
                        removed |= unlinkat(fd, nm, 0) == 0;
                    off += d->d_reclen;
                }
            }
            if (!removed)
                break;
        }
        close(fd);
    }
    rmdir(path);
}

void hs_remove_temp_dir(const char *path)
{
    remove_dir_now(path);
}

static void on_signal(int sig)
{
    for (size_t i = 0; i < n_entries; i++)
        if (entries[i].kind == ENTRY_PID)
            kill(entries[i].pid, SIGKILL);
    for (size_t i = 0; i < n_entries; i++)
        if (entries[i].kind == ENTRY_PID)
            while (waitpid(entries[i].pid, NULL, 0) < 0 && errno == EINTR) {
            }
    for (size_t i = 0; i < n_entries; i++)
        if (entries[i].kind == ENTRY_FILE)
            unlink(entries[i].path);
    for (size_t i = 0; i < n_entries; i++)
        if (entries[i].kind == ENTRY_DIR)
            remove_dir_now(entries[i].path);
    struct sigaction dfl = {0};
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, NULL);
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, sig);
    sigprocmask(SIG_UNBLOCK, &s, NULL);
    raise(sig);
}

void hs_cleanup_install(void)
{
    if (installed)
        return;
    init_set();
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sa.sa_mask = handled;
    for (size_t i = 0; i < N_TERMINATING; i++) {
        struct sigaction cur;
        if (sigaction(terminating[i], NULL, &cur) == 0 && cur.sa_handler == SIG_IGN)
            continue; /* nohup and the like: leave it ignored */
        sigaction(terminating[i], &sa, NULL);
    }
    installed = true;
}

/* ---- folder locks ---- */

int hs_dir_lock(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    while (flock(fd, LOCK_EX) != 0) {
        if (errno != EINTR) {
            int saved = errno;
            close(fd);
            errno = saved;
            return -1;
        }
    }
    return fd;
}

void hs_dir_unlock(int fd)
{
    if (fd >= 0)
        close(fd); /* releases the flock */
}

/* ---- temporary files ---- */

#define TEMP_MARK ".hotscan-"

bool hs_is_temp_name(const char *name)
{
    size_t n = strlen(name), m = strlen(TEMP_MARK);
    if (name[0] != '.' || n < 1 + 1 + m + 6)
        return false;
    const char *mark = name + n - 6 - m;
    if (strncmp(mark, TEMP_MARK, m) != 0)
        return false;
    for (const char *p = name + n - 6; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
            return false;
    return true;
}

size_t hs_remove_stale_temps(const char *dir, FILE *log)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    size_t removed = 0;
    struct dirent *ent;
    while ((ent = readdir(d)) != NULL) {
        if (!hs_is_temp_name(ent->d_name))
            continue;
        struct stat st;
        if (fstatat(dirfd(d), ent->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (unlinkat(dirfd(d), ent->d_name, 0) == 0) {
            removed++;
            if (log)
                fprintf(log, "hotscan: note: removed %s/%s, a temporary file an interrupted "
                             "hotscan run left\n", dir, ent->d_name);
        }
    }
    closedir(d);
    return removed;
}

static bool write_all(int fd, const char *data, size_t size)
{
    while (size > 0) {
        ssize_t n = write(fd, data, size);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        data += n;
        size -= (size_t)n;
    }
    return true;
}

static mode_t default_mode(void)
{
    mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

/* What fills a new file: `data` as it is, or what a writer prints to a stream on the file. */
typedef struct {
    const char *data;
    size_t size;
    hs_output_writer writer;
    void *user;
} filler;

/* Writes the filler's content to `fd` (left open); false with errno set. */
static bool fill(int fd, const filler *f)
{
    if (!f->writer)
        return write_all(fd, f->data, f->size);
    int copy = dup(fd);
    FILE *out = copy >= 0 ? fdopen(copy, "w") : NULL;
    if (!out) {
        int saved = errno;
        if (copy >= 0)
            close(copy);
        errno = saved;
        return false;
    }
    errno = 0;
    bool ok = f->writer(out, f->user) && fflush(out) == 0 && !ferror(out);
    int saved = errno ? errno : EIO;
    if (fclose(out) != 0 && ok) {
        saved = errno;
        ok = false;
    }
    if (!ok)
        errno = saved;
    return ok;
}

static char *temp_fill_beside(const char *path, const filler *content, const struct stat *like, const char **step)
{
    char *dir = hs_dirname(path);
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    char *tmp = hs_printf("%s/.%s" TEMP_MARK "XXXXXX", dir, base);
    free(dir);
    *step = "create a temporary file";
    sigset_t old;
    block(&old);
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd >= 0)
        hs_cleanup_add_file(tmp);
    unblock(&old);
    if (fd < 0) {
        int saved = errno;
        free(tmp);
        errno = saved;
        return NULL;
    }
    bool ok = true;
    *step = "write the temporary file";
    ok = fill(fd, content);
    if (ok && like && (like->st_uid != geteuid() || like->st_gid != getegid())) {
        /* The owner first: chown clears set-user-ID and set-group-ID bits, so the mode comes
         * after it. Where we may not keep the owner (not root), the new file is ours; that is
         * refused for a file with those bits rather than moving them to another owner. */
        if (fchown(fd, like->st_uid, like->st_gid) != 0 && (like->st_mode & (S_ISUID | S_ISGID))) {
            *step = "keep the owner of a set-user-ID or set-group-ID file";
            errno = EPERM;
            ok = false;
        }
    }
    if (ok) {
        *step = "set the temporary file's mode";
        ok = fchmod(fd, like ? like->st_mode & 07777 : default_mode()) == 0;
    }
    if (ok) {
        *step = "sync the temporary file";
        ok = fsync(fd) == 0;
    }
    int saved = errno;
    if (close(fd) != 0 && ok) {
        *step = "close the temporary file";
        saved = errno;
        ok = false;
    }
    if (!ok) {
        unlink(tmp);
        hs_cleanup_forget_path(tmp);
        free(tmp);
        errno = saved;
        return NULL;
    }
    return tmp;
}

char *hs_temp_write_beside(const char *path, const char *data, size_t size, const struct stat *like,
                           const char **step)
{
    filler content = {.data = data, .size = size};
    return temp_fill_beside(path, &content, like, step);
}

static void sync_dir_of(const char *path)
{
    char *dir = hs_dirname(path);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        if (fsync(dfd) != 0) {
            /* the rename is done; a failed folder sync only weakens durability */
        }
        close(dfd);
    }
    free(dir);
}

bool hs_temp_commit(char *tmp, const char *path)
{
    bool ok = rename(tmp, path) == 0;
    int saved = errno;
    if (!ok)
        unlink(tmp);
    hs_cleanup_forget_path(tmp);
    free(tmp);
    if (ok)
        sync_dir_of(path);
    errno = saved;
    return ok;
}

void hs_temp_discard(char *tmp)
{
    if (!tmp)
        return;
    unlink(tmp);
    hs_cleanup_forget_path(tmp);
    free(tmp);
}

/* Writes in place, for targets that are not regular files (a terminal, /dev/null, a FIFO). */
static bool write_in_place(const char *path, const filler *content, char **err)
{
    int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) {
        *err = hs_printf("cannot open %s: %s", path, strerror(errno));
        return false;
    }
    bool ok = fill(fd, content);
    int saved = errno;
    if (close(fd) != 0 && ok) {
        saved = errno;
        ok = false;
    }
    if (!ok)
        *err = hs_printf("cannot write %s: %s", path, strerror(saved));
    return ok;
}

static bool write_file_atomic(const char *path, const filler *content, char **err)
{
    *err = NULL;
    char *target = NULL;
    struct stat lst;
    if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))
        target = hs_realpath(path); /* replace the link's target, keep the link */
    if (!target)
        target = hs_xstrdup(path);
    struct stat st;
    bool exists = stat(target, &st) == 0;
    if (!exists && errno != ENOENT) {
        *err = hs_printf("cannot write %s: %s", path, strerror(errno));
        free(target);
        return false;
    }
    if (exists && S_ISDIR(st.st_mode)) {
        *err = hs_printf("cannot write %s: %s", path, strerror(EISDIR));
        free(target);
        return false;
    }
    if (exists && !S_ISREG(st.st_mode)) {
        bool ok = write_in_place(target, content, err);
        free(target);
        return ok;
    }
    char *dir = hs_dirname(target);
    int lock = hs_dir_lock(dir);
    if (lock < 0) {
        *err = hs_printf("cannot write %s: its folder %s: %s", path, dir, strerror(errno));
        free(dir);
        free(target);
        return false;
    }
    const char *step;
    char *tmp = temp_fill_beside(target, content, exists ? &st : NULL, &step);
    bool ok = tmp != NULL;
    if (!ok)
        *err = hs_printf("cannot write %s: cannot %s in %s: %s", path, step, dir, strerror(errno));
    else if (!hs_temp_commit(tmp, target)) {
        *err = hs_printf("cannot write %s: cannot rename the temporary file over it: %s", path,
                         strerror(errno));
        ok = false;
    }
    hs_dir_unlock(lock);
    free(dir);
    free(target);
    return ok;
}

bool hs_write_file_atomic(const char *path, const char *data, size_t size, char **err)
{
    filler content = {.data = data, .size = size};
    return write_file_atomic(path, &content, err);
}

bool hs_write_output_with(const char *path, hs_output_writer writer, void *user, char **err)
{
    *err = NULL;
    if (path && strcmp(path, "-") != 0) {
        filler content = {.writer = writer, .user = user};
        return write_file_atomic(path, &content, err);
    }
    errno = 0;
    if (!writer(stdout, user) || fflush(stdout) != 0 || ferror(stdout)) {
        *err = hs_printf("cannot write to standard output: %s", strerror(errno ? errno : EIO));
        return false;
    }
    return true;
}

bool hs_write_output(const char *path, const char *data, size_t size, char **err)
{
    *err = NULL;
    if (path && strcmp(path, "-") != 0)
        return hs_write_file_atomic(path, data, size, err);
    if (size && fwrite(data, 1, size, stdout) != size) {
        *err = hs_printf("cannot write to standard output: %s", strerror(errno));
        return false;
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        *err = hs_printf("cannot write to standard output: %s", strerror(errno ? errno : EIO));
        return false;
    }
    return true;
}

bool hs_close_stdout(const char *what)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return true;
    fprintf(stderr, "hotscan: error: cannot write %s to standard output: %s\n", what,
            strerror(errno ? errno : EIO));
    return false;
}

void hs_guard_std_fds(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
            continue;
        int got = open("/dev/null", O_RDONLY);
        if (got >= 0 && got != fd) {
            dup2(got, fd);
            close(got);
        }
    }
}
