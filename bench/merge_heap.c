/*
 * merge_heap.c - how the merged program model grows with the number of TUs, without
 * parsing: merges the facts documents a scan left in --facts-dir (in TU order, as the
 * scan does) and prints the heap in use and the process's RSS every STEP documents.
 *
 * usage: merge_heap FACTS_DIR [STEP]
 *
 * Build (after building hotscan in ./build):
 *   cc -O2 -Iinclude bench/merge_heap.c build/libhotscan_core.a -o build/merge_heap \
 *      $(pkg-config --cflags --libs jansson yaml-0.1 libxxhash) \
 *      -L/usr/lib/llvm-19/lib -lclang -Wl,-rpath,/usr/lib/llvm-19/lib
 * Facts to feed it: python3 bench/synthetic.py --sizes 1000 --facts --keep (docs/performance.md).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hotscan/keyset.h"
#include "hotscan/program.h"

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* VmRSS and VmHWM of this process, in KB. */
static void rss_kb(long *rss, long *hwm)
{
    char line[256];
    *rss = *hwm = 0;
    FILE *st = fopen("/proc/self/status", "r");
    while (st && fgets(line, sizeof line, st)) {
        sscanf(line, "VmRSS: %ld", rss);
        sscanf(line, "VmHWM: %ld", hwm);
    }
    if (st)
        fclose(st);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: merge_heap FACTS_DIR [STEP]\n");
        return 2;
    }
    DIR *d = opendir(argv[1]);
    if (!d) {
        perror(argv[1]);
        return 2;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        if (n == cap)
            names = realloc(names, (cap = cap ? cap * 2 : 64) * sizeof *names);
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, by_name);
    size_t step = argc > 2 ? (size_t)atoi(argv[2]) : 100;
    if (!step)
        step = 100;
    printf("%6s %10s %10s %10s %9s %9s %9s\n", "TUs", "heap KB", "RSS KB", "facts", "functions",
           "edges", "strings");
    hs_program *p = hs_program_create();
    for (size_t i = 0; i < n; i++) {
        char *path = hs_printf("%s/%s", argv[1], names[i]);
        json_t *facts = json_load_file(path, 0, NULL);
        free(path);
        if (facts) {
            json_object_set_new(facts, "tu_index", json_integer((json_int_t)i));
            hs_program_merge(p, facts);
            json_decref(facts);
        }
        if ((i + 1) % step == 0 || i + 1 == n) {
            struct mallinfo2 mi = mallinfo2();
            long rss, hwm;
            rss_kb(&rss, &hwm);
            printf("%6zu %10zu %10ld %10zu %9zu %9zu %9zu\n", i + 1, (mi.uordblks + mi.hblkhd) / 1024, rss,
                   hs_keyset_size(p->seen), p->function_list.len, p->edges.len, hs_intern_count(p->strings));
        }
    }
    hs_program_delete(p);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return 0;
}
