/*
 * adjust.c - compile commands made fit for libclang, as clangd does: precompiled-header
 * options are dropped (a PCH made by another clang, or by gcc, fails the whole TU with an
 * AST read error, and a PCH changes no code hotscan reads: the header it was made from is
 * still included), `-include` is kept, and the user's --extra-arg-before / --extra-arg
 * (and the flags after `--`) are added to every command.
 */
#define _GNU_SOURCE
#include "hotscan/discover.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool exists_in(const char *dir, const char *path, const char *suffix)
{
    char *with = hs_printf("%s%s", path, suffix);
    char *full = with[0] == '/' || !dir ? hs_xstrdup(with) : hs_path_join(dir, with);
    bool ok = access(full, F_OK) == 0;
    free(full);
    free(with);
    return ok;
}

static void note_dropped(hs_strmap *dropped, const char *what)
{
    if (dropped && !hs_strmap_has(dropped, what))
        hs_strmap_put(dropped, what, (void *)1);
}

void hs_tu_input_adjust(hs_tu_input *in, char *const *before, size_t n_before, char *const *after,
                        size_t n_after, hs_strmap *dropped)
{
    size_t cap = (size_t)in->argc * 2 + n_before + n_after + 1;
    char **out = hs_xcalloc(cap, sizeof(char *));
    int n = 0;
    for (int i = 0; i < in->argc; i++) {
        char *a = in->argv[i];
        char *next = i + 1 < in->argc ? in->argv[i + 1] : NULL;
        char *third = i + 3 < in->argc ? in->argv[i + 3] : NULL;
        if (i == 0) {
            out[n++] = hs_xstrdup(a);
            for (size_t k = 0; k < n_before; k++)
                out[n++] = hs_xstrdup(before[k]);
            continue;
        }
        /* -include-pch FILE, -include-pch=FILE */
        if (strcmp(a, "-include-pch") == 0 && next) {
            note_dropped(dropped, "-include-pch");
            i++;
            continue;
        }
        if (strncmp(a, "-include-pch=", 13) == 0 || strcmp(a, "-emit-pch") == 0) {
            note_dropped(dropped, strcmp(a, "-emit-pch") == 0 ? "-emit-pch" : "-include-pch");
            continue;
        }
        /* -Xclang -include-pch -Xclang FILE (CMake's precompile_headers), -Xclang -emit-pch */
        if (strcmp(a, "-Xclang") == 0 && next && strcmp(next, "-include-pch") == 0 && third &&
            strcmp(in->argv[i + 2], "-Xclang") == 0) {
            note_dropped(dropped, "-Xclang -include-pch");
            i += 3;
            continue;
        }
        if (strcmp(a, "-Xclang") == 0 && next && strcmp(next, "-emit-pch") == 0) {
            note_dropped(dropped, "-Xclang -emit-pch");
            i++;
            continue;
        }
        /* -include HEADER is kept, but when HEADER.pch or HEADER.gch lies beside it the driver
         * would load that instead: passed straight to the front end, it includes the header. */
        if (strcmp(a, "-include") == 0 && next &&
            (exists_in(in->directory, next, ".pch") || exists_in(in->directory, next, ".gch"))) {
            note_dropped(dropped, "the .pch/.gch beside an -include header");
            out[n++] = hs_xstrdup("-Xclang");
            out[n++] = hs_xstrdup("-include");
            out[n++] = hs_xstrdup("-Xclang");
            out[n++] = hs_xstrdup(next);
            i++;
            continue;
        }
        out[n++] = hs_xstrdup(a);
    }
    for (size_t k = 0; k < n_after; k++)
        out[n++] = hs_xstrdup(after[k]);
    for (int i = 0; i < in->argc; i++)
        free(in->argv[i]);
    free(in->argv);
    in->argv = out;
    in->argc = n;
}
