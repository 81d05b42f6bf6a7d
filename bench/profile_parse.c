/*
 * profile_parse.c - what reading a profile costs against reading its bytes: reads FILE once
 * with plain read(2) (64 KiB at a time, nothing done with the bytes), twice, then with
 * hs_profile_load (the streamed parse --profile does) and with hs_profile_read_by_lines (the
 * same state machine without the whole-sample fast path, as the parse was before it), checks
 * that both read the same profile, and prints the CPU times, each parse's ratio to two plain
 * reads, and the peak RSS of the parse. The target: a parse costs less than reading
 * the file twice. bench/profile_parse.sh makes a large perf script from the fixtures.
 *
 * usage: profile_parse FILE
 *
 * Build (after building hotscan in ./build):
 *   cc -O2 -Iinclude bench/profile_parse.c build/libhotscan_core.a -o build/profile_parse \
 *      $(pkg-config --cflags --libs jansson yaml-0.1 libxxhash) -lm \
 *      -L/usr/lib/llvm-19/lib -lclang -Wl,-rpath,/usr/lib/llvm-19/lib
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "hotscan/profile.h"

/* CPU seconds of this process (user and system): what a step costs, whatever else the
 * machine runs at the time (wall time on a shared machine mostly measures the others). */
static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double read_once(const char *path, unsigned long long *bytes)
{
    double t0 = cpu_seconds();
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        perror(path);
        exit(2);
    }
    static char buf[1 << 16];
    ssize_t n;
    *bytes = 0;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        *bytes += (unsigned long long)n;
    close(fd);
    return cpu_seconds() - t0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: profile_parse FILE\n");
        return 2;
    }
    unsigned long long bytes;
    read_once(argv[1], &bytes); /* warm the page cache */
    double once = read_once(argv[1], &bytes);
    double twice = read_once(argv[1], &bytes) + read_once(argv[1], &bytes);
    double t0 = cpu_seconds();
    char *err = NULL;
    hs_profile *p = hs_profile_load(argv[1], &err);
    double parse = cpu_seconds() - t0;
    if (!p) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    /* The same file line by line (the state machine alone, as before the fast path). */
    FILE *in = fopen(argv[1], "r");
    t0 = cpu_seconds();
    hs_profile *q = in ? hs_profile_read_by_lines(in, argv[1], &err) : NULL;
    double by_lines = cpu_seconds() - t0;
    if (in)
        fclose(in);
    if (!q || q->samples != p->samples || q->n_stacks != p->n_stacks || q->n_frames != p->n_frames) {
        fprintf(stderr, "profile_parse: the line-by-line reading differs from the fast one\n");
        return 2;
    }
    printf("%.0f MB, %llu samples, %zu distinct stacks, %zu frames\n", bytes / 1e6, p->samples, p->n_stacks,
           p->n_frames);
    printf("CPU time: read once %.3f s, read twice %.3f s\n", once, twice);
    printf("parse %.3f s: parse / two reads = %.2f\n", parse, parse / twice);
    printf("line by line %.3f s: line by line / two reads = %.2f\n", by_lines, by_lines / twice);
    printf("peak RSS of the parse %.1f MB\n", ru.ru_maxrss / 1024.0);
    hs_profile_delete(q);
    hs_profile_delete(p);
    return 0;
}
