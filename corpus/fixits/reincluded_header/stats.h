/*
 * Server statistics for server.c. The module header included below includes
 * this one back, so the preprocessor enters this file a second time while its guard is
 * defined and skips the whole body there: that skipped body is compiled code, not code the
 * configuration leaves out. The DEBUG_WAITS arm is left out in every inclusion.
 */
#ifndef SERVER_STATS_H
#define SERVER_STATS_H

#include <stdatomic.h>
#include "module.h"

struct server_stats {
    atomic_long requests;
};

extern struct server_stats stats;
extern atomic_long in_queue;

#ifdef DEBUG_WAITS
static inline void wait_queue_empty(void)
{
    while (atomic_load(&in_queue) != 0) {
    }
}
#endif

#endif
