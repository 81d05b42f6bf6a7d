/*
 * proc.c - runs validate's steps (builds, benchmarks, compilers) as child processes in a
 * folder of their own, with their output captured and their whole process group killed at a
 * timeout, so a hung benchmark costs its step only and a failure can show its log tail.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hotscan/tempfiles.h"
#include "hotscan/validate.h"

#define MAX_OUTPUT ((size_t)1 << 20)

void hs_proc_result_free(hs_proc_result *r)
{
    free(r->output);
    r->output = NULL;
}

void hs_proc_run(char *const argv[], const char *dir, double timeout, hs_proc_result *out)
{
    memset(out, 0, sizeof *out);
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        out->failed_start = true;
        out->output = hs_printf("cannot make a pipe: %s\n", strerror(errno));
        return;
    }
    double start = hs_now_seconds();
    pid_t pid = fork();
    if (pid < 0) {
        out->failed_start = true;
        out->output = hs_printf("cannot fork: %s\n", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return;
    }
    if (pid == 0) {
        hs_cleanup_in_child();
        setpgid(0, 0);
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0)
            dup2(devnull, 0);
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        if (dir && chdir(dir) != 0) {
            dprintf(2, "cannot enter %s: %s\n", dir, strerror(errno));
            _exit(127);
        }
        execvp(argv[0], argv);
        dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid);
    hs_cleanup_add_pid(pid);
    close(fds[1]);
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    hs_buf buf;
    hs_buf_init(&buf);
    int wstatus = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    bool reaped = false, eof = false;
    for (;;) {
        char chunk[65536];
        ssize_t n = 0;
        while (!eof && (n = read(fds[0], chunk, sizeof chunk)) != 0) {
            if (n < 0)
                break;
            hs_buf_append(&buf, chunk, (size_t)n);
            if (buf.len > 2 * MAX_OUTPUT) { /* keep the tail */
                memmove(buf.data, buf.data + buf.len - MAX_OUTPUT, MAX_OUTPUT);
                buf.len = MAX_OUTPUT;
                buf.data[buf.len] = '\0';
            }
        }
        if (n == 0)
            eof = true;
        if (!reaped && wait4(pid, &wstatus, WNOHANG, &ru) == pid)
            reaped = true;
        if (reaped && eof)
            break;
        if (reaped) {
            /* The child is gone: kill what it left in its group, then drain what is still
             * in the pipe for up to a second (a process that left the group may hold it). */
            out->seconds = hs_now_seconds() - start;
            kill(-pid, SIGKILL);
            double until = hs_now_seconds() + 1.0;
            while (!eof && hs_now_seconds() < until) {
                n = read(fds[0], chunk, sizeof chunk);
                if (n == 0)
                    eof = true;
                else if (n > 0 && buf.len < 2 * MAX_OUTPUT)
                    hs_buf_append(&buf, chunk, (size_t)n);
                else if (n < 0) {
                    struct timespec ts = {0, 1000000};
                    nanosleep(&ts, NULL);
                }
            }
            break;
        }
        if (timeout > 0 && hs_now_seconds() - start > timeout) {
            out->timed_out = true;
            kill(-pid, SIGKILL);
            wait4(pid, &wstatus, 0, &ru);
            reaped = true;
            break;
        }
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }
    if (!out->seconds)
        out->seconds = hs_now_seconds() - start;
    kill(-pid, SIGKILL); /* whatever the step left behind */
    hs_cleanup_forget_pid(pid);
    close(fds[0]);
    out->cpu_seconds = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
                       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    out->status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
    out->output = hs_buf_take(&buf);
}

void hs_proc_shell(const char *cmd, const char *dir, double timeout, hs_proc_result *out)
{
    char *argv[] = {"sh", "-c", (char *)cmd, NULL};
    hs_proc_run(argv, dir, timeout, out);
}

char *hs_tail_lines(const char *text, int lines)
{
    size_t len = strlen(text);
    while (len && text[len - 1] == '\n')
        len--;
    size_t i = len;
    int seen = 0;
    while (i > 0) {
        if (text[i - 1] == '\n' && ++seen == lines)
            break;
        i--;
    }
    return hs_xstrndup(text + i, len - i);
}
