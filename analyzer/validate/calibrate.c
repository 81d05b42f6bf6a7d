/*
 * calibrate.c - what each clock read and each atomic costs on this host, so that findings can
 * say "clock() costs 1.4 us here (a system call)" instead of a cost class. A small C++
 * program is generated from the rule data (every standard clock API it lists that the host
 * has, clock_gettime/getrusage for each of its clock ids), compiled with clang at -O2 and run;
 * each read is timed in batches for about 10 ms, and the median of the repeats is kept. The
 * result is rule data (a "calibration" section), so `scan --rules FILE` reads it back.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "hotscan/ruledata.h"
#include "hotscan/tempfiles.h"
#include "hotscan/validate.h"

static const char prologue[] =
    "#include <algorithm>\n#include <atomic>\n#include <chrono>\n#include <cstdio>\n#include <ctime>\n"
    "#include <vector>\n#include <sys/resource.h>\n#include <sys/time.h>\n#include <sys/times.h>\n"
    "#if __has_include(<sys/timeb.h>)\n#include <sys/timeb.h>\n#define HAVE_FTIME 1\n#endif\n"
    "#if defined(__x86_64__) || defined(__i386__)\n#include <x86intrin.h>\n#endif\n"
    "static volatile long sink;\nstatic std::atomic<long> counter{0};\nstatic int repeats = REPEATS;\n"
    "template <class F> static void measure(const char *name, F f) {\n"
    "    std::vector<double> r;\n"
    "    for (int k = 0; k < repeats; k++) {\n"
    "        auto t0 = std::chrono::steady_clock::now();\n"
    "        long n = 0;\n"
    "        std::chrono::nanoseconds el;\n"
    "        do {\n"
    "            for (int i = 0; i < 64; i++) f();\n"
    "            n += 64;\n"
    "            el = std::chrono::steady_clock::now() - t0;\n"
    "        } while (el.count() < 10000000);\n"
    "        r.push_back((double)el.count() / (double)n);\n"
    "    }\n"
    "    std::sort(r.begin(), r.end());\n"
    "    std::printf(\"%s\\t%.3f\\n\", name, r[r.size() / 2]);\n"
    "}\n"
    "int main() {\n";

/* Standard APIs the rule data may list, with a statement that reads each once. */
static const struct {
    const char *api, *guard, *body;
} known[] = {
    {"clock", NULL, "sink += (long)clock();"},
    {"time", NULL, "sink += (long)time(nullptr);"},
    {"gettimeofday", NULL, "timeval tv; gettimeofday(&tv, nullptr); sink += tv.tv_usec;"},
    {"timespec_get", NULL, "timespec ts; timespec_get(&ts, TIME_UTC); sink += ts.tv_nsec;"},
    {"times", NULL, "tms t; sink += (long)times(&t);"},
    {"ftime", "HAVE_FTIME", "timeb tb; ftime(&tb); sink += tb.millitm;"},
    {"std::chrono::system_clock::now", NULL, "sink += std::chrono::system_clock::now().time_since_epoch().count();"},
    {"std::chrono::steady_clock::now", NULL, "sink += std::chrono::steady_clock::now().time_since_epoch().count();"},
    {"std::chrono::high_resolution_clock::now", NULL,
     "sink += std::chrono::high_resolution_clock::now().time_since_epoch().count();"},
    {"__rdtsc", "__x86_64__", "sink += (long)__rdtsc();"},
    {"__builtin_ia32_rdtsc", "__x86_64__", "sink += (long)__builtin_ia32_rdtsc();"},
    {"__rdtscp", "__x86_64__", "unsigned a; sink += (long)__rdtscp(&a);"},
};

static char *program_text(const hs_ruledata *rd, int repeats, size_t *unmeasured)
{
    hs_buf b;
    hs_buf_init(&b);
    hs_buf_printf(&b, "#define REPEATS %d\n%s", repeats, prologue);
    *unmeasured = 0;
    for (size_t i = 0; i < rd->timers.len; i++) {
        const hs_timer_api *t = rd->timers.items[i];
        bool found = false;
        for (size_t k = 0; k < sizeof known / sizeof *known; k++) {
            if (strcmp(known[k].api, t->name) != 0)
                continue;
            found = true;
            if (known[k].guard)
                hs_buf_printf(&b, "#if defined(%s)\n", known[k].guard);
            hs_buf_printf(&b, "    measure(\"%s()\", [] { %s });\n", t->name, known[k].body);
            if (known[k].guard)
                hs_buf_puts(&b, "#endif\n");
        }
        if (!found && strcmp(t->name, "clock_gettime") != 0 && strcmp(t->name, "getrusage") != 0)
            (*unmeasured)++; /* a project's wrapper or another platform's API */
    }
    hs_vec ids = {0};
    hs_strmap_sorted_keys(rd->clock_ids, &ids);
    for (size_t i = 0; i < ids.len; i++) {
        const char *id = ids.items[i];
        bool rusage = strncmp(id, "RUSAGE_", 7) == 0;
        hs_buf_printf(&b, "#ifdef %s\n", id);
        if (rusage)
            hs_buf_printf(&b, "    measure(\"getrusage(%s)\", [] { rusage u; getrusage(%s, &u); sink += u.ru_utime.tv_usec; });\n",
                          id, id);
        else
            hs_buf_printf(&b, "    measure(\"clock_gettime(%s)\", [] { timespec ts; clock_gettime(%s, &ts); sink += ts.tv_nsec; });\n",
                          id, id);
        hs_buf_puts(&b, "#endif\n");
    }
    hs_vec_free(&ids);
    hs_buf_puts(&b,
                "    measure(\"atomic increment (relaxed)\", [] { counter.fetch_add(1, std::memory_order_relaxed); });\n"
                "    measure(\"atomic increment (seq_cst)\", [] { counter.fetch_add(1); });\n"
                "    measure(\"atomic store (relaxed)\", [] { counter.store(sink, std::memory_order_relaxed); });\n"
                "    measure(\"atomic store (seq_cst)\", [] { counter.store(sink); });\n"
                "    measure(\"atomic load (relaxed)\", [] { sink += counter.load(std::memory_order_relaxed); });\n"
                "    measure(\"atomic load (seq_cst)\", [] { sink += counter.load(); });\n"
                "    return 0;\n}\n");
    return hs_buf_take(&b);
}

json_t *hs_calibrate(const hs_ruledata *rd, const char *compiler, int repeats, const char *workdir, char **err)
{
    size_t unmeasured;
    char *text = program_text(rd, repeats, &unmeasured);
    char *src = hs_path_join(workdir, "calibrate.cc"), *bin = hs_path_join(workdir, "calibrate");
    json_t *result = NULL;
    FILE *f = fopen(src, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        *err = hs_printf("cannot write %s: %s", src, strerror(errno));
        goto out;
    }
    char *cc[] = {(char *)compiler, "-x", "c++", "-std=c++17", "-O2", "-w", "-o", bin, src, "-lstdc++", NULL};
    hs_proc_result r;
    hs_proc_run(cc, workdir, 300, &r);
    if (r.failed_start || r.timed_out || r.status != 0) {
        char *tail = hs_tail_lines(r.output ? r.output : "", 15);
        *err = hs_printf("compiling the calibration program with %s failed (status %d):\n%s", compiler, r.status, tail);
        free(tail);
        hs_proc_result_free(&r);
        goto out;
    }
    hs_proc_result_free(&r);
    char *run[] = {bin, NULL};
    hs_proc_run(run, workdir, 600, &r);
    if (r.failed_start || r.timed_out || r.status != 0) {
        char *tail = hs_tail_lines(r.output ? r.output : "", 15);
        *err = hs_printf("the calibration program failed (status %d%s):\n%s", r.status, r.timed_out ? ", timed out" : "",
                         tail);
        free(tail);
        hs_proc_result_free(&r);
        goto out;
    }
    json_t *ns = json_object();
    for (char *line = r.output; line && *line;) {
        char *end = strchr(line, '\n');
        if (end)
            *end = '\0';
        char *tab = strchr(line, '\t');
        if (tab) {
            *tab = '\0';
            json_object_set_new(ns, line, json_real(strtod(tab + 1, NULL)));
        }
        line = end ? end + 1 : NULL;
    }
    hs_proc_result_free(&r);
    struct utsname u;
    char host[512] = "unknown";
    if (uname(&u) == 0)
        snprintf(host, sizeof host, "%s %s %s", u.nodename, u.sysname, u.release);
    char when[64] = "";
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm))
        strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    char *method = hs_printf("each read in batches of 64 for at least 10 ms, median of %d repeats, %s -O2; %zu API%s "
                             "of the rule data (project wrappers, other platforms) not measured",
                             repeats, compiler, unmeasured, unmeasured == 1 ? "" : "s");
    result = json_pack("{s:s, s:{s:s, s:s, s:s, s:o}}", "description",
                       "hotscan calibrate: what each clock read and atomic operation costs on this host, in ns per call. "
                       "Give it to scan with --calibration FILE (or --rules FILE) and messages quote these costs.",
                       "calibration", "host", host, "measured", when, "method", method, "ns_per_call", ns);
    free(method);
out:
    unlink(src);
    unlink(bin);
    free(src);
    free(bin);
    free(text);
    return result;
}
