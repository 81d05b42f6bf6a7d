/*
 * discover.c - compile database lookup (checked with jansson first, then read through
 * libclang's CXCompilationDatabase), PATH narrowing, de-duplication of identical commands,
 * and the folder walk for PATHs outside the database (each folder and file once, however
 * many symlinks reach it, so a link cycle ends).
 */
#define _GNU_SOURCE
#include "hotscan/discover.h"
#include "hotscan/strmap.h"

#include <clang-c/CXCompilationDatabase.h>
#include <dirent.h>
#include <jansson.h>
#include <stdint.h>
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

char *hs_input_name(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return NULL;
    char *real = hs_realpath(path);
    if (real && stat(real, &st) == 0 && (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)))
        return real;
    free(real);
    /* the file itself, in its folder's real path */
    char *dir = hs_dirname(path), *real_dir = hs_realpath(dir);
    const char *slash = strrchr(path, '/');
    char *name = real_dir ? hs_path_join(real_dir, slash ? slash + 1 : path) : hs_xstrdup(path);
    free(dir);
    free(real_dir);
    return name;
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

/* Folders already walked, by (device, inode): a symlink back up the tree is walked once. */
static bool first_visit(hs_strmap *visited, const struct stat *st)
{
    char key[64];
    snprintf(key, sizeof key, "%llx:%llx", (unsigned long long)st->st_dev,
             (unsigned long long)st->st_ino);
    if (hs_strmap_has(visited, key))
        return false;
    hs_strmap_put(visited, key, (void *)1);
    return true;
}

void hs_walk_files(const char *dir, bool (*want)(const char *path), hs_vec *out, hs_strmap *visited)
{
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || !first_visit(visited, &st))
        return;
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
            hs_walk_files(p, want, out, visited);
        else if (want(p)) /* a FIFO or a dangling link too: reading it is its TU's error */
            hs_vec_push(out, hs_xstrdup(p));
        free(p);
    }
    hs_vec_free(&names);
}

/* A compile database larger than this is refused before it fills memory. */
#define MAX_DATABASE_BYTES ((size_t)2 << 30)

/* Where a "command" string leaves a quote open, split as libclang splits it (a POSIX shell's
 * quoting without expansion: '...' verbatim, "..." with backslash escapes, a backslash outside
 * escapes the next character): the offset of the quote never closed, or of a backslash with
 * nothing after it; -1 when every quote closes. libclang itself takes the rest of the line as
 * one argument, quietly. */
static long open_quote_at(const char *cmd)
{
    char quote = 0;
    long opened = -1;
    for (long i = 0; cmd[i]; i++) {
        char c = cmd[i];
        if (quote == '\'') {
            if (c == '\'')
                quote = 0;
        } else if (c == '\\') {
            if (!cmd[i + 1])
                return i;
            i++;
        } else if (quote == '"') {
            if (c == '"')
                quote = 0;
        } else if (c == '"' || c == '\'') {
            quote = c;
            opened = i;
        }
    }
    return quote ? opened : -1;
}

/* The problem with entry `e`'s own values, or NULL; *detail (to free) says more. With
 * `look_at_files`, also whether its "file" is a folder (the fuzz target reads text only). */
static const char *entry_problem(json_t *e, bool look_at_files, char **detail)
{
    json_t *args = json_object_get(e, "arguments"), *cmd = json_object_get(e, "command");
    json_t *dir = json_object_get(e, "directory"), *file = json_object_get(e, "file");
    if (!json_is_object(e))
        return "is not an object";
    if (!json_is_string(dir))
        return "needs \"directory\", a string";
    if (!json_is_string(file) || !json_string_value(file)[0])
        return "needs \"file\", a non-empty string";
    if (!args && !cmd)
        return "needs \"arguments\" (an array of strings) or \"command\" (a string)";
    if (cmd && !json_is_string(cmd))
        return "has a \"command\" that is not a string";
    if (args && (!json_is_array(args) || json_array_size(args) == 0))
        return "has an \"arguments\" that is not a non-empty array of strings";
    if (json_object_get(e, "output") && !json_is_string(json_object_get(e, "output")))
        return "has an \"output\" that is not a string";
    if (args) {
        size_t k;
        json_t *a;
        json_array_foreach(args, k, a) if (!json_is_string(a)) return "has an \"arguments\" that is not a "
                                                                      "non-empty array of strings";
    }
    /* The folder the command runs in: relative to what? Not to wherever hotscan is run. */
    const char *d = json_string_value(dir);
    if (d[0] != '/') {
        *detail = hs_printf(" (\"%s\"); it must be an absolute path, the folder the command runs in", d);
        return "has a relative \"directory\"";
    }
    long open = cmd && !args ? open_quote_at(json_string_value(cmd)) : -1;
    if (open >= 0) {
        const char *c = json_string_value(cmd);
        *detail = c[open] == '\\'
                      ? hs_printf(" (it ends in a backslash that escapes nothing)")
                      : hs_printf(" (the %c at character %ld is never closed)", c[open], open + 1);
        return "has a \"command\" with an unbalanced quote";
    }
    if (look_at_files) {
        const char *f = json_string_value(file);
        char *path = f[0] == '/' ? hs_xstrdup(f) : hs_path_join(d, f);
        bool folder = is_dir(path);
        if (folder)
            *detail = hs_printf(" (%s); it must name the source file the command compiles", path);
        free(path);
        if (folder)
            return "has a \"file\" that is a folder";
    }
    return NULL;
}

static bool check_text(const char *name, const char *text, size_t size, bool look_at_files, char **err)
{
    json_error_t jerr;
    json_t *db = json_loadb(text, size, 0, &jerr);
    if (!db) {
        *err = hs_printf("%s:%d:%d: not valid JSON: %s", name, jerr.line, jerr.column, jerr.text);
        return false;
    }
    bool ok = true;
    if (!json_is_array(db)) {
        *err = hs_printf("%s: not a compile database: the top level must be an array of "
                         "entries ({\"directory\", \"file\", \"command\" or \"arguments\"})", name);
        ok = false;
    }
    size_t i;
    json_t *e;
    json_array_foreach(db, i, e) {
        if (!ok)
            break;
        char *detail = NULL;
        const char *problem = entry_problem(e, look_at_files, &detail);
        if (problem) {
            /* The entry by its place and, when it has one, its file. */
            json_t *file = json_object_get(e, "file");
            if (json_is_string(file) && json_string_value(file)[0])
                *err = hs_printf("%s: entry %zu (counting from 1, file \"%s\") %s%s", name, i + 1,
                                 json_string_value(file), problem, detail ? detail : "");
            else
                *err = hs_printf("%s: entry %zu (counting from 1) %s%s", name, i + 1, problem,
                                 detail ? detail : "");
            ok = false;
        }
        free(detail);
    }
    json_decref(db);
    return ok;
}

bool hs_check_compile_database_text(const char *name, const char *text, size_t size, char **err)
{
    return check_text(name, text, size, false, err);
}

/* Checks the database with jansson, so a broken one is an error naming the file, the line
 * and the problem (libclang's reader prints a YAML error naming no file, and goes on), and
 * no entry's "file" is a folder. */
static bool check_database(const char *file, char **err)
{
    size_t size;
    char *text = hs_read_file_max(file, MAX_DATABASE_BYTES, &size);
    if (!text) {
        *err = errno == EFBIG ? hs_printf("%s: larger than %zu GiB; not read", file,
                                          MAX_DATABASE_BYTES >> 30)
                              : hs_printf("%s: %s", file, strerror(errno));
        return false;
    }
    bool ok = check_text(file, text, size, true, err);
    free(text);
    return ok;
}

/* Loads every command of the database, each distinct (file, flags) once. */
static bool load_database(const char *dir, hs_vec *tus, char **err)
{
    char *file = hs_path_join(dir, "compile_commands.json");
    bool valid = check_database(file, err);
    free(file);
    if (!valid)
        return false;
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
    out->database_tus = all.len;
    if (npaths == 0) {
        out->tus = all;
        return true;
    }
    bool *taken = hs_xcalloc(all.len + 1, sizeof(bool));
    bool ok = true;
    hs_strmap *visited = hs_strmap_create(); /* folders walked, by device and inode */
    hs_strmap *queued = hs_strmap_create();  /* default-flag files, by real path */
    for (int p = 0; p < npaths && ok; p++) {
        char *real = hs_input_name(paths[p]);
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
                hs_walk_files(real, hs_is_source_file, &files, visited);
            else if (hs_is_source_file(real) || is_header_file(real) || hs_is_source_file(paths[p]) ||
                     is_header_file(paths[p]))
                hs_vec_push(&files, hs_xstrdup(real));
            else {
                *err = hs_printf("%s: not a C or C++ source file", paths[p]);
                ok = false;
            }
            if (files.len)
                qsort(files.items, files.len, sizeof(void *), hs_compare_strings);
            /* One TU per file, however many links or PATHs reach it. */
            for (size_t i = 0; i < files.len; i++) {
                char *file_real = hs_input_name(files.items[i]);
                const char *name = file_real ? file_real : files.items[i];
                if (!hs_strmap_has(queued, name)) {
                    hs_strmap_put(queued, name, (void *)1);
                    hs_vec_push(&out->tus, default_tu(name));
                }
                free(file_real);
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
    hs_strmap_delete(visited);
    hs_strmap_delete(queued);
    /* Left out of the program only when the PATHs chose part of the database: PATHs that
     * match none of it (files parsed with default flags) are another program. */
    size_t chosen = 0;
    for (size_t i = 0; i < all.len; i++)
        chosen += taken[i];
    for (size_t i = 0; i < all.len; i++)
        if (!taken[i]) {
            out->left_out += chosen > 0;
            hs_tu_input_free(all.items[i]);
        }
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
    free(d->global_index);
    for (size_t i = 0; i < d->facts_files.len; i++)
        free(d->facts_files.items[i]);
    hs_vec_free(&d->facts_files);
}

size_t hs_discovery_count_under(const hs_discovery *d, const char *root)
{
    size_t n = 0;
    for (size_t i = 0; i < d->tus.len; i++)
        n += hs_path_is_under(root, ((hs_tu_input *)d->tus.items[i])->file);
    return n;
}
