/*
 * A counter shared by two TUs: stream.c updates it with HA_ATOMIC_INC(), stats.c with a
 * plain `++` (atomic-mixed-access there). The atomic add is still a counter operation,
 * reported without a fix while the plain update races with it.
 */
#ifndef COUNTERS_H
#define COUNTERS_H

#include <stdint.h>

#define HA_ATOMIC_INC(p) __atomic_add_fetch((p), 1, __ATOMIC_SEQ_CST)
#define HA_ATOMIC_LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)

extern uint64_t total_sess;

#endif
