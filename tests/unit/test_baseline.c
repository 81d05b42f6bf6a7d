/*
 * test_baseline.c - unit tests for --baseline's reader and marker (analyzer/judge/baseline.c):
 * a JSON report's and a SARIF log's fingerprints, and the errors for anything else.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hotscan/baseline.h"
#include "hotscan/common.h"

static char *write_temp(const char *text)
{
    char *path = hs_xstrdup("/tmp/hotscan-test-baseline-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return path;
}

static void test_json_and_sarif(void **state)
{
    (void)state;
    char *json = write_temp("{\"findings\": [{\"fingerprint\": \"aaaa\"}, {\"fingerprint\": \"bbbb\"}, {}]}");
    char *sarif = write_temp("{\"runs\": [{\"results\": [{\"partialFingerprints\": {\"hotscan/v1\": \"cccc\"}},"
                             " {\"partialFingerprints\": {\"other/v1\": \"dddd\"}}]}]}");
    hs_strmap *fps = hs_strmap_create();
    char *err = NULL;
    assert_true(hs_baseline_load(json, fps, &err));
    assert_true(hs_baseline_load(sarif, fps, &err));
    assert_int_equal(hs_strmap_size(fps), 3);
    assert_false(hs_strmap_has(fps, "dddd"));
    json_t *findings = json_pack("[{s:s}, {s:s}, {}]", "fingerprint", "cccc", "fingerprint", "eeee");
    assert_int_equal(hs_baseline_mark(findings, fps), 1);
    assert_true(json_is_true(json_object_get(json_array_get(findings, 0), "baselined")));
    assert_null(json_object_get(json_array_get(findings, 1), "baselined"));
    json_decref(findings);
    hs_strmap_delete(fps);
    unlink(json);
    unlink(sarif);
    free(json);
    free(sarif);
}

static void test_errors(void **state)
{
    (void)state;
    char *bad = write_temp("{\"findings\": [\n");
    char *other = write_temp("[1, 2]");
    hs_strmap *fps = hs_strmap_create();
    char *err = NULL;
    assert_false(hs_baseline_load(bad, fps, &err));
    assert_non_null(strstr(err, bad));
    assert_non_null(strstr(err, "not valid JSON"));
    free(err);
    err = NULL;
    assert_false(hs_baseline_load(other, fps, &err));
    assert_non_null(strstr(err, "not a hotscan report"));
    free(err);
    err = NULL;
    assert_false(hs_baseline_load("/nonexistent/base.json", fps, &err));
    assert_non_null(strstr(err, "/nonexistent/base.json"));
    free(err);
    hs_strmap_delete(fps);
    unlink(bad);
    unlink(other);
    free(bad);
    free(other);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_and_sarif),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
