// hotscan-args: --hot stream_process --hot check_block
/* Error paths: code that surely runs into abort() is not hot, but a read before a
 * `return` that leaves first is (the return path is the normal one). A label is only a
 * way in: what follows `fail:` still runs into the abort. assert() repeats its expression
 * inside sizeof, which is not evaluated: one read, one finding. */
#include <assert.h>
#include <stdlib.h>
#include <time.h>

struct stream { long stamp; int state; };
extern void log_error(const char *what, long when);

long stream_process(struct stream *s, int x)
{
    long t = (long)clock(); // expect: timer-hot-path
    if (x > 0)
        return t;
    if (s->state < 0)
        goto fail;
    s->stamp = (long)time(NULL); // expect: timer-hot-path
    return 0;
fail:
    log_error("bad state", (long)time(NULL));
    abort();
}

void check_block(struct stream *s)
{
    assert(time(NULL) > 0); // expect: timer-hot-path
    if (s->state == 42) {
        long cpu = (long)clock();
        log_error("corrupt block", cpu);
        abort();
    }
}
