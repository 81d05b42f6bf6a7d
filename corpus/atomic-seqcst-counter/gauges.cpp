/*
 * A std::atomic gauge held to a limit (issue 10): connection slots are admitted while
 * `used.load() < max_used`, or when `++admitted` stays within the limit; both only go up
 * and down. Counters. Negatives: a pin count that a purge tests with `> 0` (a test of
 * zero), and a decrement whose result decides the free.
 */
// hotscan-args: --min-confidence low
#include <atomic>

static std::atomic<int> used;
static std::atomic<int> admitted;
static int max_used = 128;
static std::atomic<int> pins;
static std::atomic<int> owners;

extern void release_pool();

bool slot_take()
{
    if (used.load() < max_used) { // expect: atomic-seqcst-counter
        used++; // expect: atomic-seqcst-counter
        return true;
    }
    return false;
}

void slot_put()
{
    used--; // expect: atomic-seqcst-counter
}

bool admit()
{
    if (++admitted > max_used) { // expect: atomic-seqcst-counter
        admitted--; // expect: atomic-seqcst-counter
        return false;
    }
    return true;
}

void pin() { pins++; }
void unpin() { pins--; }

void purge()
{
    if (pins.load() > 0)
        return;
    release_pool();
}

void own() { owners++; }

void disown()
{
    if (--owners < 1)
        release_pool();
}
