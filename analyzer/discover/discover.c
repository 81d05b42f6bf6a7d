/*
 * discover.c - compile database lookup (libclang's CXCompilationDatabase), PATH
 * narrowing and de-duplication of identical commands.
 */
#define _GNU_SOURCE
#include "hotscan/discover.h"
#include "hotscan/strmap.h"

#include <clang-c/CXCompilationDatabase.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool has_ext(const char *path, const char *const *exts)
{
    const char *dot = strrchr(path, '.');
    if (!dot || strchr(dot, '/'))
        return false;
    for (size_t i = 0; exts[i]; i++)
        if (strcmp(dot + 1, exts[i]) == 0)
            return true;
    return false;
}

bool hs_is_source_file(const char *path)
{
    static const char *const exts[] = {"c", "cc", "cpp", "cxx", "c++", "C", "cp", NULL};
    return has_ext(path, exts);
}

static bool is_header_file(const char *path)
{
    static const char *const exts[] = {"h", "hh", "hpp", "hxx", "h++", "ic", "inl", NULL};
    return has_ext(path, exts);
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static char *find_database_dir(const char *option, hs_discovery *out, char **err)
{
    if (option) {
        char *dir = is_dir(option) ? hs_xstrdup(option) : hs_dirname(option);
        char *file = hs_path_join(dir, "compile_commands.json");
        if (access(file, R_OK) != 0) {
            *err = hs_printf("%s: no readable compile_commands.json there (-p)", option);
            free(dir);
            free(file);
            return NULL;
        }
        out->database = file;
        return dir;
    }
    static const char *const candidates[] = {"build", "."};
    for (size_t i = 0; i < 2; i++) {
        char *file = hs_path_join(candidates[i], "compile_commands.json");
        if (access(file, R_OK) == 0) {
            out->database = file;
            hs_vec_push(&out->notes, hs_printf("using compile database %s", file));
            return hs_xstrdup(candidates[i]);
        }
        free(file);
    }
    return NULL;
}

static hs_tu_input *default_tu(const char *file)
{
    hs_tu_input *in = hs_xcalloc(1, sizeof *in);
    in->file = hs_xstrdup(file);
    in->directory = hs_dirname(file);
    hs_tu_input_set_default_flags(in);
    return in;
}

static void walk_sources(const char *dir, hs_vec *out)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    hs_vec names = {0};
    struct dirent *ent;
    while ((ent = readdir(d)) != NULL) {
        if (ent->d_name[0] == '.')
            continue;
        hs_vec_push(&names, hs_path_join(dir, ent->d_name));
    }
    closedir(d);
    for (size_t i = 0; i < names.len; i++) {
        char *p = names.items[i];
        if (is_dir(p))
            walk_sources(p, out);
        else if (hs_is_source_file(p))
            hs_vec_push(out, hs_xstrdup(p));
        free(p);
    }
    hs_vec_free(&names);
}

static int cmp_paths(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Loads every command of the database, each distinct (file, flags) once. */
static bool load_database(const char *dir, hs_vec *tus, char **err)
{
    CXCompilationDatabase_Error dberr;
    CXCompilationDatabase db = clang_CompilationDatabase_fromDirectory(dir, &dberr);
    if (dberr != CXCompilationDatabase_NoError || !db) {
        *err = hs_printf("%s/compile_commands.json: cannot be read as a compile database", dir);
        return false;
    }
    CXCompileCommands cmds = clang_CompilationDatabase_getAllCompileCommands(db);
    unsigned n = clang_CompileCommands_getSize(cmds);
    hs_strmap *seen = hs_strmap_create();
    for (unsigned i = 0; i < n; i++) {
        CXCompileCommand cmd = clang_CompileCommands_getCommand(cmds, i);
        CXString dir_s = clang_CompileCommand_getDirectory(cmd);
        CXString file_s = clang_CompileCommand_getFilename(cmd);
        char *abs = hs_path_join(clang_getCString(dir_s), clang_getCString(file_s));
        char *real = hs_realpath(abs);
        hs_tu_input *in = hs_xcalloc(1, sizeof *in);
        in->file = real ? real : abs;
        if (real)
            free(abs);
        in->directory = hs_xstrdup(clang_getCString(dir_s));
        clang_disposeString(dir_s);
        clang_disposeString(file_s);
        unsigned nargs = clang_CompileCommand_getNumArgs(cmd);
        in->argv = hs_xcalloc(nargs + 1, sizeof(char *));
        hs_buf key;
        hs_buf_init(&key);
        hs_buf_puts(&key, in->file);
        for (unsigned a = 0; a < nargs; a++) {
            CXString arg = clang_CompileCommand_getArg(cmd, a);
            const char *s = clang_getCString(arg);
            in->argv[in->argc++] = hs_xstrdup(s);
            /* The output name does not change what the file means. */
            bool is_output = strcmp(s, "-o") == 0;
            bool after_output = a > 0 && in->argc >= 2 && strcmp(in->argv[in->argc - 2], "-o") == 0;
            if (!is_output && !after_output && a > 0) {
                hs_buf_puts(&key, "\x1f");
                hs_buf_puts(&key, s);
            }
            clang_disposeString(arg);
        }
        if (hs_strmap_has(seen, key.data)) {
            hs_tu_input_free(in);
        } else {
            hs_strmap_put(seen, key.data, (void *)1);
            hs_vec_push(tus, in);
        }
        hs_buf_free(&key);
    }
    hs_strmap_delete(seen);
    clang_CompileCommands_dispose(cmds);
    clang_CompilationDatabase_dispose(db);
    return true;
}

bool hs_discover(const char *database_option, char **paths, int npaths, hs_discovery *out,
                 char **err)
{
    memset(out, 0, sizeof *out);
    char *db_dir = find_database_dir(database_option, out, err);
    if (!db_dir && database_option)
        return false;
    hs_vec all = {0};
    bool have_database = db_dir != NULL;
    if (db_dir) {
        bool ok = load_database(db_dir, &all, err);
        free(db_dir);
        if (!ok)
            return false;
    } else if (npaths == 0) {
        *err = hs_xstrdup("no compile_commands.json in ./build or . (use -p DIR, or name the files "
                          "to scan)");
        return false;
    } else {
        hs_vec_push(&out->notes, hs_xstrdup("no compile_commands.json in ./build or .; parsing the "
                                            "given files with default flags"));
    }
    if (npaths == 0) {
        out->tus = all;
        return true;
    }
    bool *taken = hs_xcalloc(all.len + 1, sizeof(bool));
    bool ok = true;
    for (int p = 0; p < npaths && ok; p++) {
        char *real = hs_realpath(paths[p]);
        if (!real) {
            *err = hs_printf("%s: %s", paths[p], strerror(errno));
            ok = false;
            break;
        }
        bool dir = is_dir(real);
        size_t matched = 0;
        for (size_t i = 0; i < all.len; i++) {
            hs_tu_input *in = all.items[i];
            bool hit = dir ? hs_path_is_under(real, in->file) : strcmp(real, in->file) == 0;
            if (hit) {
                matched++;
                if (!taken[i]) {
                    taken[i] = true;
                    hs_vec_push(&out->tus, in);
                }
            }
        }
        if (matched == 0) {
            hs_vec files = {0};
            if (dir)
                walk_sources(real, &files);
            else if (hs_is_source_file(real) || is_header_file(real))
                hs_vec_push(&files, hs_xstrdup(real));
            else {
                *err = hs_printf("%s: not a C or C++ source file", paths[p]);
                ok = false;
            }
            if (files.len)
                qsort(files.items, files.len, sizeof(void *), cmp_paths);
            for (size_t i = 0; i < files.len; i++) {
                hs_vec_push(&out->tus, default_tu(files.items[i]));
                free(files.items[i]);
            }
            /* Without a database the one note about default flags was given already. */
            if (ok && have_database) {
                hs_vec_push(&out->notes, hs_printf("%s is not in the compile database; parsing it "
                                                   "with default flags", paths[p]));
            }
            if (ok && files.len == 0)
                hs_vec_push(&out->notes, hs_printf("%s: no C or C++ sources found", paths[p]));
            hs_vec_free(&files);
        }
        free(real);
    }
    for (size_t i = 0; i < all.len; i++)
        if (!taken[i])
            hs_tu_input_free(all.items[i]);
    free(taken);
    hs_vec_free(&all);
    return ok;
}

void hs_discovery_free(hs_discovery *d)
{
    for (size_t i = 0; i < d->tus.len; i++)
        hs_tu_input_free(d->tus.items[i]);
    hs_vec_free(&d->tus);
    for (size_t i = 0; i < d->notes.len; i++)
        free(d->notes.items[i]);
    hs_vec_free(&d->notes);
    free(d->database);
}

size_t hs_discovery_count_under(const hs_discovery *d, const char *root)
{
    size_t n = 0;
    for (size_t i = 0; i < d->tus.len; i++)
        n += hs_path_is_under(root, ((hs_tu_input *)d->tus.items[i])->file);
    return n;
}
