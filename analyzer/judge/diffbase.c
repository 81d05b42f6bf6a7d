/*
 * diffbase.c - --diff-base: which lines a change touched, so a CI step on a pull request
 * reports only what the pull request brings (clang-tidy-diff's model), and a finding whose
 * hot path the change made (a new call on the path, a function on it newly marked hot)
 * counts too. git is run directly (fork and exec, no shell), its diff read with -U0.
 */
#define _GNU_SOURCE
#include "hotscan/diffbase.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hotscan/common.h"
#include "hotscan/strmap.h"

typedef struct {
    bool all;          /* an untracked (new) file */
    unsigned *ranges;  /* first, last pairs */
    size_t len, cap;   /* in unsigneds */
} changed_file;

struct hs_changed_lines {
    hs_strmap *files; /* absolute path -> changed_file* */
};

static hs_changed_lines *create(void)
{
    hs_changed_lines *c = hs_xcalloc(1, sizeof *c);
    c->files = hs_strmap_create();
    return c;
}

void hs_changed_lines_delete(hs_changed_lines *c)
{
    if (!c)
        return;
    const char *k;
    void *v;
    for (size_t it = 0; hs_strmap_next(c->files, &it, &k, &v);) {
        changed_file *f = v;
        free(f->ranges);
        free(f);
    }
    hs_strmap_delete(c->files);
    free(c);
}

static changed_file *file_of(hs_changed_lines *c, const char *path)
{
    changed_file *f = hs_strmap_get(c->files, path);
    if (!f) {
        f = hs_xcalloc(1, sizeof *f);
        hs_strmap_put(c->files, path, f);
    }
    return f;
}

void hs_changed_lines_add_file(hs_changed_lines *c, const char *file)
{
    file_of(c, file)->all = true;
}

static void add_range(changed_file *f, unsigned first, unsigned last)
{
    f->ranges = hs_array_append(f->ranges, &f->len, &f->cap, sizeof *f->ranges);
    f->ranges[f->len - 1] = first;
    f->ranges = hs_array_append(f->ranges, &f->len, &f->cap, sizeof *f->ranges);
    f->ranges[f->len - 1] = last;
}

/* A path as git prints it after "+++ ": b/NAME, or "b/NAME" C-quoted; NULL for /dev/null. */
static char *diff_path(const char *s)
{
    if (strncmp(s, "/dev/null", 9) == 0)
        return NULL;
    hs_buf b;
    hs_buf_init(&b);
    if (*s == '"') {
        for (s++; *s && *s != '"'; s++) {
            if (*s == '\\' && s[1]) {
                s++;
                static const char from[] = "ntr\"\\", to[] = "\n\t\r\"\\";
                const char *k = strchr(from, *s);
                if (k) {
                    hs_buf_append(&b, &to[k - from], 1);
                } else if (*s >= '0' && *s <= '7') {
                    char v = (char)strtol((char[]){s[0], s[1], s[2], 0}, NULL, 8);
                    hs_buf_append(&b, &v, 1);
                    s += 2;
                }
                continue;
            }
            hs_buf_append(&b, s, 1);
        }
    } else {
        size_t n = strcspn(s, "\n");
        /* A name with a space may end in a tab git adds. */
        while (n > 0 && s[n - 1] == '\t')
            n--;
        hs_buf_append(&b, s, n);
    }
    char *path = hs_buf_take(&b);
    if (strncmp(path, "b/", 2) == 0)
        memmove(path, path + 2, strlen(path + 2) + 1);
    return path;
}

hs_changed_lines *hs_changed_lines_from_diff(const char *toplevel, const char *diff)
{
    hs_changed_lines *c = create();
    changed_file *current = NULL;
    for (const char *line = diff; line && *line;) {
        const char *next = strchr(line, '\n');
        if (strncmp(line, "+++ ", 4) == 0) {
            char *rel = diff_path(line + 4);
            current = NULL;
            if (rel) {
                char *abs = hs_path_join(toplevel, rel);
                current = file_of(c, abs);
                free(abs);
                free(rel);
            }
        } else if (strncmp(line, "@@ ", 3) == 0 && current) {
            const char *plus = strstr(line, " +");
            if (plus) {
                char *end;
                unsigned long first = strtoul(plus + 2, &end, 10), count = 1;
                if (*end == ',')
                    count = strtoul(end + 1, NULL, 10);
                /* count 0: lines were only removed; no line of the new file is on them. */
                if (count > 0)
                    add_range(current, (unsigned)first, (unsigned)(first + count - 1));
            }
        }
        line = next ? next + 1 : NULL;
    }
    return c;
}

/* Runs argv (git) in `dir`; its standard output in *out. False with *err: git's standard
 * error, or why it could not run. */
static bool run_git(const char *dir, char *const argv[], char **out, char **err)
{
    int po[2], pe[2];
    if (pipe(po) != 0)
        return *err = hs_printf("cannot run git: %s", strerror(errno)), false;
    if (pipe(pe) != 0) {
        close(po[0]);
        close(po[1]);
        return *err = hs_printf("cannot run git: %s", strerror(errno)), false;
    }
    pid_t pid = fork();
    if (pid < 0) {
        *err = hs_printf("cannot run git: %s", strerror(errno));
        close(po[0]), close(po[1]), close(pe[0]), close(pe[1]);
        return false;
    }
    if (pid == 0) {
        dup2(po[1], STDOUT_FILENO);
        dup2(pe[1], STDERR_FILENO);
        close(po[0]), close(po[1]), close(pe[0]), close(pe[1]);
        if (chdir(dir) != 0)
            _exit(126);
        execvp(argv[0], argv);
        dprintf(STDERR_FILENO, "cannot run git: %s", strerror(errno));
        _exit(127);
    }
    close(po[1]);
    close(pe[1]);
    /* Read both pipes to the end: stderr is small, so reading stdout first cannot block git. */
    hs_buf ob, eb;
    hs_buf_init(&ob);
    hs_buf_init(&eb);
    char chunk[65536];
    ssize_t n;
    while ((n = read(po[0], chunk, sizeof chunk)) > 0 || (n < 0 && errno == EINTR))
        if (n > 0)
            hs_buf_append(&ob, chunk, (size_t)n);
    while ((n = read(pe[0], chunk, sizeof chunk)) > 0 || (n < 0 && errno == EINTR))
        if (n > 0)
            hs_buf_append(&eb, chunk, (size_t)n);
    close(po[0]);
    close(pe[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (ok) {
        *out = hs_buf_take(&ob);
        hs_buf_free(&eb);
        return true;
    }
    char *text = hs_buf_take(&eb);
    size_t len = strlen(text);
    while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == ' '))
        text[--len] = '\0';
    *err = len ? text : (free(text), hs_xstrdup("git failed"));
    hs_buf_free(&ob);
    return false;
}

hs_changed_lines *hs_changed_lines_from_git(const char *root, const char *ref, char **err)
{
    char *top = NULL, *gerr = NULL;
    char *const toplevel[] = {"git", "rev-parse", "--show-toplevel", NULL};
    if (!run_git(root, toplevel, &top, &gerr)) {
        *err = hs_printf("--diff-base: %s is not in a git work tree: %s", root, gerr);
        free(gerr);
        return NULL;
    }
    top[strcspn(top, "\n")] = '\0';
    char *real_top = hs_realpath(top); /* findings name real paths */
    if (real_top) {
        free(top);
        top = real_top;
    }
    /* REV is a revision, never an option of git's: rev-parse reads it after --end-of-options
     * and must find a commit; the diff then gets the commit's id, also after --end-of-options. */
    char *spec = hs_printf("%s^{commit}", ref);
    char *const verify[] = {"git", "rev-parse", "--verify", "--quiet", "--end-of-options", spec, NULL};
    char *id = NULL;
    bool known = *ref && run_git(root, verify, &id, &gerr);
    free(spec);
    free(gerr);
    gerr = NULL;
    if (known) {
        id[strcspn(id, "\n")] = '\0';
        known = strspn(id, "0123456789abcdef") == strlen(id) && strlen(id) >= 40;
    }
    if (!known) {
        *err = hs_printf("--diff-base '%s': not a commit in the git repository of %s", ref, top);
        free(id);
        free(top);
        return NULL;
    }
    char *const diff[] = {"git", "-c", "core.quotePath=false", "diff", "--no-color", "--no-ext-diff", "-U0",
                          "--src-prefix=a/", "--dst-prefix=b/", "--end-of-options", id, "--", NULL};
    char *text = NULL;
    hs_changed_lines *c = NULL;
    if (!run_git(root, diff, &text, &gerr)) {
        *err = hs_printf("--diff-base '%s': %s", ref, gerr);
        free(gerr);
    } else {
        c = hs_changed_lines_from_diff(top, text);
        free(text);
        char *const untracked[] = {"git", "ls-files", "--others", "--exclude-standard", "--full-name", "-z", NULL};
        if (run_git(root, untracked, &text, &gerr)) {
            for (const char *p = text; *p; p += strlen(p) + 1) {
                char *abs = hs_path_join(top, p);
                hs_changed_lines_add_file(c, abs);
                free(abs);
            }
            free(text);
        } else {
            free(gerr);
        }
    }
    free(id);
    free(top);
    return c;
}

bool hs_changed_lines_any(const hs_changed_lines *c, const char *file, unsigned first, unsigned last)
{
    changed_file *f = file ? hs_strmap_get(c->files, file) : NULL;
    if (!f)
        return false;
    if (f->all)
        return true;
    if (last < first)
        last = first;
    for (size_t i = 0; i + 1 < f->len; i += 2)
        if (f->ranges[i] <= last && first <= f->ranges[i + 1])
            return true;
    return false;
}

size_t hs_changed_lines_files(const hs_changed_lines *c)
{
    return hs_strmap_size(c->files);
}

static unsigned uint_of(json_t *o, const char *key)
{
    return (unsigned)json_integer_value(json_object_get(o, key));
}

static bool touches(const hs_changed_lines *c, json_t *f, const hs_strmap *functions)
{
    const char *file = json_string_value(json_object_get(f, "file"));
    if (hs_changed_lines_any(c, file, uint_of(f, "line"), uint_of(f, "end_line")))
        return true;
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(f, "related"), i, e)
        if (hs_changed_lines_any(c, json_string_value(json_object_get(e, "file")), uint_of(e, "line"),
                                 uint_of(e, "line")))
            return true;
    json_array_foreach(json_object_get(f, "hot_path"), i, e) {
        const char *sfile = json_string_value(json_object_get(e, "file"));
        if (hs_changed_lines_any(c, sfile, uint_of(e, "line"), uint_of(e, "line")))
            return true;
        if (!functions)
            continue;
        char *key = hs_printf("%s\x1f%s", json_string_value(json_object_get(e, "function")), sfile ? sfile : "");
        const hs_function *fn = hs_strmap_get(functions, key);
        free(key);
        /* The function's first line: its name, return type and attributes (a new hot attribute,
         * a changed signature). A change elsewhere in its body does not count: in a hot
         * root (redis's readQueryFromClient) it would bring back every old finding below it. */
        if (fn && hs_changed_lines_any(c, fn->file, fn->line, fn->line))
            return true;
    }
    return false;
}

size_t hs_changed_lines_mark(const hs_changed_lines *c, json_t *findings, const hs_program *p)
{
    /* Functions by (qualified name, file): what a hot-path step names. */
    hs_strmap *functions = NULL;
    if (p) {
        functions = hs_strmap_create();
        for (size_t i = 0; i < p->function_list.len; i++) {
            const hs_function *fn = p->function_list.items[i];
            if (!fn->defined || !fn->file || !fn->name)
                continue;
            char *key = hs_printf("%s\x1f%s", fn->name, fn->file);
            hs_strmap_put(functions, key, (void *)fn);
            free(key);
        }
    }
    size_t n = 0, i;
    json_t *f;
    json_array_foreach(findings, i, f) {
        if (!touches(c, f, functions)) {
            json_object_set_new(f, "outside_diff", json_true());
            n++;
        }
    }
    hs_strmap_delete(functions);
    return n;
}
