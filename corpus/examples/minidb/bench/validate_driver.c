/* validate_driver.c - the benchmark `hotscan validate` runs on the bundled example (tests/cli/
 * validate.sh, docs/validate.md): N statements through dispatch_command, the request path.
 * It reads no clock itself: validate measures each run's wall time. Build it from the
 * example's folder with `sh bench/build.sh`. */
#include <stdio.h>
#include <stdlib.h>

#include "../minidb.h"

int dispatch_command(struct session *s, int nrows);

/* srv0srv.c's os_event API is not linked in: the driver never calls it. */
int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100000;
    struct session s = {.fd = -1};
    long found = 0;
    for (long i = 0; i < n; i++)
        found += dispatch_command(&s, 1);
    printf("statements: %ld found: %ld\n", n, found);
    return 0;
}
