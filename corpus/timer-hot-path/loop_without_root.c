/*
 * A loop alone is no hot path. Loops that no hot root reaches are start-up, admin commands
 * and shutdown on real servers: reported at low confidence, hidden by default. The same
 * kind of loop in a function a hot root reaches is flagged.
 */
// hotscan-args: --hot handle_request
#include <sys/time.h>
#include <time.h>

struct config_line {
    const char *key, *value;
    time_t parsed_at;
};

struct request {
    struct timeval started;
    int n_keys;
    long stamps[16];
};

/* Parses the configuration once at start-up: no hot root reaches it. */
void config_load(struct config_line *lines, int n)
{
    for (int i = 0; i < n; i++)
        lines[i].parsed_at = time(NULL);
}

/* Dumps state for an admin command, a loop over every key. */
void debug_dump_keys(long *stamps, int n)
{
    struct timeval tv;
    for (int i = 0; i < n; i++) {
        gettimeofday(&tv, NULL);
        stamps[i] = tv.tv_usec;
    }
}

static void stamp_keys(struct request *r)
{
    struct timeval tv;
    for (int i = 0; i < r->n_keys; i++) {
        gettimeofday(&tv, NULL); // expect: timer-hot-path
        r->stamps[i] = tv.tv_usec;
    }
}

void handle_request(struct request *r)
{
    stamp_keys(r);
}
