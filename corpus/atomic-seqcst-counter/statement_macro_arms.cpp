/*
 * std::atomic counters bumped in an arm of an if/else written inside a statement macro:
 * the add's result decides nothing. Before, an if/else in one macro expansion was read as
 * having no else, its then arm as part of the condition, and these counters as reference
 * counts. (An operation in a macro of C++ member calls gets no fix.)
 * Negatives: `Node::refs_`, whose fetch_sub result decides a delete in the same macro
 * shape; `generation_`, whose fetch_add result is compared in the macro's condition.
 */
// hotscan-args: --min-confidence low
#include <atomic>
#include <cstdint>

extern bool g_tracing;
extern void trace_event(const char *what);
extern void on_first_generation();

#define RECORD_TICK(ctr, name)         \
    do {                               \
        if (g_tracing)                 \
            (ctr).fetch_add(1);        \
        else                           \
            trace_event(name);         \
    } while (0)

#define UNREF(node)                              \
    do {                                         \
        if ((node)->refs_.fetch_sub(1) == 1)     \
            delete (node);                       \
        else                                     \
            trace_event("unref");                \
    } while (0)

#define BUMP_GENERATION(gen)                     \
    do {                                         \
        if ((gen).fetch_add(1) == 0)             \
            on_first_generation();               \
        else                                     \
            trace_event("generation");           \
    } while (0)

struct Node {
    std::atomic<int> refs_{1};
};

struct Statistics {
    std::atomic<uint64_t> block_cache_miss{0};
    std::atomic<uint64_t> block_cache_hit{0};
    std::atomic<uint64_t> generation_{0};

    void OnLookup(bool hit, Node *n)
    {
        if (hit)
            RECORD_TICK(block_cache_hit, "hit"); // expect: atomic-seqcst-counter
        else
            RECORD_TICK(block_cache_miss, "miss"); // expect: atomic-seqcst-counter
        UNREF(n);
        BUMP_GENERATION(generation_);
    }
    uint64_t Total() const
    {
        return block_cache_hit.load(std::memory_order_relaxed) + block_cache_miss.load(std::memory_order_relaxed);
    }
};
