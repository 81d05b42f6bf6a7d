// hotscan-args: --hot process_packet
/*
 * A path that ends in abort() however it is wrapped is an error path: the usual crash
 * macro `do { ...; abort(); } while (0)`, and a function that never returns. A read just
 * before it (a crash report's timestamp) is not hot. A do/while(0) without an abort is an
 * ordinary block.
 */
#include <stdlib.h>
#include <time.h>

extern void report(const char *what, long when);

#define CRASH_NOW(msg) do { report(msg, 0); abort(); } while (0)
#define NOTE(msg) do { report(msg, 1); } while (0)

struct packet { int len; int kind; long seen; };

void process_packet(struct packet *p)
{
    if (p->len > 65536) {
        long when = (long)time(NULL);
        report("oversized packet", when);
        CRASH_NOW("oversized");
    }
    if (p->kind == 7) {
        long when = (long)clock(); // expect: timer-hot-path
        report("kind 7", when);
        NOTE("kind 7");
    }
    p->seen = (long)clock(); // expect: timer-hot-path
}
