/*
 * json_arena.c - jansson's allocator while a thread builds or reads one TU's facts document
 * (json_arena.h says when and why).
 *
 * An arena is one anonymous mapping, bumped 16 bytes aligned. jansson's free cannot be told
 * the size or the origin of a block, so arena memory is told apart by address: each arena's
 * range is in a small fixed table, and a block outside every range is malloc's. That keeps
 * malloc'd blocks header-free, so memory jansson hands to callers (json_dumps's text, freed
 * with free()) is still malloc's whenever it was made outside an arena.
 */
#define _GNU_SOURCE
#include "hotscan/json_arena.h"

#include <jansson.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "hotscan/common.h"

#if defined(__SANITIZE_ADDRESS__)
#define HS_ARENA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HS_ARENA_ASAN 1
#endif
#endif
#ifdef HS_ARENA_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define ARENA_ALIGN 16
#define ARENA_FIRST_SIZE ((size_t)8 << 20)
/* Largest arena: a bigger document overflows to malloc. Kept well under a worker's
 * --tu-memory address-space cap. */
#define ARENA_MAX_SIZE ((size_t)512 << 20)
/* Pages beyond this stay mapped but are given back to the system at each reset: with malloc,
 * a document's freed memory went back to the heap that libclang's next parse takes from; the
 * arena's does not, so it keeps little resident between TUs (a worker's peak is its parse:
 * rocksdb's workers sit near 450 MB each against a 1 GB target for the whole scan). Touching
 * the pages again costs about a millisecond for a 10 MB document. */
#define ARENA_KEEP_RESIDENT ((size_t)4 << 20)
#define MAX_ARENAS 8

struct hs_json_arena {
    char *base;
    size_t size, used;
    size_t overflow; /* bytes malloc'd since the last reset because the arena was full */
    size_t slot;     /* index in `arenas` */
};

/* Every live arena's range, for arena_free. Written when an arena is made, grown or
 * deleted (no document alive then); read by every free. */
static struct {
    _Atomic(uintptr_t) lo, hi;
} arenas[MAX_ARENAS];
static _Atomic size_t slots_used; /* 1 + the highest slot ever used: arena_free looks no further */
static atomic_bool installed;

static _Thread_local hs_json_arena *current;

static void *arena_malloc(size_t n)
{
    hs_json_arena *a = current;
    if (a) {
        size_t need = (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
        if (need >= n && need <= a->size - a->used) {
            char *p = a->base + a->used;
            a->used += need;
            UNPOISON(p, n);
            return p;
        }
        a->overflow += n;
    }
    return malloc(n);
}

static void arena_free(void *p)
{
    uintptr_t u = (uintptr_t)p;
    size_t n = atomic_load_explicit(&slots_used, memory_order_relaxed);
    for (size_t i = 0; i < n; i++)
        if (u >= atomic_load_explicit(&arenas[i].lo, memory_order_relaxed) &&
            u < atomic_load_explicit(&arenas[i].hi, memory_order_relaxed))
            return; /* taken back by the next reset */
    free(p);
}

static bool map_region(hs_json_arena *a, size_t size)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return false;
    a->base = p;
    a->size = size;
    POISON(a->base, a->size);
    atomic_store(&arenas[a->slot].lo, (uintptr_t)a->base);
    atomic_store(&arenas[a->slot].hi, (uintptr_t)a->base + a->size);
    return true;
}

static void unmap_region(hs_json_arena *a)
{
    atomic_store(&arenas[a->slot].lo, 0);
    atomic_store(&arenas[a->slot].hi, 0);
    UNPOISON(a->base, a->size);
    munmap(a->base, a->size);
    a->base = NULL;
    a->size = 0;
}

hs_json_arena *hs_json_arena_create(void)
{
    if (hs_env_flag("HOTSCAN_NO_JSON_ARENA"))
        return NULL; /* bench and debugging: jansson on malloc alone */
    size_t slot = MAX_ARENAS;
    for (size_t i = 0; i < MAX_ARENAS && slot == MAX_ARENAS; i++)
        if (atomic_load(&arenas[i].hi) == 0)
            slot = i;
    if (slot == MAX_ARENAS)
        return NULL;
    hs_json_arena *a = hs_xcalloc(1, sizeof *a);
    a->slot = slot;
    if (atomic_load(&slots_used) < slot + 1)
        atomic_store(&slots_used, slot + 1);
    if (!map_region(a, ARENA_FIRST_SIZE)) {
        free(a);
        return NULL;
    }
    bool expected = false;
    if (atomic_compare_exchange_strong(&installed, &expected, true))
        json_set_alloc_funcs(arena_malloc, arena_free);
    return a;
}

void hs_json_arena_delete(hs_json_arena *a)
{
    if (!a)
        return;
    if (current == a)
        current = NULL;
    unmap_region(a);
    free(a);
    /* The allocator stays installed: blocks made outside arenas are plain malloc's. */
}

void hs_json_arena_enter(hs_json_arena *a)
{
    if (a)
        current = a;
}

void hs_json_arena_leave(hs_json_arena *a)
{
    if (a && current == a)
        current = NULL;
}

void hs_json_arena_reset(hs_json_arena *a)
{
    if (!a)
        return;
    if (a->overflow && a->size < ARENA_MAX_SIZE) {
        /* This document did not fit: make room for one like it. */
        size_t want = a->size;
        while (want < a->used + a->overflow + a->overflow / 4 && want < ARENA_MAX_SIZE)
            want *= 2;
        size_t old = a->size;
        unmap_region(a);
        /* With no address space even for the old size, base stays NULL: malloc alone. */
        if (!map_region(a, want < ARENA_MAX_SIZE ? want : ARENA_MAX_SIZE))
            map_region(a, old);
    } else if (a->used) {
        POISON(a->base, a->used);
        if (a->used > ARENA_KEEP_RESIDENT)
            madvise(a->base + ARENA_KEEP_RESIDENT, a->used - ARENA_KEEP_RESIDENT, MADV_DONTNEED);
    }
    a->used = 0;
    a->overflow = 0;
}

bool hs_json_arena_holds_all(const hs_json_arena *a)
{
    return a && a->base && a->overflow == 0;
}

void hs_json_arena_usage(const hs_json_arena *a, size_t *in_arena, size_t *overflow)
{
    *in_arena = a ? a->used : 0;
    *overflow = a ? a->overflow : 0;
}
