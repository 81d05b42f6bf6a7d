/*
 * codegen.c - the code a fix changes, in the instructions that make these fixes pay: x86
 * lock-prefixed read-modify-writes, xchg (a seq_cst store), mfence, rdtsc; AArch64 LSE atomics
 * (ldadd/ldaddal/..., cas/casal, swp), load-acquire and store-release (ldar/stlr) against plain
 * ldr/str, dmb barriers, the counter register; and calls to clock functions. A TU is compiled
 * with its own flags at -O2 for each target; the patched variant comes through a clang VFS
 * overlay that puts the patched files where the originals are, so include paths, generated
 * headers and the build folder stay exactly the TU's own. For a fix in a header, the TUs
 * that include it are found by preprocessing (clang -M, the same flags) and comparing the
 * prerequisites by real path: an include through another header counts, a mention does not.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hotscan/discover.h"
#include "hotscan/tempfiles.h"
#include "hotscan/validate.h"

const hs_codegen_target hs_codegen_targets[] = {
    {"x86_64", "x86_64-linux-gnu", NULL},
    /* LSE (ARMv8.1) so atomics are instructions (ldaddal), not outline-atomics helper calls. */
    {"aarch64", "aarch64-linux-gnu", "-march=armv8.1-a"},
};
const size_t hs_codegen_ntargets = sizeof hs_codegen_targets / sizeof hs_codegen_targets[0];

static const char *const clock_functions[] = {
    "clock", "time", "gettimeofday", "clock_gettime", "clock_getres", "timespec_get", "ftime",
    "__rdtsc", "times", "getrusage", NULL,
};

static bool is_clock_symbol(const char *sym)
{
    for (size_t i = 0; clock_functions[i]; i++)
        if (strcmp(sym, clock_functions[i]) == 0)
            return true;
    /* std::chrono::{system,steady,high_resolution}_clock::now() */
    return strstr(sym, "chrono") && strstr(sym, "3nowEv");
}

static const char *const x86_lock_ops[] = {"xadd", "inc", "dec", "add", "sub", "cmpxchg",
                                           "cmpxchg8b", "cmpxchg16b", "or", "and", "xor",
                                           "bts", "btr", "btc", "neg", "not", NULL};

/* x86: "incq" -> "inc" for the lock-prefixed ops. */
static void strip_size_suffix(char *m)
{
    for (size_t i = 0; x86_lock_ops[i]; i++) {
        size_t n = strlen(x86_lock_ops[i]);
        if (strncmp(m, x86_lock_ops[i], n) == 0 && (m[n] == '\0' || (strchr("bwlq", m[n]) && !m[n + 1]))) {
            m[n] = '\0';
            return;
        }
    }
}

static void bump(json_t *fn, const char *cls)
{
    json_t *v = json_object_get(fn, cls);
    json_object_set_new(fn, cls, json_integer(v ? json_integer_value(v) + 1 : 1));
}

/* The class of one instruction, written into cls (empty when it does not matter). */
static void classify(const char *target, char *mn, const char *ops, char *cls, size_t size)
{
    cls[0] = '\0';
    bool x86 = strcmp(target, "x86_64") == 0;
    char sym[256] = "";
    if (x86) {
        if (strcmp(mn, "lock") == 0) {
            char op[32] = "";
            sscanf(ops, "%31s", op);
            strip_size_suffix(op);
            snprintf(cls, size, "lock %s", op);
        } else if (strncmp(mn, "xchg", 4) == 0) {
            snprintf(cls, size, "xchg");
        } else if (strcmp(mn, "mfence") == 0 || strcmp(mn, "rdtsc") == 0 || strcmp(mn, "rdtscp") == 0) {
            snprintf(cls, size, "%s", mn);
        } else if (strncmp(mn, "mov", 3) == 0 && strlen(mn) <= 4 && strrchr(ops, ',') &&
                   strchr(strrchr(ops, ','), '(')) {
            snprintf(cls, size, "mov"); /* a store: the destination is memory */
        } else if (strcmp(mn, "call") == 0 || strcmp(mn, "callq") == 0 || strcmp(mn, "jmp") == 0) {
            sscanf(ops, " %255[^@ \t]", sym);
        }
    } else {
        static const char *const atomics[] = {"ldadd", "ldclr", "ldeor", "ldset", "ldsmax", "ldumax",
                                              "swp", "cas", "ldxr", "ldaxr", "stxr", "stlxr",
                                              "ldar", "ldapr", "stlr", NULL};
        for (size_t i = 0; atomics[i]; i++)
            if (strncmp(mn, atomics[i], strlen(atomics[i])) == 0) {
                snprintf(cls, size, "%s", mn);
                return;
            }
        if (strcmp(mn, "dmb") == 0 || strcmp(mn, "dsb") == 0 || strcmp(mn, "isb") == 0) {
            char opt[16] = "";
            sscanf(ops, "%15s", opt);
            snprintf(cls, size, "%s %s", mn, opt);
        } else if (strcmp(mn, "str") == 0 || strcmp(mn, "strb") == 0 || strcmp(mn, "strh") == 0) {
            snprintf(cls, size, "str");
        } else if (strcmp(mn, "ldr") == 0 || strcmp(mn, "ldrb") == 0 || strcmp(mn, "ldrh") == 0) {
            snprintf(cls, size, "ldr");
        } else if (strcmp(mn, "mrs") == 0 && strstr(ops, "cntvct")) {
            snprintf(cls, size, "mrs cntvct_el0");
        } else if (strcmp(mn, "bl") == 0 || strcmp(mn, "b") == 0) {
            sscanf(ops, "%255s", sym);
        }
    }
    if (sym[0] && is_clock_symbol(sym))
        snprintf(cls, size, "call %s", sym);
    else if (sym[0] && strncmp(sym, "__aarch64_", 10) == 0) /* outline atomics */
        snprintf(cls, size, "call %s", sym);
}

json_t *hs_asm_profile(const char *asm_text, const char *target)
{
    json_t *profile = json_object();
    json_t *current = NULL;
    json_t *functions = json_object(); /* names declared @function */
    const char *line = asm_text;
    while (*line) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char *l = hs_xstrndup(line, len);
        char *c = strstr(l, "//");
        if (c)
            *c = '\0';
        if (strcmp(target, "x86_64") == 0 && (c = strchr(l, '#')))
            *c = '\0';
        char *p = l;
        while (*p == ' ' || *p == '\t')
            p++;
        if (strncmp(p, ".type", 5) == 0 && strstr(p, "function")) {
            char name[512] = "";
            if (sscanf(p + 5, " %511[^,]", name) == 1)
                json_object_set_new(functions, name, json_true());
        } else if (p == l && len && l[0] != '.' && strchr(l, ':')) {
            *strchr(l, ':') = '\0';
            if (json_object_get(functions, l)) {
                current = json_object();
                json_object_set_new(profile, l, current);
            }
        } else if (current && p != l && *p && *p != '.') {
            char mn[32] = "";
            int used = 0;
            if (sscanf(p, "%31s%n", mn, &used) == 1) {
                char cls[300];
                classify(target, mn, p + used, cls, sizeof cls);
                if (cls[0])
                    bump(current, cls);
            }
        }
        free(l);
        if (!end)
            break;
        line = end + 1;
    }
    json_decref(functions);
    return profile;
}

static json_int_t count_of(json_t *fn, const char *cls)
{
    json_t *v = fn ? json_object_get(fn, cls) : NULL;
    return v ? json_integer_value(v) : 0;
}

static void describe(hs_buf *b, const char *cls, json_int_t n)
{
    if (b->len)
        hs_buf_puts(b, ", ");
    hs_buf_puts(b, cls);
    if (n > 1)
        hs_buf_printf(b, " x%lld", (long long)n);
}

void hs_asm_diff(json_t *base, json_t *patched, const char *target, json_t *changes)
{
    json_t *names = json_object();
    const char *k;
    json_t *v;
    json_object_foreach(base, k, v) json_object_set(names, k, json_true());
    json_object_foreach(patched, k, v) json_object_set(names, k, json_true());
    json_object_foreach(names, k, v) {
        json_t *a = json_object_get(base, k), *b = json_object_get(patched, k);
        json_t *classes = json_object();
        const char *cls;
        json_t *cv;
        if (a)
            json_object_foreach(a, cls, cv) json_object_set(classes, cls, json_true());
        if (b)
            json_object_foreach(b, cls, cv) json_object_set(classes, cls, json_true());
        hs_buf gone, came;
        hs_buf_init(&gone);
        hs_buf_init(&came);
        json_object_foreach(classes, cls, cv) {
            json_int_t d = count_of(b, cls) - count_of(a, cls);
            if (d < 0)
                describe(&gone, cls, -d);
            else if (d > 0)
                describe(&came, cls, d);
        }
        json_decref(classes);
        if (gone.len || came.len) {
            char *summary = hs_printf("%s %s -> %s", target, gone.len ? gone.data : "(none)",
                                      came.len ? came.data : "(none)");
            json_t *change = json_pack("{s:s, s:s, s:o, s:o, s:s}", "function", k, "target", target,
                                       "before", a ? json_incref(a) : json_object(), "after",
                                       b ? json_incref(b) : json_object(), "summary", summary);
            json_array_append_new(changes, change);
            free(summary);
        }
        hs_buf_free(&gone);
        hs_buf_free(&came);
    }
    json_decref(names);
}

/* Arguments that take the next word as their value and that codegen drops. */
static bool drops_next(const char *a)
{
    static const char *const with_value[] = {"-o", "-MF", "-MT", "-MQ", "-target", "-arch", NULL};
    for (size_t i = 0; with_value[i]; i++)
        if (strcmp(a, with_value[i]) == 0)
            return true;
    return false;
}

static bool drops(const char *a, bool cross)
{
    if (strcmp(a, "-c") == 0 || strcmp(a, "-S") == 0 || strcmp(a, "-E") == 0 || strcmp(a, "-fsyntax-only") == 0 ||
        strncmp(a, "-O", 2) == 0 || strncmp(a, "-g", 2) == 0 || strncmp(a, "-M", 2) == 0 ||
        strncmp(a, "-o", 2) == 0 || strncmp(a, "--target=", 9) == 0 ||
        strncmp(a, "-fsanitize", 10) == 0 || strncmp(a, "-fprofile", 9) == 0 ||
        strncmp(a, "-flto", 5) == 0 || strcmp(a, "--coverage") == 0 || strcmp(a, "-pipe") == 0)
        return true;
    /* Machine options of the host (-march=native, -msse4.2, -mavx2) mean nothing elsewhere. */
    return cross && strncmp(a, "-m", 2) == 0;
}

/* The TU's own command for target `t` without what codegen sets itself (output, -O, -g, the
 * source file): pushed onto args after the compiler; *target_flag is to be freed. */
static void push_tu_args(hs_vec *args, const hs_tu_input *tu, const hs_codegen_target *t, const char *compiler,
                         char **target_flag)
{
    hs_vec_push(args, (void *)compiler);
    bool cross = strcmp(t->target, "x86_64") != 0;
    for (int i = 1; i < tu->argc; i++) {
        const char *a = tu->argv[i];
        if (drops_next(a)) {
            i++;
            continue;
        }
        if (drops(a, cross) || (a[0] != '-' && hs_is_source_file(a)))
            continue;
        hs_vec_push(args, (void *)a);
    }
    *target_flag = hs_printf("--target=%s", t->triple);
    hs_vec_push(args, *target_flag);
    if (t->extra)
        hs_vec_push(args, (void *)t->extra);
}

/* Runs the compiler (args, NULL-terminated here) in the TU's folder writing `outfile`; its
 * contents, or NULL with *err naming the compiler, target, file and the output's tail. */
static char *run_to_file(hs_vec *args, const hs_tu_input *tu, const hs_codegen_target *t, const char *compiler,
                         double timeout, const char *outfile, char **err)
{
    /* The source is a file, never an option: a relative name that starts with '-' gets "./". */
    char *source = tu->file[0] == '-' ? hs_printf("./%s", tu->file) : hs_xstrdup(tu->file);
    hs_vec_push(args, source);
    hs_vec_push(args, NULL);
    hs_proc_result r;
    hs_proc_run((char *const *)args->items, tu->directory, timeout, &r);
    free(source);
    char *text = NULL;
    if (r.failed_start || r.timed_out || r.status != 0) {
        char *tailtext = hs_tail_lines(r.output ? r.output : "", 15);
        *err = hs_printf("%s for %s %s (status %d%s):\n%s", compiler, t->target, tu->file, r.status,
                         r.timed_out ? ", timed out" : "", tailtext);
        free(tailtext);
    } else {
        size_t len;
        text = hs_read_file(outfile, &len);
        if (!text)
            *err = hs_printf("cannot read %s: %s", outfile, strerror(errno));
    }
    hs_proc_result_free(&r);
    return text;
}

static char *make_temp(char *tmpl, char **err)
{
    int fd = mkstemp(tmpl);
    if (fd < 0) {
        *err = hs_printf("cannot make a temporary file: %s", strerror(errno));
        return NULL;
    }
    close(fd);
    hs_cleanup_add_file(tmpl);
    return tmpl;
}

char *hs_compile_asm(const hs_tu_input *tu, const hs_codegen_target *t, const char *overlay,
                     const char *compiler, double timeout, char **err)
{
    char tmpl[] = "/tmp/hotscan-asm-XXXXXX";
    if (!make_temp(tmpl, err))
        return NULL;
    hs_vec args = {0};
    char *target_flag;
    push_tu_args(&args, tu, t, compiler, &target_flag);
    const char *tail[] = {"-O2", "-S", "-w", "-Qunused-arguments", "-fno-asynchronous-unwind-tables", "-o", tmpl};
    for (size_t i = 0; i < sizeof tail / sizeof *tail; i++)
        hs_vec_push(&args, (void *)tail[i]);
    if (overlay) {
        hs_vec_push(&args, "-ivfsoverlay");
        hs_vec_push(&args, (void *)overlay);
    }
    char *text = run_to_file(&args, tu, t, compiler, timeout, tmpl, err);
    unlink(tmpl);
    hs_cleanup_forget_path(tmpl);
    free(target_flag);
    hs_vec_free(&args);
    return text;
}

/* The next path of a make rule's prerequisites (clang -M): whitespace and backslash-newline
 * separate them, "\\ " is a space in a name, "$$" a dollar. NULL at the end. */
static char *next_dep(const char **pp)
{
    const char *p = *pp;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
            p++;
        if (p[0] == '\\' && (p[1] == '\n' || (p[1] == '\r' && p[2] == '\n')))
            p += p[1] == '\n' ? 2 : 3;
        else
            break;
    }
    if (!*p) {
        *pp = p;
        return NULL;
    }
    hs_buf b;
    hs_buf_init(&b);
    while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') {
        if (p[0] == '\\' && (p[1] == ' ' || p[1] == '#' || p[1] == '\\')) {
            hs_buf_append(&b, p + 1, 1);
            p += 2;
        } else if (p[0] == '\\' && (p[1] == '\n' || p[1] == '\r')) {
            break;
        } else if (p[0] == '$' && p[1] == '$') {
            hs_buf_puts(&b, "$");
            p += 2;
        } else {
            hs_buf_append(&b, p++, 1);
        }
    }
    *pp = p;
    return hs_buf_take(&b);
}

int hs_tu_reads_headers(const hs_tu_input *tu, const hs_vec *headers, const char *compiler, double timeout,
                        bool *which, char **err)
{
    char tmpl[] = "/tmp/hotscan-deps-XXXXXX";
    if (!make_temp(tmpl, err))
        return -1;
    hs_vec args = {0};
    char *target_flag;
    push_tu_args(&args, tu, &hs_codegen_targets[0], compiler, &target_flag);
    const char *tail[] = {"-M", "-MF", tmpl, "-w", "-Qunused-arguments"};
    for (size_t i = 0; i < sizeof tail / sizeof *tail; i++)
        hs_vec_push(&args, (void *)tail[i]);
    char *text = run_to_file(&args, tu, &hs_codegen_targets[0], compiler, timeout, tmpl, err);
    unlink(tmpl);
    hs_cleanup_forget_path(tmpl);
    free(target_flag);
    hs_vec_free(&args);
    if (!text)
        return -1;
    int found = 0;
    /* The rule's target ends at the first ": " (a colon then a blank or the line's end). */
    const char *p = text;
    while (*p && !(p[0] == ':' && (p[1] == ' ' || p[1] == '\t' || p[1] == '\n' || p[1] == '\\' || !p[1])))
        p++;
    if (*p)
        p++;
    char *dep;
    for (size_t i = 0; i < headers->len; i++)
        which[i] = false;
    while ((dep = next_dep(&p))) {
        const char *base = strrchr(dep, '/') ? strrchr(dep, '/') + 1 : dep;
        for (size_t i = 0; i < headers->len; i++) {
            const char *h = headers->items[i];
            if (which[i] || strcmp(base, strrchr(h, '/') + 1) != 0)
                continue;
            char *full = dep[0] == '/' ? hs_xstrdup(dep) : hs_path_join(tu->directory, dep);
            char *real = hs_realpath(full);
            if (real && strcmp(real, h) == 0) {
                which[i] = true;
                found++;
            }
            free(real);
            free(full);
        }
        free(dep);
    }
    free(text);
    return found;
}
