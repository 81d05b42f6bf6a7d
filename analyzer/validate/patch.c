/*
 * patch.c - what a fix's unified diff touches and applying it to a copy: validate builds the
 * patched variant from the diff (a --patch file, or the one a report's verified fixes make)
 * and never applies it to the user's own tree.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "hotscan/validate.h"

/* The path of a "+++ " or "--- " line: up to a tab or the end, the b/ or a/ prefix gone. */
static char *diff_path(const char *line, size_t len)
{
    const char *p = line + 4;
    size_t n = len - 4;
    const char *tab = memchr(p, '\t', n);
    if (tab)
        n = (size_t)(tab - p);
    while (n && (p[n - 1] == '\r' || p[n - 1] == ' '))
        n--;
    if (n >= 2 && (p[0] == 'a' || p[0] == 'b') && p[1] == '/') {
        p += 2;
        n -= 2;
    }
    return hs_xstrndup(p, n);
}

/*
 * A path a diff may name: relative, inside the tree it is applied to. An absolute path or a
 * ".." component would make validate copy or write outside its work folder (and patch
 * outside the copy).
 */
static bool path_stays_inside(const char *path)
{
    if (!path[0] || path[0] == '/')
        return false;
    for (const char *c = path; *c;) {
        const char *slash = strchr(c, '/');
        size_t n = slash ? (size_t)(slash - c) : strlen(c);
        if (n == 2 && c[0] == '.' && c[1] == '.')
            return false;
        c += n + (slash != NULL);
    }
    return true;
}

/* "@@ -a[,b] +c[,d] @@": the hunk's old and new line counts (1 when a count is left out). */
static bool hunk_counts(const char *line, size_t len, long *old_n, long *new_n)
{
    char buf[128];
    if (len >= sizeof buf)
        len = sizeof buf - 1;
    memcpy(buf, line, len);
    buf[len] = '\0';
    long a, c;
    *old_n = *new_n = 1;
    if (sscanf(buf, "@@ -%ld,%ld +%ld,%ld @@", &a, old_n, &c, new_n) == 4)
        return true;
    *old_n = *new_n = 1;
    if (sscanf(buf, "@@ -%ld +%ld,%ld @@", &a, &c, new_n) == 3)
        return true;
    *old_n = *new_n = 1;
    if (sscanf(buf, "@@ -%ld,%ld +%ld @@", &a, old_n, &c) == 3)
        return true;
    *old_n = *new_n = 1;
    return sscanf(buf, "@@ -%ld +%ld @@", &a, &c) == 2;
}

bool hs_patch_files(const char *diff_text, hs_vec *files, char **err)
{
    const char *line = diff_text;
    long old_left = 0, new_left = 0; /* lines of the current hunk still to come */
    while (*line) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        /* Inside a hunk, "--- x" and "+++ x" are a removed "-- x" and an added "++ x". */
        if (old_left > 0 || new_left > 0) {
            char k = len ? line[0] : ' ';
            if (k == ' ' || k == '-')
                old_left--;
            if (k == ' ' || k == '+')
                new_left--;
            if (!end)
                break;
            line = end + 1;
            continue;
        }
        if (len > 3 && strncmp(line, "@@ ", 3) == 0 && !hunk_counts(line, len, &old_left, &new_left)) {
            *err = hs_xstrdup("a hunk header it cannot read: '@@ -A,B +C,D @@' expected");
            return false;
        }
        if (len > 4 && (strncmp(line, "+++ ", 4) == 0 || strncmp(line, "--- ", 4) == 0)) {
            char *named = diff_path(line, len);
            bool ok = strcmp(named, "/dev/null") == 0 || path_stays_inside(named);
            if (!ok) {
                *err = hs_printf("it names '%s', a path outside the tree it patches (absolute, or with a "
                                 "'..' component): refused",
                                 named);
                free(named);
                return false;
            }
            free(named);
        }
        if (len > 4 && strncmp(line, "+++ ", 4) == 0) {
            char *path = diff_path(line, len);
            if (strcmp(path, "/dev/null") == 0) { /* a deleted file: the --- line names it */
                free(path);
                path = NULL;
            }
            bool seen = false;
            for (size_t i = 0; path && i < files->len; i++)
                seen = seen || strcmp(files->items[i], path) == 0;
            if (path && !seen)
                hs_vec_push(files, path);
            else
                free(path);
        }
        if (!end)
            break;
        line = end + 1;
    }
    if (files->len == 0) {
        *err = hs_xstrdup("no file in it: a unified diff has '+++ b/PATH' lines (hotscan scan "
                          "--patch FILE writes one)");
        return false;
    }
    return true;
}

bool hs_patch_apply(const char *diff_path_name, const char *dir, char **err)
{
    /* --input=PATH: the path is the option's value whatever it starts with. */
    char *input = hs_printf("--input=%s", diff_path_name);
    char *argv[] = {"patch", "-p1", "--batch", "--forward", "--no-backup-if-mismatch",
                    "--reject-file=-", input, NULL};
    hs_proc_result r;
    hs_proc_run(argv, dir, 120, &r);
    free(input);
    bool ok = !r.failed_start && !r.timed_out && r.status == 0;
    if (!ok)
        *err = hs_printf("patch -p1 failed in %s (status %d%s): %s", dir, r.status,
                         r.timed_out ? ", timed out" : "", r.output ? r.output : "");
    hs_proc_result_free(&r);
    return ok;
}
