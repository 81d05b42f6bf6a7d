/*
 * One clock read through two APIs: a second read whose value the first reading already
 * holds is a duplicate, whatever API it goes through (`time(NULL)` after `gettimeofday`:
 * tv.tv_sec), and so is time(NULL) after a gettimeofday()-based wrapper. Reported without a
 * fix: the value needs a conversion. Not duplicates: a finer read after a coarser one
 * (gettimeofday() after time(): the microseconds are not at hand), another clock (monotonic
 * after wall), and two reads of one API where the first reading is used before the second
 * read exists (a name given the second reading later held something else when the first
 * was subtracted from it).
 */
// hotscan-args: --hot handle --hot finer --hot other_clock --hot ordered --hot ordered_api --hot handle_wrapped --enable timer-duplicate
#include <sys/time.h>
#include <time.h>

long long ustime(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (long long)tv.tv_sec * 1000000 + tv.tv_usec;
}

struct req {
    long long started_us, took;
    time_t started, expires;
    struct timeval arrived;
    struct timespec mono;
};

void handle(struct req *r)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    r->arrived = tv;
    r->started = time(NULL); // expect: timer-duplicate
}

void handle_wrapped(struct req *r)
{
    r->started_us = ustime();
    r->expires = time(NULL) + 60; // expect: timer-duplicate
}

void finer(struct req *r)
{
    r->started = time(NULL);
    gettimeofday(&r->arrived, NULL);
}

void other_clock(struct req *r)
{
    r->started = time(NULL);
    clock_gettime(CLOCK_MONOTONIC, &r->mono);
}

void ordered(struct req *r, long long start)
{
    long long a = ustime();
    r->took = a - start;
    start = ustime(); // expect: timer-duplicate
    r->started_us = start;
}

void ordered_api(struct req *r, time_t start)
{
    time_t a = time(NULL);
    r->took = a - start;
    start = time(NULL); // expect: timer-duplicate
    r->started = start;
}
