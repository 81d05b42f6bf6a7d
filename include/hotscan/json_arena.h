/*
 * json_arena.h - a bump allocator for jansson, for the facts documents that live exactly one
 * TU: a worker builds one per TU and writes it out, the supervisor reads one per TU and merges
 * it. Each such document is hundreds of thousands of small jansson allocations that are all
 * dead when the TU is done; with malloc, allocating and freeing them was about a sixth of
 * the JSON cost on both sides (docs/performance.md, "Issue 8, session 32").
 *
 * Use: create an arena; enter it on the thread that builds or reads the document; leave;
 * drop the document (json_decref); reset. While a thread is in an arena, every jansson
 * allocation on that thread comes from it; jansson's frees of arena memory do nothing, and
 * reset takes it all back at once. Allocations on other threads, or outside enter/leave, are
 * plain malloc and free, so jansson values made elsewhere mix freely with arena ones.
 *
 * The rule the caller keeps: when it resets, no value allocated in the arena is alive (none
 * kept with json_incref, none stored in a longer-lived structure). Under AddressSanitizer
 * reset poisons the arena, so a value that outlives it fails the tests instead of reading
 * the next TU's memory. Memory a document needs beyond the arena's size comes from malloc,
 * and the next reset grows the arena to fit.
 */
#ifndef HOTSCAN_JSON_ARENA_H
#define HOTSCAN_JSON_ARENA_H

#include <stdbool.h>
#include <stddef.h>

typedef struct hs_json_arena hs_json_arena;

/* NULL when the arena cannot be made (no address space, or too many arenas) or is turned
 * off (HOTSCAN_NO_JSON_ARENA set, not "0", for benchmarks and debugging): the caller
 * then goes on without one, and the enter/leave/reset calls below accept NULL. The first
 * arena installs the allocator in jansson (json_set_alloc_funcs): make it before other
 * threads use jansson. */
hs_json_arena *hs_json_arena_create(void);
void hs_json_arena_delete(hs_json_arena *a);

/* Jansson allocations on this thread come from `a` until hs_json_arena_leave. */
void hs_json_arena_enter(hs_json_arena *a);
void hs_json_arena_leave(hs_json_arena *a);

/* Takes back everything allocated in `a` (see the rule above); not while entered. */
void hs_json_arena_reset(hs_json_arena *a);

/* True when every allocation made in `a` since the last reset is in it (none overflowed to
 * malloc): a document built wholly inside `a` from values it made itself can then be dropped
 * by the reset alone, without json_decref walking it to free nothing. */
bool hs_json_arena_holds_all(const hs_json_arena *a);

/* Bytes handed out since the last reset, and by malloc because the arena was full. */
void hs_json_arena_usage(const hs_json_arena *a, size_t *in_arena, size_t *overflow);

#endif
