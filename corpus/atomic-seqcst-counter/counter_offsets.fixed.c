/*
 * Counter blocks summed by offset (issue 10; haproxy's EXTRA_COUNTERS_AGGR shape). Each
 * thread group has its own block of h2 counters, bumped with a seq_cst macro; the stats
 * page adds one field over all blocks at `(char *)&field - base`, and a reset clears whole
 * blocks with memset. Neither the offset nor the memset is an escape: the counters are
 * counters. Negative: goaway_rcvd, whose address is handed to an extern registry.
 */
// hotscan-args: --min-confidence low
#include <stddef.h>
#include <string.h>

#define STAT_INC(p) __atomic_add_fetch((p), 1, __ATOMIC_RELAXED)

struct h2_counters {
    long long headers_rcvd;
    long long data_rcvd;
    long long goaway_rcvd;
};

static struct h2_counters blocks[4];

extern void register_counter(const char *name, long long *where);

void h2_headers(int tgrp)
{
    struct h2_counters *c = &blocks[tgrp & 3];
    STAT_INC(&c->headers_rcvd); // expect: atomic-seqcst-counter
}

void h2_data(int tgrp)
{
    STAT_INC(&blocks[tgrp & 3].data_rcvd); // expect: atomic-seqcst-counter
}

void h2_goaway(int tgrp)
{
    __atomic_add_fetch(&blocks[tgrp & 3].goaway_rcvd, 1, __ATOMIC_SEQ_CST);
}

void h2_register(void)
{
    register_counter("goaway", &blocks[0].goaway_rcvd);
}

static long long sum_at(size_t ofs)
{
    long long sum = 0;
    for (int i = 0; i < 4; i++)
        sum += __atomic_load_n((long long *)((char *)&blocks[i] + ofs), __ATOMIC_RELAXED);
    return sum;
}

long long h2_headers_total(void)
{
    struct h2_counters *c = &blocks[0];
    return sum_at((size_t)((char *)&c->headers_rcvd - (char *)c));
}

long long h2_data_total(void)
{
    return sum_at(offsetof(struct h2_counters, data_rcvd)) +
           sum_at((size_t)&((struct h2_counters *)0)->data_rcvd) * 0;
}

void h2_reset(void)
{
    for (int i = 0; i < 4; i++)
        memset(&blocks[i], 0, sizeof(blocks[i]));
}
