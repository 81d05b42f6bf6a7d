/*
 * workers.c - the supervisor and its extraction workers.
 *
 * Protocol: the supervisor writes a TU index (uint32) to a worker's command pipe; the
 * worker parses it, writes the facts to <tmpdir>/<index>.json (or the error to
 * <index>.err) and answers with the index on its result pipe. A worker that dies
 * mid-TU shows up as end-of-file on its result pipe; one that exceeds the timeout is
 * killed. Either way that TU gets an error and a new worker takes over.
 *
 * Workers die with the supervisor: PR_SET_PDEATHSIG (SIGKILL) covers a supervisor killed
 * outright, and the cleanup registry (tempfiles.h) kills and reaps them, and removes the
 * temporary directory, when the supervisor gets a terminating signal. The directory is
 * flock'ed while in use, so a later run can tell a dead run's directory and remove it.
 * Each worker's address space is capped (RLIMIT_AS, --tu-memory).
 *
 * With -j 2 or more the workers share their header-skip keys (key_log.c): a worker writes a
 * TU's new keys to <tmpdir>/<index>.keys beside its facts; the supervisor appends them to
 * <tmpdir>/keys when it loads those facts for the merge, and each worker reads that file
 * before each TU.
 *
 * Test hooks (used by the test suite to prove the isolation): a worker aborts on a TU
 * whose path contains $HOTSCAN_TEST_CRASH_ON, and hangs on one containing
 * $HOTSCAN_TEST_HANG_ON. With $HOTSCAN_TEST_SERIAL_WORKERS the supervisor hands out one TU
 * at a time, once every earlier one is delivered, to the workers in turn (the shared keys'
 * tests: which worker parses which TU, and what it knows then, is fixed).
 */
#define _GNU_SOURCE
#include "hotscan/facts.h"
#include "hotscan/facts_cache.h"
#include "hotscan/json_arena.h"
#include "hotscan/workers.h"
#include "hotscan/source_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hotscan/tempfiles.h"
#include "key_log.h"

/* The supervisor stops appending to the key log past this: a pathological tree then costs
 * what it did without sharing (haproxy's log is well under 1 MiB, docs/performance.md). */
#define HS_KEY_LOG_MAX_BYTES ((size_t)64 << 20)

/* The run's key log (key_log.c): the supervisor's end and the workers'. */
typedef struct {
    int append_fd;   /* the supervisor's, O_APPEND; -1: the workers share no keys */
    int read_fd;     /* the workers' (pread only) */
    size_t bytes, records, keys;
    bool stopped;    /* a write failed, or the log reached HS_KEY_LOG_MAX_BYTES */
} key_share;

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

/* Writes `text` to path.tmp and renames it to path; 0, or the errno of what failed. */
static int write_text_file(const char *path, const char *text)
{
    char *tmp = hs_printf("%s.tmp", path);
    int err = 0;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        err = errno;
    } else {
        errno = 0;
        if (!write_all(fd, text, strlen(text)))
            err = errno ? errno : EIO;
        if (close(fd) != 0 && !err)
            err = errno;
    }
    if (!err && rename(tmp, path) != 0)
        err = errno;
    if (err)
        unlink(tmp);
    free(tmp);
    return err;
}

/* The most address space this process has had (VmPeak), in bytes; 0 when unknown. */
static long long vm_peak(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return 0;
    char line[256];
    long long kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmPeak: %lld kB", &kb) == 1)
            break;
    fclose(f);
    return kb * 1024;
}

static char *out_of_memory_message(long long limit)
{
    return hs_printf("the parser ran out of memory (the limit is %lld MiB per worker, "
                     "--tu-memory); this TU was skipped", limit >> 20);
}

/*
 * A worker that dies of SIGABRT, SIGSEGV or SIGBUS outside libclang's crash recovery (a
 * failed thread or allocation there aborts) after its address space came near the cap
 * reports the cap as its TU's error before dying. Everything it needs is prepared before
 * each TU; the handler only reads /proc/self/status and writes.
 */
static struct {
    long long limit;
    int res_fd;
    uint32_t index;
    char err_path[4096];
    char message[256];
    size_t message_len;
} fatal;

static long long vm_peak_signal_safe(void)
{
    int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    char buf[8192];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    const char *p = strstr(buf, "VmPeak:");
    if (!p)
        return 0;
    p += 7;
    while (*p == ' ' || *p == '\t')
        p++;
    long long kb = 0;
    while (*p >= '0' && *p <= '9')
        kb = kb * 10 + (*p++ - '0');
    return kb * 1024;
}

static void on_fatal_signal(int sig)
{
    if (fatal.limit > 0 && vm_peak_signal_safe() >= fatal.limit / 2) {
        int fd = open(fatal.err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd >= 0) {
            if (write(fd, fatal.message, fatal.message_len) < 0) {
                /* nothing more to do: the supervisor then reports the signal */
            }
            close(fd);
            uint32_t reply[2] = {fatal.index, 1u};
            if (write(fatal.res_fd, reply, sizeof reply) < 0) {
                /* as above */
            }
        }
    }
    struct sigaction dfl = {0};
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, NULL);
    raise(sig);
}

/* A verification job: the TU parsed with the fix's files in memory; errors counted. */
static json_t *run_verify_job(CXIndex index, hs_arg_filter *args, hs_tu_input **tus, const hs_verify_job *job,
                              bool inputs, hs_extract_error *code, char **err)
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
    /* With a facts cache the supervisor keeps the verdict, by the files this parse read. */
    json_t *read = inputs ? json_array() : NULL;
    int errors = hs_count_errors_with(index, tus[job->tu], args, files, (unsigned)n, &first, read, code, err);
    free(files);
    if (errors < 0) {
        json_decref(read);
        return NULL;
    }
    json_t *r = json_pack("{s:i, s:s}", "errors", (json_int_t)errors, "first", first ? first : "");
    if (read)
        json_object_set_new(r, "inputs", read);
    free(first);
    return r;
}

/* A cache hit: the TU's facts file linked into place as the result (facts_cache.c). */
static bool fetch_cached(hs_facts_cache *cache, const char *tmpdir, uint32_t i, const hs_tu_input *in,
                         const char *root)
{
    char *path = result_path(tmpdir, i, "json");
    bool ok = hs_facts_cache_fetch(cache, in, root, path);
    free(path);
    return ok;
}

/* hs_key_log_reader_update's callback: another worker's key for the cache. */
static void learn_key(bool header, const unsigned char *key, void *user)
{
    hs_extract_cache_learn(user, header, key);
}

/* The last TU's new keys as <tmpdir>/<index>.keys, for the supervisor to share once it
 * merges the TU's facts. Best effort: without the file the keys stay this worker's. */
static void write_keys_file(hs_extract_cache *cache, const char *tmpdir, uint32_t i)
{
    const unsigned char(*body)[16], (*headers)[16];
    size_t nbody, nheaders;
    hs_extract_cache_pending(cache, &body, &nbody, &headers, &nheaders);
    if (nbody + nheaders == 0)
        return;
    size_t len;
    unsigned char *rec = hs_key_log_record(i, body, nbody, headers, nheaders, &len);
    char *path = result_path(tmpdir, i, "keys");
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    bool ok = fd >= 0 && write_all(fd, rec, len);
    if (fd >= 0 && close(fd) != 0)
        ok = false;
    if (!ok)
        unlink(path);
    free(path);
    free(rec);
}

static void worker_main(int cmd_fd, int res_fd, hs_tu_input **tus, const hs_pool_options *opt,
                        const char *tmpdir, int key_fd)
{
    if (opt->tu_memory > 0) {
        struct rlimit rl = {(rlim_t)opt->tu_memory, (rlim_t)opt->tu_memory};
        setrlimit(RLIMIT_AS, &rl);
        fatal.limit = opt->tu_memory;
        fatal.res_fd = res_fd;
        char *msg = out_of_memory_message(opt->tu_memory);
        fatal.message_len = (size_t)snprintf(fatal.message, sizeof fatal.message, "%s", msg);
        if (fatal.message_len >= sizeof fatal.message)
            fatal.message_len = sizeof fatal.message - 1;
        free(msg);
        struct sigaction sa = {0};
        sa.sa_handler = on_fatal_signal;
        sigaction(SIGABRT, &sa, NULL);
        sigaction(SIGSEGV, &sa, NULL);
        sigaction(SIGBUS, &sa, NULL);
    }
    CXIndex index = clang_createIndex(0, 0);
    /* The options libclang does not know, left out of every parse (arg_filter.c). */
    hs_arg_filter *args = hs_arg_filter_create();
    /* Header functions this worker walked (extract.h): extraction only, not verification's
     * reparses of edited files, and not when each TU's full facts are wanted. */
    hs_extract_cache *cache = NULL;
    if (!opt->verify_jobs && !opt->full_facts && !getenv("HOTSCAN_BENCH_NO_HEADER_SKIP"))
        cache = hs_extract_cache_create();
    /* And the other workers' (key_log.c), when the supervisor shares them. */
    hs_key_log_reader *keys = cache && key_fd >= 0 ? hs_key_log_reader_create(key_fd) : NULL;
    /* Each TU's facts document is built in this arena and dropped whole (json_arena.h). */
    hs_json_arena *arena = hs_json_arena_create();
    uint32_t i;
    while (read_all(cmd_fd, &i, sizeof i)) {
        const hs_tu_input *in = opt->verify_jobs ? tus[opt->verify_jobs[i].tu] : tus[i];
        fatal.index = i;
        snprintf(fatal.err_path, sizeof fatal.err_path, "%s/%u.err", tmpdir, i);
        maybe_misbehave(in->file);
        char *err = NULL;
        hs_extract_error code = HS_EXTRACT_OK;
        json_t *facts = NULL;
        bool cached = false;
        struct stat dst;
        /* the check the no-build reader makes too (source_file.h): a FIFO, a device, a
         * dangling link or an unreadable file is this TU's error, not a parse */
        char *problem = !opt->verify_jobs && stat(in->directory, &dst) == 0 ? hs_source_file_problem(in->file)
                                                                            : NULL;
        if (problem) {
            err = hs_printf("cannot read %s: %s", in->file, problem);
            free(problem);
        } else if (opt->verify_jobs)
            facts = run_verify_job(index, args, tus, &opt->verify_jobs[i], opt->cache != NULL, &code, &err);
        else if (opt->cache && (cached = fetch_cached(opt->cache, tmpdir, i, in, opt->root)))
            ; /* its facts file is in place */
        else {
            size_t walked, skipped_before, skipped_after;
            if (keys)
                hs_key_log_reader_update(keys, i, learn_key, cache); /* TUs below i only */
            hs_extract_cache_counts(cache, &walked, &skipped_before);
            long long parse_start = hs_facts_cache_clock();
            hs_json_arena_enter(arena);
            facts = hs_extract_tu_cached(index, in, opt->rd, opt->root, cache, args, &code, &err);
            hs_json_arena_leave(arena);
            hs_extract_cache_counts(cache, &walked, &skipped_after);
            json_t *inputs = facts ? json_incref(json_object_get(facts, "inputs")) : NULL;
            if (facts) {
                json_object_del(facts, "inputs");
                /* A cache entry must be whole: not one that left out a body (--facts-out). */
                if (skipped_after == skipped_before)
                    hs_facts_cache_put(opt->cache, in, opt->root, facts, inputs, parse_start);
            }
            json_decref(inputs);
        }
        bool crashed = false;
        int write_err = 0;
        if (cached) {
            /* A facts-cache hit: the result file is in place, and nothing was walked. */
        } else if (facts) {
            char *path = result_path(tmpdir, i, "json");
            char *text = hs_facts_dumps(facts); /* json_dumps(facts, JSON_COMPACT), faster */
            write_err = text ? write_text_file(path, text) : ENOMEM;
            bool written = write_err == 0;
            free(text);
            if (write_err) {
                char *msg = hs_printf("could not write the TU's facts to the temporary directory "
                                      "%s: %s", tmpdir, strerror(write_err));
                char *epath = result_path(tmpdir, i, "err");
                if (write_text_file(epath, msg) == 0)
                    write_err = 0; /* the .err file says it */
                free(epath);
                free(msg);
            }
            free(path);
            /* Built wholly in the arena, the document goes with its reset below: json_decref
             * would only walk it to free nothing (about 0.5% of the worker on the 20-TU haproxy
             * subset, docs/performance.md session 32). */
            if (!hs_json_arena_holds_all(arena))
                json_decref(facts);
            /* Written: the supervisor merges it (a .err result is not merged), and then
             * shares its keys. */
            if (written && keys)
                write_keys_file(cache, tmpdir, i);
            if (written)
                hs_extract_cache_commit(cache);
            else
                hs_extract_cache_discard(cache);
        } else {
            hs_extract_cache_discard(cache);
            crashed = code == HS_EXTRACT_CRASHED;
            if (crashed && opt->tu_memory > 0 && vm_peak() >= opt->tu_memory / 2) {
                /* Allocations grow by doubling: a failed one near the cap is the cap. */
                free(err);
                err = out_of_memory_message(opt->tu_memory);
            }
            char *epath = result_path(tmpdir, i, "err");
            write_err = write_text_file(epath, err ? err : "unknown error");
            free(epath);
            free(err);
        }
        hs_json_arena_reset(arena); /* the TU's document is gone: facts and inputs */
        /* After a recovered crash libclang's state is suspect: say so, and start afresh.
         * A result that could not be written at all (a full disk) travels as its errno. */
        uint32_t reply[2] = {i, (crashed ? 1u : 0u) | (cached ? 2u : 0u) | ((uint32_t)(write_err & 0xffff) << 8)};
        if (!write_all(res_fd, reply, sizeof reply))
            break;
        if (crashed)
            break;
    }
    if (cache && getenv("HOTSCAN_BENCH_HEADER_SKIP_STATS")) {
        size_t walked, skipped;
        hs_extract_cache_counts(cache, &walked, &skipped);
        size_t disagreements, by_header = hs_extract_cache_skipped_by_header(cache, &disagreements);
        char *check = getenv("HOTSCAN_BENCH_CHECK_HEADER_SKIP")
                          ? hs_printf("; checked against the body digest: %zu disagree", disagreements)
                          : hs_xstrdup("");
        size_t kept_headers, kept = hs_extract_cache_kept(cache, &kept_headers);
        size_t unreferenced_walks, unreferenced = hs_extract_cache_unreferenced(cache, &unreferenced_walks);
        char *liveness = unreferenced ? hs_printf("; %zu not referred to in their TU, %zu of them walked as the "
                                                  "first of their text",
                                                  unreferenced, unreferenced_walks)
                                      : hs_xstrdup("");
        fprintf(stderr, "hotscan: worker %d: header function bodies walked %zu, skipped %zu (%zu by the header's "
                        "prefix key%s; %zu by other workers' keys%s); not shared: %zu body and %zu prefix keys\n",
                (int)getpid(), walked, skipped, by_header, check, hs_extract_cache_skipped_learned(cache), liveness,
                kept, kept_headers);
        free(liveness);
        free(check);
    }
    hs_key_log_reader_delete(keys);
    hs_json_arena_delete(arena);
    hs_extract_cache_delete(cache);
    hs_arg_filter_delete(args);
    clang_disposeIndex(index);
    _exit(0);
}

static bool spawn(worker *w, hs_tu_input **tus, const hs_pool_options *opt, const char *tmpdir,
                  worker *all, int nworkers, const key_share *ks)
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
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        close(cmd[0]);
        close(cmd[1]);
        close(res[0]);
        close(res[1]);
        return false;
    }
    if (pid == 0) {
        /* The supervisor's signal cleanup is not ours, and we die with it. */
        hs_cleanup_in_child();
        hs_malloc_for_parsing(); /* libclang's parse: glibc's default (common.h) */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(0);
        close(cmd[1]);
        close(res[0]);
        /* Other workers' pipes must not stay open here, or their deaths go unseen. */
        for (int k = 0; k < nworkers; k++) {
            if (&all[k] != w && all[k].pid > 0) {
                close(all[k].cmd_fd);
                close(all[k].res_fd);
            }
        }
        /* Only the supervisor appends to the key log (key_log.c). */
        if (ks->append_fd >= 0)
            close(ks->append_fd);
        worker_main(cmd[0], res[1], tus, opt, tmpdir, ks->append_fd >= 0 ? ks->read_fd : -1);
    }
    hs_cleanup_add_pid(pid);
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
    hs_cleanup_forget_pid(w->pid);
    w->pid = 0;
}

static char *death_reason(int status, const struct rusage *ru, long long mem_limit)
{
    /* Killed by a signal after growing to half the cap or more: the cap, most likely. */
    if (WIFSIGNALED(status) && mem_limit > 0 && (long long)ru->ru_maxrss * 1024 >= mem_limit / 2)
        return out_of_memory_message(mem_limit);
    /* libclang's parse runs under its crash recovery (a crash there comes back as an
     * error, not a dead worker), so a dead worker is as likely hotscan's own walk or a
     * cursor query during it: the message names neither. */
    if (WIFSIGNALED(status))
        return hs_printf("the worker crashed on this TU, in libclang or in hotscan's analysis (signal %d: %s); "
                         "this TU was skipped",
                         WTERMSIG(status), strsignal(WTERMSIG(status)));
    return hs_printf("the worker exited unexpectedly on this TU (status %d); this TU was skipped",
                     WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/*
 * A worker's facts file, parsed from one mapping of it: json_load_file reads a byte at a
 * time through stdio, which cost about as much as the parse of the JSON itself.
 */
static json_t *load_facts(const char *path, json_error_t *jerr)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(jerr->text, sizeof jerr->text, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    json_t *facts = NULL;
    if (fstat(fd, &st) != 0 || st.st_size <= 0) {
        snprintf(jerr->text, sizeof jerr->text, "%s is empty or unreadable", path);
    } else {
        void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) {
            snprintf(jerr->text, sizeof jerr->text, "cannot map %s: %s", path, strerror(errno));
        } else {
            facts = hs_facts_loadb(map, (size_t)st.st_size, jerr); /* model/facts_json.c */
            munmap(map, (size_t)st.st_size);
        }
    }
    close(fd);
    return facts;
}

static void collect(const char *tmpdir, uint32_t i, int write_err, hs_tu_result *r)
{
    if (write_err) {
        r->error = hs_printf("could not write the TU's result to the temporary directory %s: %s "
                             "(set TMPDIR to a folder with room)", tmpdir, strerror(write_err));
        return;
    }
    char *path = result_path(tmpdir, i, "json");
    json_error_t jerr;
    r->facts = load_facts(path, &jerr);
    if (r->facts) {
        unlink(path);
    } else {
        char *epath = result_path(tmpdir, i, "err");
        char *msg = hs_read_file(epath, NULL);
        r->error = msg ? msg : hs_printf("facts unreadable: %s", jerr.text);
        unlink(epath);
        free(epath);
    }
    free(path);
}

typedef struct {
    size_t records, keys;
    uint32_t tu;
} record_count;

static void count_record(const hs_key_record *r, void *user)
{
    record_count *c = user;
    c->records++;
    c->keys += (size_t)r->nbody + r->nheaders;
    c->tu = r->tu;
}

/*
 * TU i's facts were loaded for the merge: its worker's new header-skip keys, if it wrote any
 * (<i>.keys, one whole record of TU i), go to the key log for the other workers, with one
 * write (key_log.c says why the supervisor appends them, and only now).
 */
static void share_keys(key_share *ks, const char *tmpdir, uint32_t i)
{
    if (ks->append_fd < 0)
        return;
    char *path = result_path(tmpdir, i, "keys");
    size_t len = 0;
    unsigned char *rec = (unsigned char *)hs_read_file(path, &len);
    unlink(path);
    free(path);
    record_count c = {0, 0, 0};
    if (!rec || ks->stopped || hs_key_log_parse(rec, len, count_record, &c) != len || c.records != 1 || c.tu != i) {
        free(rec);
        return;
    }
    if (ks->bytes + len > HS_KEY_LOG_MAX_BYTES) {
        ks->stopped = true;
    } else {
        ssize_t w;
        do
            w = write(ks->append_fd, rec, len);
        while (w < 0 && errno == EINTR);
        if (w == (ssize_t)len) {
            ks->bytes += len;
            ks->records++;
            ks->keys += c.keys;
        } else {
            /* A short write leaves a torn record at the end, where readers wait: append
             * nothing more after it. */
            ks->stopped = true;
        }
    }
    free(rec);
}

static void close_key_share(key_share *ks)
{
    if (ks->append_fd >= 0)
        close(ks->append_fd);
    if (ks->read_fd >= 0)
        close(ks->read_fd);
    ks->append_fd = ks->read_fd = -1;
}

/* A run directory is `hotscan-` and six mkstemp characters. */
static bool is_run_dir_name(const char *name)
{
    if (strncmp(name, "hotscan-", 8) != 0 || strlen(name) != 14)
        return false;
    for (const char *p = name + 8; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
            return false;
    return true;
}

/*
 * Removes the run directories of dead runs in `base`: ours (same owner), older than a minute
 * (a run flocks its directory right after creating it), and not locked (a live run holds
 * the lock until it is done).
 */
static void remove_stale_run_dirs(const char *base)
{
    DIR *d = opendir(base);
    if (!d)
        return;
    time_t now = time(NULL);
    struct dirent *ent;
    while ((ent = readdir(d)) != NULL) {
        if (!is_run_dir_name(ent->d_name))
            continue;
        struct stat st;
        if (fstatat(dirfd(d), ent->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode) ||
            st.st_uid != geteuid() || now - st.st_mtime < 60)
            continue;
        char *path = hs_path_join(base, ent->d_name);
        int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0)
            hs_remove_temp_dir(path);
        if (fd >= 0)
            close(fd);
        free(path);
    }
    closedir(d);
}

long long hs_tu_memory_default(int workers)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    long long total = pages > 0 && page > 0 ? (long long)pages * page : 8LL << 30;
    long long share = total / 4 * 3 / (workers > 0 ? workers : 1);
    return share < (2LL << 30) ? 2LL << 30 : share;
}

#if defined(__SANITIZE_ADDRESS__)
#define HS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HS_ASAN 1
#endif
#endif

bool hs_tu_memory_enforced(void)
{
#ifdef HS_ASAN
    return false;
#else
    return true;
#endif
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
    const char *base = tmp && tmp[0] ? tmp : "/tmp";
    remove_stale_run_dirs(base);
    char *tmpdir = hs_printf("%s/hotscan-XXXXXX", base);
    sigset_t all, old_mask;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old_mask); /* no signal between mkdtemp and registering it */
    bool made = mkdtemp(tmpdir) != NULL;
    int saved = errno;
    if (made)
        hs_cleanup_add_dir(tmpdir);
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
    if (!made) {
        *err = hs_printf("%s: cannot create a temporary directory: %s", tmpdir, strerror(saved));
        free(tmpdir);
        return false;
    }
    int dir_lock = open(tmpdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir_lock >= 0 && flock(dir_lock, LOCK_EX | LOCK_NB) != 0) {
        /* not fatal: only a later run's clean-up of dead runs relies on it */
    }
    struct sigaction ign = {0}, old_pipe;
    ign.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ign, &old_pipe);

    int nworkers = opt->jobs > 0 ? opt->jobs : 1;
    if ((size_t)nworkers > n)
        nworkers = (int)n;
    /* Shared header-skip keys: where the workers skip header bodies at all (worker_main), and
     * there is another worker to share with. */
    key_share ks = {-1, -1, 0, 0, 0, false};
    if (nworkers > 1 && !opt->verify_jobs && !opt->full_facts && !getenv("HOTSCAN_BENCH_NO_HEADER_SKIP") &&
        !getenv("HOTSCAN_BENCH_NO_SHARED_KEYS")) {
        char *kpath = hs_printf("%s/keys", tmpdir);
        ks.append_fd = open(kpath, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600);
        ks.read_fd = ks.append_fd >= 0 ? open(kpath, O_RDONLY | O_CLOEXEC) : -1;
        if (ks.read_fd < 0 && ks.append_fd >= 0) {
            close(ks.append_fd);
            ks.append_fd = -1;
        }
        free(kpath);
    }
    hs_pool_options capped = *opt;
    if (capped.tu_memory == HS_TU_MEMORY_DEFAULT)
        capped.tu_memory = hs_tu_memory_default(nworkers);
    if (!hs_tu_memory_enforced())
        capped.tu_memory = 0;
    opt = &capped;
    worker *ws = hs_xcalloc((size_t)nworkers, sizeof *ws);
    for (int k = 0; k < nworkers; k++) {
        if (!spawn(&ws[k], tus, opt, tmpdir, ws, nworkers, &ks)) {
            if (k == 0) {
                *err = hs_printf("cannot start a worker process: %s", strerror(errno));
                close_key_share(&ks);
                free(ws);
                hs_remove_temp_dir(tmpdir);
                hs_cleanup_forget_path(tmpdir);
                if (dir_lock >= 0)
                    close(dir_lock);
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
    hs_json_arena *arena = opt->on_result && opt->on_result_drops_facts ? hs_json_arena_create() : NULL;
    struct pollfd *pfds = hs_xcalloc((size_t)nworkers, sizeof *pfds);
    const char *serial_hook = getenv("HOTSCAN_TEST_SERIAL_WORKERS"); /* test hook (top of file) */
    bool serial = serial_hook && serial_hook[0];
    int last = nworkers - 1;
    while (done < n) {
        /* Hand out work. */
        for (int j = 0; j < nworkers; j++) {
            int k = serial ? (last + 1 + j) % nworkers : j;
            worker *w = &ws[k];
            if (w->pid == 0 && next < n)
                spawn(w, tus, opt, tmpdir, ws, nworkers, &ks);
            if (w->pid > 0 && w->busy < 0 && next < n && (!serial || done == next)) {
                uint32_t idx = (uint32_t)next;
                if (write_all(w->cmd_fd, &idx, sizeof idx)) {
                    w->busy = (long)next++;
                    w->started = hs_now_seconds();
                    last = k;
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
                    int write_err = (int)(reply[1] >> 8);
                    if (write_err)
                        collect(tmpdir, idx, write_err, &results[idx]); /* the error, now */
                    if (opt->on_result)
                        ready[idx] = true; /* loaded when its turn comes */
                    else if (!write_err)
                        collect(tmpdir, idx, 0, &results[idx]);
                    if (!opt->on_result && results[idx].facts)
                        share_keys(&ks, tmpdir, idx);
                    results[idx].seconds = now - w->started;
                    results[idx].from_cache = (reply[1] & 2u) != 0;
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
                struct rusage ru = {0};
                wait4(w->pid, &status, 0, &ru);
                hs_cleanup_forget_pid(w->pid);
                w->pid = 0;
                if (w->busy >= 0) {
                    results[w->busy].error = death_reason(status, &ru, opt->tu_memory);
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
                    hs_printf("parsing took longer than %g s (--tu-timeout); this TU was skipped",
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
                /* The document is read into the arena and dropped by on_result; what the
                 * merge makes to keep (the model, error entries) is malloc's. */
                hs_json_arena_enter(arena);
                if (!r->error)
                    collect(tmpdir, (uint32_t)delivered, 0, r);
                hs_json_arena_leave(arena);
                if (r->facts)
                    share_keys(&ks, tmpdir, (uint32_t)delivered);
                opt->on_result(delivered, r, opt->user);
                hs_json_arena_reset(arena);
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
    if (ks.append_fd >= 0 && getenv("HOTSCAN_BENCH_HEADER_SKIP_STATS"))
        fprintf(stderr, "hotscan: shared header-skip keys: %zu records, %zu keys, %zu bytes%s\n", ks.records,
                ks.keys, ks.bytes, ks.stopped ? " (then stopped)" : "");
    close_key_share(&ks);
    free(pfds);
    free(ws);
    free(ready);
    hs_json_arena_delete(arena);
    hs_remove_temp_dir(tmpdir);
    hs_cleanup_forget_path(tmpdir);
    if (dir_lock >= 0)
        close(dir_lock);
    free(tmpdir);
    sigaction(SIGPIPE, &old_pipe, NULL);
    return true;
}
