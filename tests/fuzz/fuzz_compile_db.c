/*
 * fuzz_compile_db.c - libFuzzer target for the compile-database check (discover.c's
 * hs_check_compile_database_text): any bytes either pass or give an error naming the file.
 */
#include <stdint.h>
#include <stdlib.h>

#include "hotscan/discover.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *err = NULL;
    bool ok = hs_check_compile_database_text("compile_commands.json", (const char *)data, size, &err);
    if (!ok && !err)
        abort(); /* a refusal always says why */
    free(err);
    return 0;
}
