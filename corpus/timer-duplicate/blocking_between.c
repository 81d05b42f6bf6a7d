// hotscan-args: --hot save_in_background --hot handle --hot count_twice --disable timer-hot-path
/*
 * Two reads with a blocking call between them are different instants on purpose: a
 * timestamp before fork() and one after it (the fork of a large process takes long), or
 * around a sleep or file I/O. That holds when the blocking happens inside a callee too
 * (a fork wrapper, a logger). Never a duplicate, never a reuse fix. A plain call between
 * them does not block.
 */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

struct stats { time_t save_try, save_start, seen, handled; };
struct stats st;

static int spawn_child(void)
{
    return (int)fork();
}

static void log_line(const char *s)
{
    FILE *f = fopen("/tmp/log", "a");
    if (f) {
        fputs(s, f);
        fclose(f);
    }
}

static int count(int x)
{
    return x + 1;
}

int save_in_background(void)
{
    st.save_try = time(NULL);
    int pid = spawn_child();
    if (pid == 0)
        _exit(0);
    st.save_start = time(NULL);
    return pid;
}

int handle(int x)
{
    st.seen = time(NULL);
    log_line("handled");
    st.handled = time(NULL);
    return x;
}

int count_twice(int x)
{
    time_t a = time(NULL);
    x = count(x);
    time_t b = time(NULL); // expect: timer-duplicate
    return x + (int)(a + b);
}
