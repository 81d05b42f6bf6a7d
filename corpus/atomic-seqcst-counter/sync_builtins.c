/*
 * The legacy __sync builtins, full barriers every one, as older memcached- and
 * MySQL-era C code uses them on plain integers. __sync_fetch_and_add on a statistic and
 * __sync_add_and_fetch for a ticket (its value used as an id) are flagged.
 * Negatives: obj->refcnt (`__sync_sub_and_fetch(...) == 0` frees the object);
 * spin (__sync_lock_test_and_set / __sync_lock_release: a spinlock, and an exchange);
 * slab_flags (__sync_fetch_and_or); alloc_cursor (advanced with __sync_fetch_and_add but
 * also reset by __sync_bool_compare_and_swap).
 */
// hotscan-args: --min-confidence low
#include <stdlib.h>

struct item {
    int refcnt;
    char *data;
};

static struct {
    unsigned long get_cmds;
    unsigned long get_hits;
    unsigned long set_cmds;
} thread_stats;

static unsigned int next_cas_id;
static volatile int spin;
static unsigned int slab_flags;
static unsigned long alloc_cursor;

void process_get(int hit)
{
    __sync_fetch_and_add(&thread_stats.get_cmds, 1); // expect: atomic-seqcst-counter
    if (hit)
        __sync_fetch_and_add(&thread_stats.get_hits, 1); // expect: atomic-seqcst-counter
}

unsigned int get_cas_id(void)
{
    return __sync_add_and_fetch(&next_cas_id, 1); // expect: atomic-seqcst-counter
}

void process_set(void)
{
    __sync_add_and_fetch(&thread_stats.set_cmds, 1); // expect: atomic-seqcst-counter
}

void item_remove(struct item *it)
{
    if (__sync_sub_and_fetch(&it->refcnt, 1) == 0) {
        free(it->data);
        free(it);
    }
}

void item_ref(struct item *it)
{
    __sync_fetch_and_add(&it->refcnt, 1);
}

void stats_lock(void)
{
    while (__sync_lock_test_and_set(&spin, 1))
        ;
}

void stats_unlock(void)
{
    __sync_lock_release(&spin);
}

void slab_mark(unsigned int flag)
{
    __sync_fetch_and_or(&slab_flags, flag);
}

unsigned long alloc_next(unsigned long size)
{
    return __sync_fetch_and_add(&alloc_cursor, size);
}

void alloc_rewind(unsigned long seen)
{
    __sync_bool_compare_and_swap(&alloc_cursor, seen, 0);
}
