/*
 * corpus_runner.c - checks hotscan against the cases in corpus/.
 *
 * A case is real-looking C or C++ whose expectations sit on the lines themselves, in the
 * spirit of clang's -verify tests:
 *
 *     t0 = clock();                 // expect: timer-hot-path
 *     t1 = clock();                 // expect: timer-duplicate, timer-hot-path
 *
 * A line that names rules must carry exactly those findings (a rule named twice means two
 * findings); every other line of every file in the case must carry none. A line
 *
 *     // hotscan-args: --hot trx_start_low --disable os-event
 *
 * anywhere in a case adds those words to the hotscan command line. Both markers may also be
 * written as block comments.
 *
 * Usage: corpus_runner --hotscan PATH [--verbose] CASE...
 *
 * A CASE that is a source file (.c .cc .cpp .cxx) is a one-file case. A directory given on
 * the command line is a suite: every source file directly inside it is a one-file case, and
 * every subdirectory is one multi-TU case, whose source files (at any depth) are all its
 * translation units and whose headers may carry expectations too.
 *
 * hotscan runs once per case, from a fresh empty directory (so that no
 * compile_commands.json is found and every file is parsed with default flags), as
 *
 *     hotscan scan --format json --root ROOT [hotscan-args...] ABSOLUTE-TU...
 *
 * where ROOT is the case directory, or the directory holding a one-file case. The runner
 * prints PASS or FAIL per case, a MISSING or UNEXPECTED line for each difference, and last
 * the line "N passed, M failed", which CI reads. It exits 0 only when every case passes.
 *
 * Plain C11 plus POSIX and jansson, so it builds without the rest of hotscan.
 */
#define _XOPEN_SOURCE 700

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- small helpers --------------------------------------------------------------- */

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fputs("corpus_runner: out of memory\n", stderr);
        abort();
    }
    return q;
}

static char *xstrndup(const char *s, size_t n)
{
    char *d = xrealloc(NULL, n + 1);
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

static char *xstrdup(const char *s) { return xstrndup(s, strlen(s)); }

static char *xprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        abort();
    char *s = xrealloc(NULL, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

/* A growable array of owned strings. */
typedef struct {
    char **items;
    size_t len, cap;
} strvec;

static void strvec_push(strvec *v, char *owned)
{
    if (v->len == v->cap) {
        v->cap = v->cap ? 2 * v->cap : 8;
        v->items = xrealloc(v->items, v->cap * sizeof *v->items);
    }
    v->items[v->len++] = owned;
}

static void strvec_free(strvec *v)
{
    for (size_t i = 0; i < v->len; i++)
        free(v->items[i]);
    free(v->items);
    v->items = NULL;
    v->len = v->cap = 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t len = 0, cap = 4096;
    char *buf = xrealloc(NULL, cap);
    size_t n;
    while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (cap - len - 1 == 0) {
            cap *= 2;
            buf = xrealloc(buf, cap);
        }
    }
    fclose(f);
    buf[len] = '\0';
    return buf;
}

static bool has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* `foo.fixed.c` holds the expected result of applying foo.c's fix-its: not a case. */
static bool is_expected_fix(const char *name)
{
    return strstr(name, ".fixed.") != NULL;
}

static bool is_source(const char *name)
{
    if (is_expected_fix(name))
        return false;
    return has_suffix(name, ".c") || has_suffix(name, ".cc") || has_suffix(name, ".cpp") ||
           has_suffix(name, ".cxx");
}

static bool is_header(const char *name)
{
    if (is_expected_fix(name))
        return false;
    return has_suffix(name, ".h") || has_suffix(name, ".hh") || has_suffix(name, ".hpp") ||
           has_suffix(name, ".hxx") || has_suffix(name, ".inc");
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The entries of a directory, sorted, without hidden ones; false when it cannot be read. */
static bool list_dir(const char *path, strvec *out)
{
    DIR *d = opendir(path);
    if (!d)
        return false;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.')
            strvec_push(out, xstrdup(e->d_name));
    closedir(d);
    if (out->len)
        qsort(out->items, out->len, sizeof *out->items, cmp_str);
    return true;
}

static void remove_tree(const char *path)
{
    strvec names = {0};
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL)
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
                strvec_push(&names, xstrdup(e->d_name));
        closedir(d);
    }
    for (size_t i = 0; i < names.len; i++) {
        char *child = xprintf("%s/%s", path, names.items[i]);
        struct stat st;
        if (lstat(child, &st) == 0 && S_ISDIR(st.st_mode))
            remove_tree(child);
        else
            unlink(child);
        free(child);
    }
    strvec_free(&names);
    rmdir(path);
}

/* ---- cases ----------------------------------------------------------------------- */

/* One expected finding: `count` findings of `rule` on `file`:`line`. */
typedef struct {
    char *file; /* relative to the case root */
    int line;
    char *rule;
    bool matched;
} expectation;

typedef struct {
    char *name;      /* as shown: the command-line path, extended */
    char *root;      /* absolute; passed as --root */
    strvec tus;      /* absolute paths of the translation units */
    strvec files;    /* every source and header file, relative to root */
    strvec args;     /* words from hotscan-args lines */
    expectation *expected;
    size_t n_expected, cap_expected;
} corpus_case;

static void case_free(corpus_case *c)
{
    free(c->name);
    free(c->root);
    strvec_free(&c->tus);
    strvec_free(&c->files);
    strvec_free(&c->args);
    for (size_t i = 0; i < c->n_expected; i++) {
        free(c->expected[i].file);
        free(c->expected[i].rule);
    }
    free(c->expected);
}

static void case_expect(corpus_case *c, const char *file, int line, const char *rule, size_t n)
{
    if (c->n_expected == c->cap_expected) {
        c->cap_expected = c->cap_expected ? 2 * c->cap_expected : 16;
        c->expected = xrealloc(c->expected, c->cap_expected * sizeof *c->expected);
    }
    expectation *e = &c->expected[c->n_expected++];
    e->file = xstrdup(file);
    e->line = line;
    e->rule = xstrndup(rule, n);
    e->matched = false;
}

/*
 * Where a marker such as "expect:" opens a comment on this line: the text right after
 * the marker, or NULL. Only "// marker" and "/ * marker" count (spaces allowed between),
 * so prose that merely mentions the marker is not read as one.
 */
static const char *find_marker(const char *line, const char *marker)
{
    size_t mlen = strlen(marker);
    for (const char *p = strstr(line, marker); p; p = strstr(p + 1, marker)) {
        const char *q = p;
        while (q > line && (q[-1] == ' ' || q[-1] == '\t'))
            q--;
        if (q - line >= 2 && q[-2] == '/' && (q[-1] == '/' || q[-1] == '*'))
            return p + mlen;
    }
    return NULL;
}

static bool is_rule_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '-' || ch == '_';
}

/* Reads one line's markers into the case. `line` is NUL-terminated, without its newline. */
static void parse_line(corpus_case *c, const char *file, int lineno, const char *line)
{
    const char *p = find_marker(line, "expect:");
    if (p) {
        /* Rule ids separated by commas or blanks; anything else ends the list. */
        for (;;) {
            while (*p == ' ' || *p == '\t' || *p == ',')
                p++;
            size_t n = 0;
            while (is_rule_char(p[n]))
                n++;
            if (n == 0)
                break;
            case_expect(c, file, lineno, p, n);
            p += n;
        }
    }
    p = find_marker(line, "hotscan-args:");
    if (p) {
        const char *end = strstr(p, "*/");
        if (!end)
            end = p + strlen(p);
        while (p < end) {
            while (p < end && (*p == ' ' || *p == '\t'))
                p++;
            const char *w = p;
            while (p < end && *p != ' ' && *p != '\t')
                p++;
            if (p > w)
                strvec_push(&c->args, xstrndup(w, (size_t)(p - w)));
        }
    }
}

static bool parse_file(corpus_case *c, const char *rel)
{
    char *path = xprintf("%s/%s", c->root, rel);
    char *text = read_file(path);
    if (!text) {
        fprintf(stderr, "corpus_runner: cannot read %s: %s\n", path, strerror(errno));
        free(path);
        return false;
    }
    int lineno = 1;
    for (char *line = text; *line; lineno++) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        size_t n = strlen(line);
        if (n && line[n - 1] == '\r')
            line[n - 1] = '\0';
        parse_line(c, rel, lineno, line);
        if (!nl)
            break;
        line = nl + 1;
    }
    free(text);
    free(path);
    return true;
}

/* Adds the sources and headers under root/rel (rel may be "") to a multi-TU case. */
static bool collect_tree(corpus_case *c, const char *rel)
{
    char *dir = *rel ? xprintf("%s/%s", c->root, rel) : xstrdup(c->root);
    strvec names = {0};
    bool ok = list_dir(dir, &names);
    if (!ok)
        fprintf(stderr, "corpus_runner: cannot list %s: %s\n", dir, strerror(errno));
    for (size_t i = 0; ok && i < names.len; i++) {
        char *child_rel = *rel ? xprintf("%s/%s", rel, names.items[i]) : xstrdup(names.items[i]);
        char *child = xprintf("%s/%s", c->root, child_rel);
        if (is_dir(child))
            ok = collect_tree(c, child_rel);
        else if (is_source(names.items[i]) || is_header(names.items[i])) {
            if (is_source(names.items[i]))
                strvec_push(&c->tus, xstrdup(child));
            strvec_push(&c->files, xstrdup(child_rel));
        }
        free(child);
        free(child_rel);
    }
    strvec_free(&names);
    free(dir);
    return ok;
}

/*
 * Fills a case from `path` (shown as `name`): a source file, or with `multi` a directory
 * holding a multi-TU case. False when it cannot be read.
 */
static bool case_load(corpus_case *c, const char *path, const char *name, bool multi)
{
    memset(c, 0, sizeof *c);
    c->name = xstrdup(name);
    char *abs = realpath(path, NULL);
    if (!abs) {
        fprintf(stderr, "corpus_runner: %s: %s\n", path, strerror(errno));
        return false;
    }
    bool ok = true;
    if (multi) {
        c->root = abs;
        ok = collect_tree(c, "");
    } else {
        char *slash = strrchr(abs, '/');
        c->root = xstrndup(abs, slash == abs ? 1 : (size_t)(slash - abs));
        strvec_push(&c->files, xstrdup(slash + 1));
        strvec_push(&c->tus, abs);
    }
    for (size_t i = 0; ok && i < c->files.len; i++)
        ok = parse_file(c, c->files.items[i]);
    return ok;
}

/* ---- running hotscan ------------------------------------------------------------- */

typedef struct {
    const char *hotscan; /* as given, or made absolute when it names a path */
    bool verbose;
} options;

typedef struct {
    char *out; /* stdout */
    char *err; /* stderr */
    int status; /* exit status, or -1 when killed by a signal */
    int signal; /* the signal that killed it, when status is -1 */
} run_result;

static void print_command(const char *tmp, char *const argv[])
{
    printf("  cd %s &&", tmp);
    for (size_t i = 0; argv[i]; i++)
        printf(" %s", argv[i]);
    putchar('\n');
}

static bool run_argv(const options *o, char **argv, run_result *r);
static bool run_hotscan_with(const options *o, const corpus_case *c, const char *extra, run_result *r);

/* Runs hotscan on a case from a fresh temporary directory. False when it could not run. */
static bool run_hotscan(const options *o, const corpus_case *c, run_result *r)
{
    return run_hotscan_with(o, c, NULL, r);
}

/* The same, with one extra option (e.g. "--fix") before the files. */
static bool run_hotscan_with(const options *o, const corpus_case *c, const char *extra, run_result *r)
{
    size_t argc = 0, cap = 9 + c->args.len + c->tus.len;
    char **argv = xrealloc(NULL, cap * sizeof *argv);
    argv[argc++] = (char *)o->hotscan;
    argv[argc++] = "scan";
    argv[argc++] = "--format";
    argv[argc++] = "json";
    argv[argc++] = "--root";
    argv[argc++] = c->root;
    for (size_t i = 0; i < c->args.len; i++)
        argv[argc++] = c->args.items[i];
    if (extra)
        argv[argc++] = (char *)extra;
    for (size_t i = 0; i < c->tus.len; i++)
        argv[argc++] = c->tus.items[i];
    argv[argc] = NULL;
    bool ran = run_argv(o, argv, r);
    free(argv);
    return ran;
}

/* Runs argv from a fresh temporary directory, capturing its output. */
static bool run_argv(const options *o, char **argv, run_result *r)
{
    memset(r, 0, sizeof *r);
    const char *tmpbase = getenv("TMPDIR");
    char *tmp = xprintf("%s/hotscan-corpus-XXXXXX", tmpbase && *tmpbase ? tmpbase : "/tmp");
    if (!mkdtemp(tmp)) {
        fprintf(stderr, "corpus_runner: mkdtemp %s: %s\n", tmp, strerror(errno));
        free(tmp);
        return false;
    }

    if (o->verbose)
        print_command(tmp, argv);
    fflush(stdout);
    fflush(stderr);

    char *out_path = xprintf("%s/stdout", tmp), *err_path = xprintf("%s/stderr", tmp);
    bool ran = false;
    pid_t pid = fork();
    if (pid == 0) {
        int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (out < 0 || err < 0 || chdir(tmp) != 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
            _exit(127);
        close(out);
        close(err);
        execvp(argv[0], argv);
        dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    } else if (pid > 0) {
        int st;
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
            ;
        r->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        r->signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
        r->err = read_file(err_path);
        r->out = read_file(out_path);
        ran = true;
    } else {
        fprintf(stderr, "corpus_runner: fork: %s\n", strerror(errno));
    }

    free(out_path);
    free(err_path);
    remove_tree(tmp);
    free(tmp);
    return ran;
}

/* ---- judging --------------------------------------------------------------------- */

/* A finding's file relative to the case root, whatever form hotscan wrote it in. */
static const char *relative_file(const corpus_case *c, const char *file)
{
    size_t n = strlen(c->root);
    if (strncmp(file, c->root, n) == 0 && file[n] == '/')
        file += n + 1;
    while (file[0] == '.' && file[1] == '/')
        file += 2;
    return file;
}

/* The path of a case file as shown in MISSING/UNEXPECTED lines. */
static char *shown_path(const corpus_case *c, bool multi, const char *rel)
{
    if (multi)
        return xprintf("%s/%s", c->name, rel);
    const char *slash = strrchr(c->name, '/');
    if (!slash)
        return xstrdup(rel);
    return xprintf("%.*s/%s", (int)(slash - c->name), c->name, rel);
}

static void show_stderr(const char *err)
{
    if (!err || !*err)
        return;
    const char *p = err;
    while (*p) {
        const char *nl = strchr(p, '\n');
        int n = nl ? (int)(nl - p) : (int)strlen(p);
        printf("  | %.*s\n", n, p);
        p += n + (nl ? 1 : 0);
    }
}

/* Compares hotscan's output with the case's expectations, printing each difference. */
static bool judge(corpus_case *c, bool multi, const run_result *r, strvec *report)
{
    if (r->status == -1) {
        strvec_push(report, xprintf("ERROR: hotscan was killed by signal %d", r->signal));
        return false;
    }
    if (r->status != 0 && r->status != 1) {
        strvec_push(report, xprintf("ERROR: hotscan exited with status %d", r->status));
        return false;
    }
    json_error_t jerr;
    json_t *doc = json_loads(r->out ? r->out : "", 0, &jerr);
    if (!doc) {
        strvec_push(report, xprintf("ERROR: hotscan output is not JSON: line %d: %s",
                                    jerr.line, jerr.text));
        return false;
    }
    bool ok = true;
    json_t *findings = json_object_get(doc, "findings");
    if (json_integer_value(json_object_get(doc, "schema_version")) != 1 ||
        !json_is_array(findings)) {
        strvec_push(report, xstrdup("ERROR: output is not schema_version 1 with a findings array"));
        json_decref(doc);
        return false;
    }
    /* A TU that failed to parse would let every negative line pass vacuously. */
    size_t i;
    json_t *item;
    json_array_foreach(json_object_get(doc, "errors"), i, item) {
        const char *file = json_string_value(json_object_get(item, "file"));
        const char *msg = json_string_value(json_object_get(item, "message"));
        strvec_push(report, xprintf("ERROR: %s: %s", file ? file : "?", msg ? msg : "?"));
        ok = false;
    }
    size_t n_findings = json_array_size(findings);
    if ((r->status == 1) != (n_findings > 0)) {
        strvec_push(report, xprintf("ERROR: exit status %d with %zu findings", r->status,
                                    n_findings));
        ok = false;
    }

    for (i = 0; i < c->n_expected; i++)
        c->expected[i].matched = false;
    json_array_foreach(findings, i, item) {
        const char *file = json_string_value(json_object_get(item, "file"));
        const char *rule = json_string_value(json_object_get(item, "rule"));
        const char *msg = json_string_value(json_object_get(item, "message"));
        json_int_t line = json_integer_value(json_object_get(item, "line"));
        const char *rel = relative_file(c, file ? file : "?");
        bool found = false;
        for (size_t k = 0; k < c->n_expected && !found; k++) {
            expectation *e = &c->expected[k];
            if (!e->matched && e->line == line && rule && strcmp(e->rule, rule) == 0 &&
                strcmp(e->file, rel) == 0)
                e->matched = found = true;
        }
        if (!found) {
            char *shown = shown_path(c, multi, rel);
            strvec_push(report, xprintf("UNEXPECTED: %s:%lld: %s: %s", shown, (long long)line,
                                        rule ? rule : "?", msg ? msg : ""));
            free(shown);
            ok = false;
        }
    }
    for (i = 0; i < c->n_expected; i++) {
        const expectation *e = &c->expected[i];
        if (e->matched)
            continue;
        char *shown = shown_path(c, multi, e->file);
        strvec_push(report, xprintf("MISSING: %s:%d: %s", shown, e->line, e->rule));
        free(shown);
        ok = false;
    }
    json_decref(doc);
    return ok;
}

/* ---- fix-its ---------------------------------------------------------------------- */

/* "dir/foo.c" -> "dir/foo.fixed.c" */
static char *expected_fix_path(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(path, '.');
    if (!dot || (slash && dot < slash))
        return xprintf("%s.fixed", path);
    return xprintf("%.*s.fixed%s", (int)(dot - path), path, dot);
}

static bool write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    bool ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok;
}

static size_t count_findings(const char *json, size_t *with_fixes)
{
    json_error_t jerr;
    json_t *doc = json_loads(json ? json : "", 0, &jerr);
    size_t n = 0, fixed = 0;
    json_t *f;
    size_t i;
    json_array_foreach(json_object_get(doc, "findings"), i, f) {
        n++;
        fixed += json_array_size(json_object_get(f, "fixes")) > 0;
    }
    json_decref(doc);
    if (with_fixes)
        *with_fixes = fixed;
    return n;
}

/* The first line where two texts differ, for the report. */
static char *first_difference(const char *got, const char *want)
{
    int line = 1;
    const char *g = got, *w = want;
    while (*g && *w && *g == *w) {
        if (*g == '\n')
            line++;
        g++;
        w++;
    }
    const char *ge = strchr(g, '\n'), *we = strchr(w, '\n');
    const char *gl = g, *wl = w;
    while (gl > got && gl[-1] != '\n')
        gl--;
    while (wl > want && wl[-1] != '\n')
        wl--;
    return xprintf("  line %d\n  got:  %.*s\n  want: %.*s", line, (int)(ge ? ge - gl : (long)strlen(gl)), gl,
                   (int)(we ? we - wl : (long)strlen(wl)), wl);
}

/* Runs a shell command in `dir`; false (with its first output lines reported) on failure. */
static bool shell_in(const char *dir, const char *command, const char *what, strvec *report)
{
    char *cmd = xprintf("cd '%s' && %s 2>&1", dir, command);
    FILE *p = popen(cmd, "r");
    char buf[512];
    strvec out = {0};
    while (p && fgets(buf, sizeof buf, p))
        if (out.len < 5)
            strvec_push(&out, xstrdup(buf));
    int st = p ? pclose(p) : -1;
    if (st != 0) {
        strvec_push(report, xprintf("%s", what));
        for (size_t k = 0; k < out.len; k++)
            strvec_push(report, xprintf("  | %.*s", (int)strcspn(out.items[k], "\n"), out.items[k]));
    }
    strvec_free(&out);
    free(cmd);
    return st == 0;
}

static bool check_fixes_via(const options *o, const corpus_case *c, bool via_patch, strvec *report);

/*
 * A case with `foo.fixed.c` beside a file: its fix-its are applied to a copy two ways,
 * `hotscan scan --patch` + `git apply` and `hotscan scan --fix`; each result must equal
 * the expected files, compile with the default flags, and rescan with the fixed findings
 * gone and nothing else changed.
 */
static bool check_fixes(const options *o, const corpus_case *c, strvec *report)
{
    return check_fixes_via(o, c, true, report) && check_fixes_via(o, c, false, report);
}

static bool check_fixes_via(const options *o, const corpus_case *c, bool via_patch, strvec *report)
{
    bool any = false;
    for (size_t i = 0; i < c->files.len && !any; i++) {
        char *src = xprintf("%s/%s", c->root, c->files.items[i]);
        char *want = expected_fix_path(src);
        any = access(want, R_OK) == 0;
        free(src);
        free(want);
    }
    if (!any)
        return true;
    const char *tmpbase = getenv("TMPDIR");
    char *tmp = xprintf("%s/hotscan-fix-XXXXXX", tmpbase && *tmpbase ? tmpbase : "/tmp");
    if (!mkdtemp(tmp)) {
        strvec_push(report, xprintf("ERROR: mkdtemp: %s", strerror(errno)));
        free(tmp);
        return false;
    }
    corpus_case copy = {0};
    copy.root = tmp;
    copy.args = c->args;
    bool ok = true;
    for (size_t i = 0; i < c->files.len && ok; i++) {
        char *src = xprintf("%s/%s", c->root, c->files.items[i]);
        char *dst = xprintf("%s/%s", tmp, c->files.items[i]);
        for (char *p = dst + strlen(tmp) + 1; (p = strchr(p, '/')) != NULL; p++) {
            *p = '\0';
            mkdir(dst, 0755);
            *p = '/';
        }
        char *text = read_file(src);
        ok = text && write_file(dst, text);
        if (is_source(c->files.items[i]))
            strvec_push(&copy.tus, xstrdup(dst));
        free(text);
        free(src);
        free(dst);
    }
    run_result r1 = {0}, r2 = {0};
    char *patch = xprintf("--patch=%s/fixes.patch", tmp);
    if (ok && !run_hotscan_with(o, &copy, via_patch ? patch : "--fix", &r1))
        ok = false;
    if (ok && via_patch)
        ok = shell_in(tmp, "git apply fixes.patch && rm fixes.patch", "ERROR: git apply rejected the --patch output",
                      report);
    free(patch);
    size_t fixed = 0, before = ok ? count_findings(r1.out, &fixed) : 0;
    if (ok && (r1.status != 0 && r1.status != 1)) {
        strvec_push(report, xprintf("ERROR: hotscan %s exited %d", via_patch ? "--patch" : "--fix", r1.status));
        ok = false;
    }
    for (size_t i = 0; ok && i < c->files.len; i++) {
        char *src = xprintf("%s/%s", c->root, c->files.items[i]);
        char *want_path = expected_fix_path(src);
        char *got_path = xprintf("%s/%s", tmp, c->files.items[i]);
        char *want = read_file(want_path), *got = read_file(got_path);
        if (want && got && strcmp(want, got) != 0) {
            char *diff = first_difference(got, want);
            strvec_push(report, xprintf("FIX MISMATCH (%s): %s/%s (expected: %s)\n%s", via_patch ? "--patch" : "--fix",
                                        c->root, c->files.items[i], want_path, diff));
            free(diff);
            ok = false;
        }
        free(src);
        free(want_path);
        free(got_path);
        free(want);
        free(got);
    }
    for (size_t i = 0; ok && i < copy.tus.len; i++) {
        const char *tu = copy.tus.items[i];
        bool is_c = has_suffix(tu, ".c");
        char *cmd = xprintf("%s -fsyntax-only %s -I . '%s'", is_c ? "cc" : "c++", is_c ? "-std=gnu17" : "-std=gnu++20", tu);
        char *what = xprintf("FIXED CODE DOES NOT COMPILE: %s", tu + strlen(tmp) + 1);
        ok = shell_in(tmp, cmd, what, report);
        free(cmd);
        free(what);
    }
    /* `run-with: FLAGS` in a fixed file: build it as a program with those flags (another
     * configuration than the scanned one, e.g. -DDBUG_OFF) and run it; it must exit 0 and
     * print what the original file, built and run the same way, prints. */
    for (size_t i = 0; ok && i < copy.tus.len; i++) {
        const char *tu = copy.tus.items[i];
        char *original = xprintf("%s/%s", c->root, tu + strlen(tmp) + 1);
        bool is_c = has_suffix(tu, ".c");
        const char *compiler = is_c ? "cc -std=gnu17" : "c++ -std=gnu++20";
        char *text = read_file(tu);
        for (const char *at = text; ok && at && (at = strstr(at, "run-with:")) != NULL; at++) {
            size_t len = strcspn(at + 9, "\n*");
            char *flags = xprintf("%.*s", (int)len, at + 9);
            char *cmd = xprintf("%s %s -I . '%s' -o ./run-with.out && ./run-with.out >run-with.original", compiler,
                                flags, original);
            char *what = xprintf("ORIGINAL CODE FAILS WHEN BUILT AND RUN WITH%s: %s", flags, original);
            ok = shell_in(tmp, cmd, what, report);
            free(cmd);
            free(what);
            cmd = xprintf("%s %s -I . '%s' -o ./run-with.out && ./run-with.out >run-with.fixed", compiler, flags, tu);
            what = xprintf("FIXED CODE FAILS WHEN BUILT AND RUN WITH%s: %s", flags, tu + strlen(tmp) + 1);
            ok = ok && shell_in(tmp, cmd, what, report);
            free(cmd);
            free(what);
            what = xprintf("FIXED CODE PRINTS OTHER VALUES THAN THE ORIGINAL WHEN BUILT AND RUN WITH%s: %s", flags,
                           tu + strlen(tmp) + 1);
            ok = ok && shell_in(tmp, "diff run-with.original run-with.fixed && rm -f run-with.*", what, report);
            free(what);
            free(flags);
        }
        free(text);
        free(original);
    }
    if (ok && run_hotscan(o, &copy, &r2)) {
        size_t still_fixable = 0, after = count_findings(r2.out, &still_fixable);
        if (after != before - fixed || still_fixable) {
            strvec_push(report, xprintf("RESCAN: %zu findings before, %zu fixed, %zu after (%zu still with "
                                        "fix-its); want %zu after and none fixable",
                                        before, fixed, after, still_fixable, before - fixed));
            ok = false;
        }
    }
    if (ok && fixed == 0) {
        strvec_push(report, xstrdup("ERROR: the case has expected fixes but hotscan offered none"));
        ok = false;
    }
    free(r1.out);
    free(r1.err);
    free(r2.out);
    free(r2.err);
    strvec_free(&copy.tus);
    remove_tree(tmp);
    free(tmp);
    return ok;
}

/* Loads, runs and judges one case; prints its verdict. True when it passes. */
static bool check_case(const options *o, const char *path, const char *name, bool multi)
{
    corpus_case c;
    strvec report = {0};
    run_result r = {0};
    bool ok = case_load(&c, path, name, multi);
    if (ok && c.tus.len == 0) {
        strvec_push(&report, xstrdup("ERROR: no source files in the case"));
        ok = false;
    }
    if (ok)
        ok = run_hotscan(o, &c, &r);
    if (ok)
        ok = judge(&c, multi, &r, &report);
    if (ok)
        ok = check_fixes(o, &c, &report);
    printf("%s %s\n", ok ? "PASS" : "FAIL", name);
    for (size_t i = 0; i < report.len; i++)
        printf("%s\n", report.items[i]);
    if (!ok)
        show_stderr(r.err);
    fflush(stdout);
    strvec_free(&report);
    free(r.out);
    free(r.err);
    case_free(&c);
    return ok;
}

/* ---- main ------------------------------------------------------------------------ */

static void usage(FILE *f)
{
    fputs("usage: corpus_runner --hotscan PATH [--verbose] CASE...\n"
          "  CASE: a .c/.cc/.cpp file (one case), or a suite directory whose source files\n"
          "        are one-file cases and whose subdirectories are multi-TU cases\n",
          f);
}

int main(int argc, char **argv)
{
    options o = {0};
    char *hotscan_abs = NULL;
    int first = argc;
    /* Every case parses: the facts cache (tested in tests/cli) would otherwise fill
     * $XDG_CACHE_HOME with the cases' facts, one set per build of hotscan. */
    setenv("HOTSCAN_NO_CACHE", "1", 1);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--hotscan") == 0 && i + 1 < argc) {
            o.hotscan = argv[++i];
        } else if (strcmp(argv[i], "--verbose") == 0 || strcmp(argv[i], "-v") == 0) {
            o.verbose = true;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (argv[i][0] == '-' && strcmp(argv[i], "--") != 0) {
            fprintf(stderr, "corpus_runner: unknown option %s\n", argv[i]);
            usage(stderr);
            return 2;
        } else {
            first = i + (strcmp(argv[i], "--") == 0);
            break;
        }
    }
    if (!o.hotscan || first >= argc) {
        usage(stderr);
        return 2;
    }
    /* hotscan runs from a temporary directory, so a relative path must be made absolute. */
    if (strchr(o.hotscan, '/')) {
        hotscan_abs = realpath(o.hotscan, NULL);
        if (!hotscan_abs) {
            fprintf(stderr, "corpus_runner: %s: %s\n", o.hotscan, strerror(errno));
            return 2;
        }
        o.hotscan = hotscan_abs;
    }

    int passed = 0, failed = 0;
    for (int i = first; i < argc; i++) {
        char *arg = xstrdup(argv[i]);
        size_t n = strlen(arg);
        while (n > 1 && arg[n - 1] == '/')
            arg[--n] = '\0';
        if (!is_dir(arg)) {
            if (check_case(&o, arg, arg, false))
                passed++;
            else
                failed++;
            free(arg);
            continue;
        }
        strvec names = {0};
        if (!list_dir(arg, &names)) {
            fprintf(stderr, "corpus_runner: cannot list %s: %s\n", arg, strerror(errno));
            failed++;
        }
        for (size_t k = 0; k < names.len; k++) {
            char *child = xprintf("%s/%s", arg, names.items[k]);
            bool multi = is_dir(child);
            if (multi || is_source(names.items[k])) {
                if (check_case(&o, child, child, multi))
                    passed++;
                else
                    failed++;
            }
            free(child);
        }
        strvec_free(&names);
        free(arg);
    }
    printf("%d passed, %d failed\n", passed, failed);
    free(hotscan_abs);
    return failed == 0 ? 0 : 1;
}
