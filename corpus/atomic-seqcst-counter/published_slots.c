/*
 * Counts that publish the slots they count through an index test (issue 10, found on
 * MariaDB 10.4's performance schema: `*_class_allocated_count`): a registration fills a
 * class slot, then adds to the count ("now that this entry is populated, advertise it"),
 * and a lookup returns the slot only when its key is within the count
 * (`if (key > count) return NULL; return &array[key - 1];`). The count's add is what lets
 * another thread use the slot: not a statistic, whatever order it needs. Not flagged,
 * whether read plainly or with an atomic load.
 * Positive: the slot reservation beside it (every add hands its value out, and the slot it
 * reserves is filled after), and a gauge held to a configured limit.
 */
// hotscan-args: --min-confidence low
#include <stddef.h>

struct entry {
    const char *name;
    int flags;
};

#define MAX_CLASSES 64
static struct entry class_array[MAX_CLASSES];
static unsigned class_dirty_count;
static unsigned class_allocated_count;
static unsigned cond_allocated_count;
static struct entry cond_array[MAX_CLASSES];
static unsigned opened_now;
static unsigned max_open = 100;

unsigned register_class(const char *name, int flags)
{
    unsigned index = __atomic_fetch_add(&class_dirty_count, 1, __ATOMIC_SEQ_CST); // expect: atomic-seqcst-counter
    if (index >= MAX_CLASSES)
        return 0;
    class_array[index].name = name;
    class_array[index].flags = flags;
    __atomic_fetch_add(&class_allocated_count, 1, __ATOMIC_SEQ_CST);
    return index + 1;
}

struct entry *find_class(unsigned key)
{
    if (key == 0 || key > class_allocated_count)
        return NULL;
    return &class_array[key - 1];
}

unsigned register_cond(const char *name)
{
    unsigned index = 0;
    while (index < MAX_CLASSES && cond_array[index].name)
        index++;
    if (index >= MAX_CLASSES)
        return 0;
    cond_array[index].name = name;
    __atomic_add_fetch(&cond_allocated_count, 1, __ATOMIC_SEQ_CST);
    return index + 1;
}

struct entry *find_cond(unsigned key)
{
    if (key > __atomic_load_n(&cond_allocated_count, __ATOMIC_SEQ_CST))
        return NULL;
    return &cond_array[key - 1];
}

int open_one(void)
{
    if (opened_now >= max_open)
        return -1;
    __atomic_fetch_add(&opened_now, 1, __ATOMIC_SEQ_CST); // expect: atomic-seqcst-counter
    return 0;
}
