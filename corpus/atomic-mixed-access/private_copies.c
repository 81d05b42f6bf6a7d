/*
 * Plain updates of a field reached through a pointer, beside atomic updates of the same
 * field elsewhere, in the shapes real servers have where no thread races: a private copy
 * of the shared statistics aggregated for a report (a heap copy, and a pointer into a local
 * array), and a library with a plain and an atomic variant of one API, where the caller
 * picks one per object. hotscan cannot tell these from a race through a shared object, so
 * a field through a pointer is low: hidden by default. A global updated plainly is medium.
 */
#include <stdlib.h>
#include <string.h>

struct activity {
    void *func;
    unsigned long calls;
    unsigned long long cpu_time;
};

#define BUCKETS 64
struct activity sched_activity[BUCKETS];

void task_ran(struct activity *a, unsigned long long ns)
{
    __atomic_add_fetch(&a->calls, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&a->cpu_time, ns, __ATOMIC_RELAXED);
}

/* A heap copy, merged in place: no other thread has the pointer. */
unsigned long show_profiling(void)
{
    struct activity *tmp = malloc(sizeof(sched_activity));
    if (!tmp)
        return 0;
    memcpy(tmp, sched_activity, sizeof(sched_activity));
    for (int i = 0, j = 1; j < BUCKETS; j++) {
        if (tmp[j].func == tmp[i].func) {
            tmp[i].calls += tmp[j].calls;
            tmp[i].cpu_time += tmp[j].cpu_time;
        } else {
            i = j;
        }
    }
    unsigned long total = tmp[0].calls;
    free(tmp);
    return total;
}

/* A pointer into a local array. */
static struct activity *entry_for(struct activity *table, void *func)
{
    return &table[((unsigned long)func >> 4) % BUCKETS];
}

unsigned long show_tasks(void **funcs, int n)
{
    struct activity tmp[BUCKETS];
    memset(tmp, 0, sizeof(tmp));
    for (int i = 0; i < n; i++) {
        struct activity *entry = entry_for(tmp, funcs[i]);
        entry->calls++;
    }
    return tmp[0].calls;
}

/* One API, two variants: the caller picks the atomic one for a shared histogram. */
struct histogram {
    long long total_count;
};

void hist_record(struct histogram *h, long long n)
{
    h->total_count += n;
}

void hist_record_atomic(struct histogram *h, long long n)
{
    __atomic_add_fetch(&h->total_count, n, __ATOMIC_SEQ_CST); // expect: atomic-seqcst-counter
}

/* A global updated plainly once at start-up, atomically by the workers: medium, as hotscan
 * cannot see that the plain update runs before any worker starts. */
unsigned int jobs;

void master_start(void)
{
    jobs++; // expect: atomic-mixed-access
}

void worker_accept(void)
{
    __atomic_add_fetch(&jobs, 1, __ATOMIC_RELAXED);
}
