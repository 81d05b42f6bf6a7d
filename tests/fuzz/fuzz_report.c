/*
 * fuzz_report.c - libFuzzer target for what `hotscan apply` does with a findings report:
 * parse it, build the edit plan confined to a private scratch tree, check it as a dry run
 * (nothing is written), render the diff. The tree is made once, under $TMPDIR, with the
 * files the seeds name (a.c, src/b.c, and a symlink out of it).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "hotscan/edits.h"

static char *tree;

static void put(const char *rel, const char *text)
{
    char *path = hs_path_join(tree, rel);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    free(path);
}

static void make_tree(void)
{
    const char *tmp = getenv("TMPDIR");
    char *dir = hs_printf("%s/hotscan-fuzz-report-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(dir))
        abort();
    tree = dir;
    char *src = hs_path_join(tree, "src");
    mkdir(src, 0755);
    free(src);
    put("a.c", "#include <time.h>\nlong f(void) { return clock() + clock(); }\n");
    put("src/b.c", "int b = 1;\nint c = 2;\n");
    char *link = hs_path_join(tree, "out.c");
    if (symlink("/etc/hostname", link) != 0) {
        /* only a seed's escape attempt needs it */
    }
    free(link);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!tree)
        make_tree();
    json_error_t jerr;
    json_t *report = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &jerr);
    if (!report)
        return 0;
    if (json_is_object(report) && !json_is_string(json_object_get(report, "root")))
        json_object_set_new(report, "root", json_string(tree));
    hs_edit_plan plan;
    char *err = NULL;
    if (hs_edit_plan_build_confined(report, tree, &plan, &err)) {
        for (size_t i = 0; i < plan.files.len; i++) {
            hs_file_edits *fe = plan.files.items[i];
            if (strncmp(fe->real_path, tree, strlen(tree)) != 0)
                abort(); /* an edit outside the confining tree */
            size_t n;
            free(hs_file_edits_apply(fe, &n));
        }
        hs_apply_result res;
        hs_apply_plan(&plan, true, NULL, &res);
        char *buf = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&buf, &len);
        if (mem) {
            hs_edit_plan written = {0};
            written.files = res.written;
            hs_edit_plan_write_patch(mem, &written);
            fclose(mem);
        }
        free(buf);
        hs_apply_result_free(&res);
        hs_edit_plan_free(&plan);
    } else if (!err) {
        abort();
    }
    free(err);
    json_decref(report);
    return 0;
}
