/*
 * tempfiles.h - temporary files that never outlive a run, and files replaced atomically.
 *
 * Everything hotscan writes beside a user's files (fixed sources, -o reports, --patch and
 * --export-fixes outputs) goes to a temporary file in the same folder and is renamed over the
 * target, under an exclusive flock(2) on that folder, so two hotscan processes never
 * interleave a check and a rename on the same file. The folder lock also makes leftovers of a
 * killed run recognisable: a `.NAME.hotscan-XXXXXX` file in a folder we hold locked belongs to
 * no live hotscan, and is removed.
 *
 * The cleanup registry: temporary files, temporary folders and worker processes are
 * registered while they exist; on a terminating signal (SIGINT, SIGTERM, SIGHUP, SIGQUIT,
 * SIGPIPE, SIGALRM, SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF) the handler
 * kills the workers, removes the files and folders, then dies of the same signal.
 */
#ifndef HOTSCAN_TEMPFILES_H
#define HOTSCAN_TEMPFILES_H

#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Installs the signal handlers (once; a signal the caller ignores stays ignored). */
void hs_cleanup_install(void);
/* Register / forget a temporary file, a temporary folder (removed with the files in it) or a
 * worker process (sent SIGKILL and reaped). */
void hs_cleanup_add_file(const char *path);
void hs_cleanup_add_dir(const char *path);
void hs_cleanup_add_pid(pid_t pid);
void hs_cleanup_forget_path(const char *path);
void hs_cleanup_forget_pid(pid_t pid);
/* Hold the terminating signals (blocked) around a step that must not stop halfway, such as
 * the renames of one plan; a signal that came meanwhile acts at the release. */
void hs_cleanup_hold(sigset_t *old);
void hs_cleanup_release(const sigset_t *old);
/* In a freshly forked child: forget everything (the parent cleans up) and restore the
 * default actions, so that a worker never removes the supervisor's files. */
void hs_cleanup_in_child(void);

/* Removes a temporary folder of ours (plain files only) and what is in it. */
void hs_remove_temp_dir(const char *path);

/* An exclusive flock on a folder (blocking); -1 with errno on failure. */
int hs_dir_lock(const char *dir);
void hs_dir_unlock(int fd);

/* True when `name` is one of our temporary names: `.X.hotscan-` and six mkstemp characters. */
bool hs_is_temp_name(const char *name);
/* With the folder locked: removes our temporary files left there by killed runs; says so on
 * `log` (when not NULL). Returns how many were removed. */
size_t hs_remove_stale_temps(const char *dir, FILE *log);

/*
 * Writes `data` to a new temporary file beside `path` (`.NAME.hotscan-XXXXXX`, registered for
 * cleanup) with the owner, group and mode of `like` (owner first, so set-user-ID and
 * set-group-ID bits survive; when the owner cannot be kept for a file with those bits, the
 * write fails with EPERM), or with mode 0666 & ~umask when `like` is NULL; then fsyncs it.
 * Returns the temporary file's name, or NULL with errno set and *step naming what failed.
 */
char *hs_temp_write_beside(const char *path, const char *data, size_t size, const struct stat *like,
                           const char **step);
/* Renames the temporary file over `path` and syncs the folder; false with errno. Either way
 * the temporary name is forgotten (and removed on failure) and freed. */
bool hs_temp_commit(char *tmp, const char *path);
/* Removes the temporary file and frees the name. */
void hs_temp_discard(char *tmp);

/*
 * Replaces `path` with `data` atomically (for reports, patches and YAML): a symlink is
 * followed and its target replaced; an existing file keeps its mode; a path that exists but
 * is not a regular file (a terminal, /dev/null, a pipe) is written in place. The folder is
 * locked meanwhile. False with *err set ("cannot ...: reason"), the old content untouched.
 */
bool hs_write_file_atomic(const char *path, const char *data, size_t size, char **err);

/* An output option's value: "-" (or NULL) is standard output, anything else a file written
 * with hs_write_file_atomic. False with *err set when it could not be written. */
bool hs_write_output(const char *path, const char *data, size_t size, char **err);
/* Prints an output's content on `out`; false when that failed (errno, if set, says why). */
typedef bool (*hs_output_writer)(FILE *out, void *user);
/* hs_write_output with the content printed by `writer` as it goes instead of held in memory:
 * into the temporary file that then replaces `path` (so a reader still never sees half of
 * it, and a failed writer leaves the old content), or straight to standard output ("-" or
 * NULL). A report of thousands of findings then needs no second copy as one string. */
bool hs_write_output_with(const char *path, hs_output_writer writer, void *user, char **err);
/* Flushes standard output and checks that everything written to it arrived; false after
 * saying on stderr that `what` could not be written (a full disk, a closed stdout). */
bool hs_close_stdout(const char *what);
/* At start-up: a closed descriptor 0, 1 or 2 is reopened read-only on /dev/null, so that no
 * file hotscan opens later takes its number, and a write to a closed stdout fails (EBADF)
 * instead of landing in that file. */
void hs_guard_std_fds(void);

#endif
