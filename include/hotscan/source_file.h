/*
 * source_file.h - the one check every C/C++ file a scan reads passes, in both readers (the
 * libclang workers and the no-build reader) and in what else reads sources during a scan (the
 * prefilter, NOLINT comments): a FIFO, socket or device named like a source file, a dangling
 * symlink or an unreadable file is that file's error, never a hang. The check opens the file
 * with O_NONBLOCK and judges the opened descriptor (fstat), so a FIFO swapped in after a
 * first look cannot block the read either.
 */
#ifndef HOTSCAN_SOURCE_FILE_H
#define HOTSCAN_SOURCE_FILE_H

#include <stddef.h>

/* What keeps `path` from being read as a source file, as a new string to follow "cannot read
 * PATH: " ("a FIFO (named pipe), not a regular file", "a symbolic link to a missing file",
 * "Permission denied"), or NULL when it is a regular file this process can open for
 * reading. Never blocks. */
char *hs_source_file_problem(const char *path);

/* Reads the source file `path` whole after that same check on the descriptor it reads from:
 * the text (NUL-terminated, *len bytes), or NULL with *problem (a new string, as above;
 * "larger than N bytes" past `max`). */
char *hs_source_file_read(const char *path, size_t max, size_t *len, char **problem);

#endif
