/*
 * workers.c - the supervisor and its extraction workers.
 *
 * Protocol: the supervisor writes a TU index (uint32) to a worker's command pipe; the
 * worker parses it, writes the facts to <tmpdir>/<index>.json (or the error to
 * <index>.err) and answers with the index on its result pipe. A worker that dies
 * mid-TU shows up as end-of-file on its result pipe; one that exceeds the timeout is
 * killed. Either way that TU gets an error and a new worker takes over.
 *
 * Test hooks (used by the test suite to prove the isolation): a worker aborts on a TU
 * whose path contains $HOTSCAN_TEST_CRASH_ON, and hangs on one containing
 * $HOTSCAN_TEST_HANG_ON.
 */
#define _GNU_SOURCE
#include "hotscan/workers.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct {
    pid_t pid;
    int cmd_fd;
    int res_fd;
    long busy;        /* TU index being parsed, or -1 */
    double started;
} worker;

static bool write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

static bool read_all(int fd, void *buf, size_t n)
{
    char *p = buf;
    while (n > 0) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        p += r;
        n -= (size_t)r;
    }
    return true;
}

static void maybe_misbehave(const char *file)
{
    const char *crash = getenv("HOTSCAN_TEST_CRASH_ON");
    if (crash && crash[0] && strstr(file, crash))
        abort();
    const char *hang = getenv("HOTSCAN_TEST_HANG_ON");
    if (hang && hang[0] && strstr(file, hang))
        for (;;)
            pause();
}

static char *result_path(const char *tmpdir, uint32_t index, const char *ext)
{
    return hs_printf("%s/%u.%s", tmpdir, index, ext);
}

static bool write_text_file(const char *path, const char *text)
{
    char *tmp = hs_printf("%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    bool ok = f && fputs(text, f) >= 0;
    if (f && fclose(f) != 0)
        ok = false;
    ok = ok && rename(tmp, path) == 0;
    free(tmp);
    return ok;
}

/* A verification job: the TU parsed with the fix's files in memory; errors counted. */
static json_t *run_verify_job(CXIndex index, hs_tu_input **tus, const hs_verify_job *job,
                              hs_extract_error *code, char **err)
{
    size_t n = json_array_size(job->unsaved);
    struct CXUnsavedFile *files = hs_xcalloc(n ? n : 1, sizeof *files);
    for (size_t k = 0; k < n; k++) {
        json_t *f = json_array_get(job->unsaved, k);
        files[k].Filename = json_string_value(json_object_get(f, "file"));
        files[k].Contents = json_string_value(json_object_get(f, "content"));
        files[k].Length = (unsigned long)json_string_length(json_object_get(f, "content"));
    }
    char *first = NULL;
    int errors = hs_count_errors_with(index, tus[job->tu], files, (unsigned)n, &first, code, err);
    free(files);
    if (errors < 0)
        return NULL;
    json_t *r = json_pack("{s:i, s:s}", "errors", (json_int_t)errors, "first", first ? first : "");
    free(first);
    return r;
}

static void worker_main(int cmd_fd, int res_fd, hs_tu_input **tus, const hs_pool_options *opt,
                        const char *tmpdir)
{
    CXIndex index = clang_createIndex(0, 0);
    uint32_t i;
    while (read_all(cmd_fd, &i, sizeof i)) {
        const hs_tu_input *in = opt->verify_jobs ? tus[opt->verify_jobs[i].tu] : tus[i];
        maybe_misbehave(in->file);
        char *err = NULL;
        hs_extract_error code = HS_EXTRACT_OK;
        json_t *facts = opt->verify_jobs ? run_verify_job(index, tus, &opt->verify_jobs[i], &code, &err)
                                         : hs_extract_tu(index, in, opt->rd, opt->root, &code, &err);
        bool crashed = false;
        if (facts) {
            char *path = result_path(tmpdir, i, "json");
            char *tmp = hs_printf("%s.tmp", path);
            if (json_dump_file(facts, tmp, JSON_COMPACT) != 0 || rename(tmp, path) != 0) {
                char *epath = result_path(tmpdir, i, "err");
                write_text_file(epath, "could not write the TU's facts to the temporary directory");
                free(epath);
            }
            free(tmp);
            free(path);
            json_decref(facts);
        } else {
            char *epath = result_path(tmpdir, i, "err");
            write_text_file(epath, err ? err : "unknown error");
            crashed = code == HS_EXTRACT_CRASHED;
            free(epath);
            free(err);
        }
        /* After a recovered crash libclang's state is suspect: say so, and start afresh. */
        uint32_t reply[2] = {i, crashed ? 1u : 0u};
        if (!write_all(res_fd, reply, sizeof reply))
            break;
        if (crashed)
            break;
    }
    clang_disposeIndex(index);
    _exit(0);
}

static bool spawn(worker *w, hs_tu_input **tus, const hs_pool_options *opt, const char *tmpdir,
                  worker *all, int nworkers)
{
    int cmd[2], res[2];
    if (pipe(cmd) != 0)
        return false;
    if (pipe(res) != 0) {
        close(cmd[0]);
        close(cmd[1]);
        return false;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(cmd[0]);
        close(cmd[1]);
        close(res[0]);
        close(res[1]);
        return false;
    }
    if (pid == 0) {
        close(cmd[1]);
        close(res[0]);
        /* Other workers' pipes must not stay open here, or their deaths go unseen. */
        for (int k = 0; k < nworkers; k++) {
            if (&all[k] != w && all[k].pid > 0) {
                close(all[k].cmd_fd);
                close(all[k].res_fd);
            }
        }
        worker_main(cmd[0], res[1], tus, opt, tmpdir);
    }
    close(cmd[0]);
    close(res[1]);
    w->pid = pid;
    w->cmd_fd = cmd[1];
    w->res_fd = res[0];
    w->busy = -1;
    return true;
}

static void retire(worker *w)
{
    close(w->cmd_fd);
    close(w->res_fd);
    int status = 0;
    waitpid(w->pid, &status, 0);
    w->pid = 0;
}

static char *death_reason(int status)
{
    if (WIFSIGNALED(status))
        return hs_printf("the parser crashed (signal %d: %s); this TU was skipped",
                         WTERMSIG(status), strsignal(WTERMSIG(status)));
    return hs_printf("the parser exited unexpectedly (status %d); this TU was skipped",
                     WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

static void collect(const char *tmpdir, uint32_t i, hs_tu_result *r)
{
    char *path = result_path(tmpdir, i, "json");
    json_error_t jerr;
    r->facts = json_load_file(path, 0, &jerr);
    if (r->facts) {
        unlink(path);
    } else {
        char *epath = result_path(tmpdir, i, "err");
        char *msg = hs_read_file(epath, NULL);
        r->error = msg ? msg : hs_printf("facts unreadable: %s", jerr.text);
        unlink(epath);
    }
    free(path);
}

static int remove_tree_entry(const char *dir)
{
    /* The directory only ever holds our own result files, all removed as collected. */
    return rmdir(dir);
}

static bool run_pool(hs_tu_input **tus, size_t n, const hs_pool_options *opt,
                     hs_tu_result *results, char **err);

bool hs_extract_all(hs_tu_input **tus, size_t n, const hs_pool_options *opt,
                    hs_tu_result *results, char **err)
{
    hs_pool_options o = *opt;
    o.verify_jobs = NULL;
    return run_pool(tus, n, &o, results, err);
}

bool hs_verify_all(hs_tu_input **tus, const hs_verify_job *jobs, size_t n,
                   const hs_pool_options *opt, hs_tu_result *results, char **err)
{
    hs_pool_options o = *opt;
    o.verify_jobs = jobs;
    o.on_result = NULL; /* verification results are small and always returned in `results` */
    o.user = NULL;
    return run_pool(tus, n, &o, results, err);
}

static bool run_pool(hs_tu_input **tus, size_t n, const hs_pool_options *opt,
                     hs_tu_result *results, char **err)
{
    if (n == 0)
        return true;
    const char *tmp = getenv("TMPDIR");
    char *tmpdir = hs_printf("%s/hotscan-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(tmpdir)) {
        *err = hs_printf("%s: cannot create a temporary directory: %s", tmpdir, strerror(errno));
        free(tmpdir);
        return false;
    }
    struct sigaction ign = {0}, old_pipe;
    ign.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ign, &old_pipe);

    int nworkers = opt->jobs > 0 ? opt->jobs : 1;
    if ((size_t)nworkers > n)
        nworkers = (int)n;
    worker *ws = hs_xcalloc((size_t)nworkers, sizeof *ws);
    for (int k = 0; k < nworkers; k++) {
        if (!spawn(&ws[k], tus, opt, tmpdir, ws, nworkers)) {
            if (k == 0) {
                *err = hs_printf("cannot start a worker process: %s", strerror(errno));
                free(ws);
                rmdir(tmpdir);
                free(tmpdir);
                sigaction(SIGPIPE, &old_pipe, NULL);
                return false;
            }
            nworkers = k;
            break;
        }
    }
    size_t next = 0, done = 0;
    /* ready[i]: TU i is finished (its facts wait on disk, or its error is set). Results are
     * loaded and handed to on_result in index order, one at a time, so the merge is the same
     * whatever order workers finish in and at most one TU's facts are in memory. */
    bool *ready = hs_xcalloc(n, sizeof *ready);
    size_t delivered = 0;
    struct pollfd *pfds = hs_xcalloc((size_t)nworkers, sizeof *pfds);
    while (done < n) {
        /* Hand out work. */
        for (int k = 0; k < nworkers; k++) {
            worker *w = &ws[k];
            if (w->pid == 0 && next < n)
                spawn(w, tus, opt, tmpdir, ws, nworkers);
            if (w->pid > 0 && w->busy < 0 && next < n) {
                uint32_t idx = (uint32_t)next;
                if (write_all(w->cmd_fd, &idx, sizeof idx)) {
                    w->busy = (long)next++;
                    w->started = hs_now_seconds();
                } else {
                    retire(w);
                }
            }
        }
        for (int k = 0; k < nworkers; k++) {
            pfds[k].fd = ws[k].pid > 0 ? ws[k].res_fd : -1;
            pfds[k].events = POLLIN;
            pfds[k].revents = 0;
        }
        int pr = poll(pfds, (nfds_t)nworkers, 250);
        if (pr < 0 && errno != EINTR)
            break;
        double now = hs_now_seconds();
        for (int k = 0; k < nworkers; k++) {
            worker *w = &ws[k];
            if (w->pid <= 0)
                continue;
            if (pfds[k].revents & (POLLIN | POLLHUP | POLLERR)) {
                uint32_t reply[2];
                if (read_all(w->res_fd, reply, sizeof reply) && (long)reply[0] == w->busy) {
                    uint32_t idx = reply[0];
                    if (opt->on_result)
                        ready[idx] = true; /* loaded when its turn comes */
                    else
                        collect(tmpdir, idx, &results[idx]);
                    results[idx].seconds = now - w->started;
                    w->busy = -1;
                    done++;
                    if (reply[1] & 1u)
                        retire(w); /* it is exiting: no new work for it */
                    continue;
                }
                /* End of file: the worker died. */
                close(w->cmd_fd);
                close(w->res_fd);
                int status = 0;
                waitpid(w->pid, &status, 0);
                w->pid = 0;
                if (w->busy >= 0) {
                    results[w->busy].error = death_reason(status);
                    results[w->busy].seconds = now - w->started;
                    ready[w->busy] = true;
                    w->busy = -1;
                    done++;
                }
            } else if (w->busy >= 0 && opt->tu_timeout > 0 && now - w->started > opt->tu_timeout) {
                kill(w->pid, SIGKILL);
                long busy = w->busy;
                retire(w);
                results[busy].error =
                    hs_printf("parsing took longer than %.0f s (--tu-timeout); this TU was skipped",
                              opt->tu_timeout);
                results[busy].seconds = now - w->started;
                ready[busy] = true;
                w->busy = -1;
                done++;
            }
        }
        if (opt->on_result) {
            for (; delivered < n && ready[delivered]; delivered++) {
                hs_tu_result *r = &results[delivered];
                if (!r->error)
                    collect(tmpdir, (uint32_t)delivered, r);
                opt->on_result(delivered, r, opt->user);
            }
        }
        if (opt->progress)
            fprintf(stderr, "\rhotscan: %zu/%zu translation units", done, n);
    }
    if (opt->progress)
        fprintf(stderr, "\r\033[K");
    for (int k = 0; k < nworkers; k++)
        if (ws[k].pid > 0)
            retire(&ws[k]);
    free(pfds);
    free(ws);
    free(ready);
    remove_tree_entry(tmpdir);
    free(tmpdir);
    sigaction(SIGPIPE, &old_pipe, NULL);
    return true;
}
