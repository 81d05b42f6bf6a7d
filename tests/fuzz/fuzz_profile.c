/*
 * fuzz_profile.c - libFuzzer target for the profile reader (--profile): any bytes are read
 * with the whole-sample fast path (hs_profile_read) and with the line-by-line state machine
 * alone (hs_profile_read_by_lines), and the two must agree: the same error, or the same
 * samples, frames and stacks. The fast path only reuses what the line-by-line reading of the
 * same bytes produced; a difference is a bug, and the target aborts on it.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hotscan/profile.h"

/* A reading as text: the error, or the samples, every frame and every stack. */
static char *describe(hs_profile *(*read)(FILE *, const char *, char **), const uint8_t *data, size_t size)
{
    FILE *f = fmemopen((void *)data, size, "r");
    if (!f)
        return NULL;
    char *err = NULL;
    hs_profile *p = read(f, "fuzz", &err);
    fclose(f);
    char *buf = NULL;
    size_t n = 0;
    FILE *out = open_memstream(&buf, &n);
    if (!p) {
        fprintf(out, "error: %s\n", err);
        free(err);
    } else {
        fprintf(out, "%d %llu\n", (int)p->format, p->samples);
        for (size_t i = 0; i < p->n_frames; i++)
            fprintf(out, "f %s\x1f%s\n", p->frames[i].name, p->frames[i].file ? p->frames[i].file : "");
        for (size_t i = 0; i < p->n_stacks; i++) {
            fprintf(out, "s %llu:", p->stacks[i].samples);
            for (size_t k = 0; k < p->stacks[i].n; k++)
                fprintf(out, " %u", p->stacks[i].frames[k]);
            fputc('\n', out);
        }
        hs_profile_delete(p);
    }
    fclose(out);
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) /* fmemopen refuses an empty buffer */
        return 0;
    char *fast = describe(hs_profile_read, data, size);
    char *slow = describe(hs_profile_read_by_lines, data, size);
    if (fast && slow && strcmp(fast, slow) != 0) {
        fprintf(stderr, "fuzz_profile: the fast path read differs:\n--- fast\n%s--- by lines\n%s", fast, slow);
        abort();
    }
    free(fast);
    free(slow);
    return 0;
}
