// hotscan-args: --hot handle_request --disable timer-hot-path
/*
 * When hot roots are known, a second read in code no hot root reaches (start-up, config
 * loading, an admin command) costs nothing that matters: low, hidden by default. The same
 * duplicate in a function the hot root reaches is reported.
 */
#include <stdlib.h>
#include <time.h>

struct server { time_t started, stats_reset, last; long seed; };
struct server srv;

void init_server(void)
{
    srv.started = time(NULL);
    srv.stats_reset = time(NULL);
    srand((unsigned)time(NULL));
}

static void touch(void)
{
    srv.last = time(NULL);
    srv.seed = (long)time(NULL); // expect: timer-duplicate
}

void handle_request(void)
{
    touch();
}
