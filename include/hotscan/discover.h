/*
 * discover.h - finds the translation units to scan: the compile database's entries,
 * narrowed by the PATHs given, each file+flags pair once; PATHs the database does
 * not know are parsed with default flags, and a note says so.
 */
#ifndef HOTSCAN_DISCOVER_H
#define HOTSCAN_DISCOVER_H

#include "hotscan/common.h"
#include "hotscan/extract.h"
#include "hotscan/strmap.h"

typedef struct {
    hs_vec tus;       /* hs_tu_input* */
    hs_vec notes;     /* char*: things the user should know (where the database was found) */
    char *database;   /* path of compile_commands.json, or NULL */
    size_t database_tus; /* entries of the compile database (0 without one) */
    size_t left_out;     /* of them, how many the PATHs did not select when they selected
                            some: the scan then sees only part of the program (whole-program
                            verdicts must say so); 0 when the PATHs match none of it */
    size_t selected_tus;  /* TUs the database and PATHs chose before a shard took its part */
    size_t *global_index; /* each TU's place among all the TUs discovery found, when a shard
                             or a judge run holds only some of them; NULL: its own index */
    hs_vec facts_files;   /* char*: judge only: the facts file each TU is read from */
} hs_discovery;

/*
 * `database_option` is -p's argument or NULL. Returns false with *err set (naming the
 * path and the problem) for input errors: a missing PATH, an unreadable database.
 */
bool hs_discover(const char *database_option, char **paths, int npaths, hs_discovery *out,
                 char **err);
void hs_discovery_free(hs_discovery *d);

/* shards.c. Keeps the TUs whose index i has i % n == k - 1 (1 <= k <= n): a stable 1/n of
 * the tree for one CI job; each keeps its place among all (global_index). */
void hs_discovery_shard(hs_discovery *d, unsigned k, unsigned n);
/* For `hotscan judge`: the TUs of the facts files under PATHs (files, or folders of *.json),
 * each from its "command" member, ordered by their place in the scan that wrote them, so a
 * judge over all shards merges as one whole scan does. False with *err naming the file. */
bool hs_discover_from_facts(char **paths, int npaths, hs_discovery *out, char **err);
/* How many of the TUs found lie under `root` (only code under the root is analyzed). */
size_t hs_discovery_count_under(const hs_discovery *d, const char *root);

bool hs_is_source_file(const char *path);

/* The name a PATH, or a file a folder walk found, is queued under: its real path, or, when that
 * is no regular file or folder (a FIFO, a socket, a device, a dangling or looping symlink), its
 * own path in its folder's real path, so the TU's error (source_file.h) names the file the user
 * has. NULL, with errno set, when nothing is at `path`. */
char *hs_input_name(const char *path);

/* Appends to `out` (owned copies) the files under `dir` for which `want` is true, recursively,
 * skipping names that start with '.': every kind but folders (a FIFO or a dangling symlink
 * named like a source is queued, and reading it fails that TU). `visited` (device:inode keys) makes a
 * symlink back up the tree walked once; pass the same map for several roots. */
void hs_walk_files(const char *dir, bool (*want)(const char *path), hs_vec *out, hs_strmap *visited);

/*
 * Makes a compile command fit for libclang (adjust.c): drops -include-pch FILE,
 * -include-pch=FILE, -Xclang -include-pch -Xclang FILE and -emit-pch; passes an -include
 * HEADER that has a HEADER.pch or HEADER.gch beside it to the front end (-Xclang -include
 * -Xclang HEADER) so no PCH is loaded for it; inserts `before` after the compiler's name and
 * appends `after`. What was dropped goes into `dropped` (when not NULL), each kind once.
 */
void hs_tu_input_adjust(hs_tu_input *in, char *const *before, size_t n_before, char *const *after,
                        size_t n_after, hs_strmap *dropped);

/* Checks a compile database's text: JSON (errors as NAME:LINE:COL), an array of objects with
 * "directory" (an absolute path), "file", and "command" (its quotes balanced) or "arguments"
 * of the right types. False with *err naming `name`, the entry (its place, and its file when
 * it has one) and the problem. (The compile-database fuzz target calls this; the scan also
 * refuses an entry whose "file" is a folder, which this text-only check cannot see.) */
bool hs_check_compile_database_text(const char *name, const char *text, size_t size, char **err);

#endif
