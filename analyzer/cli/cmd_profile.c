/*
 * cmd_profile.c - `hotscan profile [-o FILE] -- COMMAND...`: records a CPU profile of a command
 * with perf (call graphs on: DWARF unwinding by default, frame pointers on request) and writes
 * it as `perf script` text (or folded stacks) that `hotscan scan --profile` reads. When perf is
 * missing or the kernel does not let this user record (perf_event_paranoid), it says so and
 * what to do, before running anything.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "hotscan/common.h"
#include "hotscan/profile.h"
#include "hotscan/tempfiles.h"

typedef struct {
    const char *output;
    hs_profile_format format;
    bool format_set;
    const char *call_graph;   /* "dwarf" or "fp" */
    int frequency;
    bool srcline;
    bool quiet;
} profile_options;

enum { OPT_FORMAT = 256, OPT_CALL_GRAPH, OPT_NO_SRCLINE };

static const hs_cli_option profile_table[] = {
    {NULL, 'o', 'o', "FILE", "write the profile to FILE (default: hotscan.perf)", 0, NULL, HS_COMPLETE_FILES,
     NULL},
    {"format", 0, OPT_FORMAT, "perf|folded",
     "perf script text with call chains and source lines (default), or folded stacks ('main;f;g 42'; "
     "the default when FILE ends in .folded)",
     0, "perf folded", HS_COMPLETE_NOTHING, NULL},
    {"call-graph", 0, OPT_CALL_GRAPH, "dwarf|fp",
     "how perf unwinds the stack (default: dwarf, which also sees frames of code built without frame "
     "pointers)",
     0, "dwarf fp", HS_COMPLETE_NOTHING, NULL},
    {"frequency", 'F', 'F', "HZ", "samples per second (default 999)", 0, NULL, HS_COMPLETE_NOTHING, NULL},
    {"no-srcline", 0, OPT_NO_SRCLINE, NULL,
     "leave out source lines (faster on large programs; same-named static functions can then not be "
     "told apart)",
     0, NULL, HS_COMPLETE_NOTHING, NULL},
    {"quiet", 'q', 'q', NULL, "no summary on standard error", 0, NULL, HS_COMPLETE_NOTHING, NULL},
    {"help", 'h', 'h', NULL, "show this help", 0, NULL, HS_COMPLETE_NOTHING, NULL},
    HS_OPTIONS_END,
};

const hs_cli_command hs_profile_command = {
    .name = "profile",
    .summary = "record a CPU profile of a command with perf, for scan --profile",
    .usage = "hotscan profile [options] -- COMMAND [ARG...]",
    .about = "Runs COMMAND under 'perf record' with call graphs and writes the profile in a format\n"
             "'hotscan scan --profile' reads. Build the program with debug information (-g); with\n"
             "--call-graph fp also with -fno-omit-frame-pointer.",
    .options = profile_table,
    .epilog = "Environment: HOTSCAN_PERF names the perf program (default: perf in PATH).\n"
              "Exit status: 0 written, 2 perf missing or not permitted, the command not run, or no samples.\n",
    /* '+': stop at the first non-option, so the command's own options are its own. */
    .getopt_prefix = "+:",
    .column = 20,
};

static void profile_usage(FILE *out)
{
    hs_cli_print_help(out, &hs_profile_command);
}

static int parse_options(int argc, char **argv, profile_options *o)
{
    hs_getopt g;
    hs_getopt_init(&g, &hs_profile_command);
    o->output = "hotscan.perf";
    o->call_graph = "dwarf";
    o->frequency = 999;
    o->srcline = true;
    optind = 1;
    opterr = 0;
    int c;
    /* '+' (hs_profile_command): stop at the first non-option, so the command's own options
     * are its own. */
    while ((c = getopt_long(argc, argv, g.shortopts, g.longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            o->output = optarg;
            break;
        case OPT_FORMAT:
            if (strcmp(optarg, "perf") == 0)
                o->format = HS_PROFILE_PERF_SCRIPT;
            else if (strcmp(optarg, "folded") == 0)
                o->format = HS_PROFILE_FOLDED;
            else {
                fprintf(stderr, "hotscan: unknown --format '%s' (perf or folded)\n", optarg);
                return 2;
            }
            o->format_set = true;
            break;
        case OPT_CALL_GRAPH:
            if (strcmp(optarg, "dwarf") != 0 && strcmp(optarg, "fp") != 0) {
                fprintf(stderr, "hotscan: unknown --call-graph '%s' (dwarf or fp)\n", optarg);
                return 2;
            }
            o->call_graph = optarg;
            break;
        case 'F': {
            char *end;
            long f = strtol(optarg, &end, 10);
            if (*end || f < 1 || f > 100000) {
                fprintf(stderr, "hotscan: --frequency needs samples per second from 1 to 100000, not '%s'\n",
                        optarg);
                return 2;
            }
            o->frequency = (int)f;
            break;
        }
        case OPT_NO_SRCLINE:
            o->srcline = false;
            break;
        case 'q':
            o->quiet = true;
            break;
        case 'h':
            profile_usage(stdout);
            return hs_close_stdout("the help") ? 0 : 2;
        case ':':
            fprintf(stderr, "hotscan: option '%s' needs a value\n", argv[optind - 1]);
            return 2;
        default:
            fprintf(stderr, "hotscan: unknown option '%s' (see 'hotscan profile --help')\n", argv[optind - 1]);
            return 2;
        }
    }
    if (!o->format_set) {
        size_t n = strlen(o->output);
        o->format = n > 7 && strcmp(o->output + n - 7, ".folded") == 0 ? HS_PROFILE_FOLDED : HS_PROFILE_PERF_SCRIPT;
    }
    if (optind < argc && strcmp(argv[optind], "--") == 0)
        optind++;
    if (optind >= argc) {
        fprintf(stderr, "hotscan: profile needs a command to run: hotscan profile [-o FILE] -- COMMAND...\n");
        return 2;
    }
    return -1;
}

/* perf's path: $HOTSCAN_PERF, else "perf" found in PATH; NULL when there is none. */
static char *find_perf(void)
{
    const char *env = getenv("HOTSCAN_PERF");
    if (env && *env)
        return access(env, X_OK) == 0 ? hs_xstrdup(env) : NULL;
    const char *path = getenv("PATH");
    char *copy = hs_xstrdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
    char *found = NULL;
    for (char *dir = strtok(copy, ":"); dir && !found; dir = strtok(NULL, ":")) {
        char *cand = hs_path_join(*dir ? dir : ".", "perf");
        if (access(cand, X_OK) == 0)
            found = cand;
        else
            free(cand);
    }
    free(copy);
    return found;
}

/* The kernel's perf_event_paranoid (HOTSCAN_TEST_PARANOID replaces it in tests); -9 unknown. */
static int read_paranoid(void)
{
    const char *test = getenv("HOTSCAN_TEST_PARANOID");
    if (test && *test)
        return atoi(test);
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
    int v = -9;
    if (f) {
        if (fscanf(f, "%d", &v) != 1)
            v = -9;
        fclose(f);
    }
    return v;
}

static void advice(int paranoid)
{
    fprintf(stderr,
            "hotscan: to record, perf needs permission to open perf events:\n"
            "  - allow unprivileged users to profile their own programs: sudo sysctl kernel.perf_event_paranoid=2\n"
            "    (1 or less also records kernel frames; the value now is %d)\n"
            "  - or run 'hotscan profile' as root, or give perf CAP_PERFMON\n"
            "  - in a container, perf_event_open may be blocked by the seccomp profile: run the\n"
            "    container with --cap-add PERFMON (or --privileged), or record on the host\n"
            "  - or record elsewhere: perf record -g -- COMMAND; perf script > FILE; then hotscan\n"
            "    scan --profile FILE\n",
            paranoid);
}

/* Runs argv with stdout going to `out_fd` (or inherited when -1); its exit status, or -1. */
static int run(char **argv, int out_fd, int *term_signal)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        hs_cleanup_in_child();
        if (out_fd >= 0) {
            dup2(out_fd, STDOUT_FILENO);
            close(out_fd);
        }
        execv(argv[0], argv);
        fprintf(stderr, "hotscan: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    hs_cleanup_add_pid(pid);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    hs_cleanup_forget_pid(pid);
    *term_signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* A temporary file beside `path`, registered for cleanup; its fd in *fd. */
static char *temp_beside(const char *path, int *fd)
{
    char *dir = hs_dirname(path);
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    char *tmpl = hs_printf("%s/.%s.hotscan-XXXXXX", dir, base);
    free(dir);
    *fd = mkstemp(tmpl);
    if (*fd < 0) {
        free(tmpl);
        return NULL;
    }
    fchmod(*fd, 0644);
    hs_cleanup_add_file(tmpl);
    return tmpl;
}

static int record(profile_options *o, char **cmd, int ncmd)
{
    char *perf = find_perf();
    if (!perf) {
        const char *env = getenv("HOTSCAN_PERF");
        char *why = env && *env ? hs_printf("HOTSCAN_PERF=%s is not an executable", env) : hs_xstrdup("no perf in PATH");
        fprintf(stderr,
                "hotscan: error: perf is not installed (%s); hotscan profile records with it.\n"
                "  Debian: apt-get install linux-perf   Ubuntu: apt-get install linux-tools-common "
                "linux-tools-$(uname -r)\n"
                "  Fedora: dnf install perf   Or record elsewhere and pass 'perf script' output to "
                "hotscan scan --profile.\n",
                why);
        free(why);
        return 2;
    }
    int paranoid = read_paranoid();
    if (paranoid > 2 && (geteuid() != 0 || getenv("HOTSCAN_TEST_PARANOID"))) {
        fprintf(stderr, "hotscan: error: the kernel does not let unprivileged users record perf events "
                        "(kernel.perf_event_paranoid is %d)\n", paranoid);
        advice(paranoid);
        free(perf);
        return 2;
    }
    hs_cleanup_install();
    /* An absolute folder only: the paths handed to perf (-o, -i) then start with '/'. */
    const char *tmpdir = getenv("TMPDIR");
    char *dir = hs_printf("%s/hotscan-profile-XXXXXX", tmpdir && tmpdir[0] == '/' ? tmpdir : "/tmp");
    if (!mkdtemp(dir)) {
        fprintf(stderr, "hotscan: error: cannot make a temporary folder %s: %s\n", dir, strerror(errno));
        free(dir);
        free(perf);
        return 2;
    }
    hs_cleanup_add_dir(dir);
    char *data = hs_path_join(dir, "perf.data");
    char freq[16];
    snprintf(freq, sizeof freq, "%d", o->frequency);
    /* DWARF unwinding copies 8 KiB of stack per sample: enough for these call chains. */
    const char *cg = strcmp(o->call_graph, "dwarf") == 0 ? "dwarf,8192" : "fp";
    hs_vec rec = {0};
    const char *fixed[] = {perf, "record", "--call-graph", cg, "-F", freq, "-o", data, "--"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        hs_vec_push(&rec, (void *)fixed[i]);
    for (int i = 0; i < ncmd; i++)
        hs_vec_push(&rec, cmd[i]);
    hs_vec_push(&rec, NULL);
    int sig = 0;
    int status = run((char **)rec.items, -1, &sig);
    hs_vec_free(&rec);
    struct stat st;
    bool have_data = stat(data, &st) == 0 && st.st_size > 0;
    int result = 2;
    if (!have_data) {
        fprintf(stderr, "hotscan: error: perf record wrote no profile (exit status %d)\n", status);
        if (status != 127)
            advice(paranoid);
        goto out;
    }
    if (status != 0 && !o->quiet)
        fprintf(stderr, "hotscan: note: the command exited with status %d; the profile is of what it ran\n",
                status);
    (void)sig;

    /* perf script, into a temporary file beside the output (perf text) or through a pipe
     * into the reader (folded). */
    int fd;
    char *tmp = temp_beside(o->output, &fd);
    if (!tmp) {
        fprintf(stderr, "hotscan: error: cannot write %s: %s\n", o->output, strerror(errno));
        goto out;
    }
    char *script_out = o->format == HS_PROFILE_FOLDED ? hs_path_join(dir, "script.txt") : NULL;
    int sfd = script_out ? open(script_out, O_WRONLY | O_CREAT | O_TRUNC, 0600) : fd;
    const char *fields = o->srcline ? "comm,tid,time,event,ip,sym,dso,srcline" : "comm,tid,time,event,ip,sym,dso";
    const char *script[] = {perf, "script", "-i", data, "-F", fields, o->srcline ? "--inline" : NULL, NULL};
    status = sfd >= 0 ? run((char **)script, sfd, &sig) : -1;
    if (script_out && sfd >= 0)
        close(sfd);
    if (status != 0) {
        fprintf(stderr, "hotscan: error: perf script failed (exit status %d)\n", status);
        close(fd);
        hs_temp_discard(tmp);
        free(script_out);
        goto out;
    }
    char *err = NULL;
    hs_profile *prof = hs_profile_load(script_out ? script_out : tmp, &err);
    if (!prof) {
        fprintf(stderr, "hotscan: error: the recorded profile cannot be read: %s\n", err);
        free(err);
        close(fd);
        hs_temp_discard(tmp);
        free(script_out);
        goto out;
    }
    bool ok = true;
    if (script_out) {
        FILE *f = fdopen(fd, "w");
        ok = f && hs_profile_write_folded(prof, f);
        if (f && fclose(f) != 0)
            ok = false;
    } else {
        ok = fsync(fd) == 0;
        ok = close(fd) == 0 && ok;
    }
    free(script_out);
    if (!ok || !hs_temp_commit(tmp, o->output)) {
        fprintf(stderr, "hotscan: error: cannot write %s: %s\n", o->output, strerror(errno));
        if (!ok)
            hs_temp_discard(tmp);
        hs_profile_delete(prof);
        goto out;
    }
    if (!o->quiet)
        fprintf(stderr,
                "hotscan: wrote %s: %llu samples with call chains (%s, %zu distinct stacks); next: hotscan "
                "scan --profile %s ...\n",
                o->output, prof->samples, hs_profile_format_name(o->format), prof->n_stacks, o->output);
    hs_profile_delete(prof);
    result = 0;
out:
    hs_remove_temp_dir(dir);
    hs_cleanup_forget_path(dir);
    free(dir);
    free(data);
    free(perf);
    return result;
}

int cmd_profile(int argc, char **argv)
{
    profile_options o = {0};
    int status = parse_options(argc, argv, &o);
    if (status >= 0)
        return status;
    return record(&o, argv + optind, argc - optind);
}
