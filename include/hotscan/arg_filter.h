/*
 * arg_filter.h - which options of a compile command this libclang does not know, so the
 * extract stage can leave them out of its parse (analyzer/extract/arg_filter.c says why),
 * and bench/parse_floor.c too, to parse as hotscan does.
 */
#ifndef HOTSCAN_ARG_FILTER_H
#define HOTSCAN_ARG_FILTER_H

#include <clang-c/Index.h>
#include <stdbool.h>

typedef struct hs_arg_filter hs_arg_filter;

typedef enum {
    HS_ARG_KEEP,            /* known to clang, or not asked about (not -f, -m or -W) */
    HS_ARG_UNKNOWN_WARNING, /* a -W option clang does not know ("unknown warning option") */
    HS_ARG_UNKNOWN_OPTION,  /* an option the driver does not know ("unknown argument") */
} hs_arg_verdict;

hs_arg_filter *hs_arg_filter_create(void);
void hs_arg_filter_delete(hs_arg_filter *f);

/*
 * Fills verdicts[i] for argv[1..argc-1] (verdicts[0], the compiler, is HS_ARG_KEEP),
 * asking libclang through `index` about the options no earlier call saw, all in one parse
 * of an empty file. Every verdict is HS_ARG_KEEP when the answer is not clear.
 */
void hs_arg_filter_classify(hs_arg_filter *f, CXIndex index, char *const *argv, int argc,
                            hs_arg_verdict *verdicts);

/*
 * Whether a diagnostic is the driver's "unknown argument" error, and (when `name` is given)
 * the option it names: the first quoted name of "unknown argument: '-fx'" or "unknown
 * argument '-fx'; did you mean '-fy'?", or NULL; the caller frees it. The one place hotscan
 * reads that text: libclang gives the driver's error no option name to match instead.
 */
bool hs_diagnostic_unknown_argument(CXDiagnostic d, char **name);

#endif
