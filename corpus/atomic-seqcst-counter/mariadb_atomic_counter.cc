/*
 * MariaDB's Atomic_counter<T> and Atomic_relaxed<T> (include/my_counter.h, my_atomic_wrapper.h),
 * defined here as in the server: every operation inside is relaxed already, so neither the
 * classes' own std::atomic member nor the users' operators (thread_count++, --pending,
 * `if (!--refs)`) may be flagged. The user-side calls go to Atomic_counter's methods, not
 * to std::atomic, and Atomic_counter/Atomic_relaxed are listed as relaxed types in
 * rules/atomics.json.
 */
// hotscan-args: --min-confidence low
#include <atomic>
#include <cstdint>

template <typename Type> class Atomic_counter {
    std::atomic<Type> m_counter;

    Type add(Type i) { return m_counter.fetch_add(i, std::memory_order_relaxed); }
    Type sub(Type i) { return m_counter.fetch_sub(i, std::memory_order_relaxed); }

public:
    Atomic_counter(const Atomic_counter<Type> &rhs) { m_counter.store(rhs, std::memory_order_relaxed); }
    Atomic_counter(Type val) : m_counter(val) {}
    Atomic_counter() {}

    Type operator++(int) { return add(1); }
    Type operator--(int) { return sub(1); }

    Type operator++() { return add(1) + 1; }
    Type operator--() { return sub(1) - 1; }

    Type operator+=(const Type i) { return add(i) + i; }
    Type operator-=(const Type i) { return sub(i) - i; }

    operator Type() const { return m_counter.load(std::memory_order_relaxed); }
    Type operator=(const Type val)
    {
        m_counter.store(val, std::memory_order_relaxed);
        return val;
    }
    Type operator=(const Atomic_counter<Type> &rhs) { return *this = Type{rhs}; }

    Type fetch_add(Type i, std::memory_order m) { return m_counter.fetch_add(i, m); }
    Type fetch_sub(Type i, std::memory_order m) { return m_counter.fetch_sub(i, m); }
    bool compare_exchange_strong(Type &i1, const Type i2, std::memory_order m1, std::memory_order m2)
    {
        return m_counter.compare_exchange_strong(i1, i2, m1, m2);
    }
};

template <typename Type> class Atomic_relaxed {
    std::atomic<Type> m;

public:
    Atomic_relaxed() = default;
    Atomic_relaxed(Type val) : m(val) {}
    operator Type() const { return m.load(std::memory_order_relaxed); }
    Type operator=(const Type val)
    {
        m.store(val, std::memory_order_relaxed);
        return val;
    }
    Type fetch_add(const Type i, std::memory_order o = std::memory_order_relaxed) { return m.fetch_add(i, o); }
    Type fetch_sub(const Type i, std::memory_order o = std::memory_order_relaxed) { return m.fetch_sub(i, o); }
    Type operator++() { return fetch_add(1) + 1; }
    Type operator--() { return fetch_sub(1) - 1; }
};

static Atomic_counter<uint32_t> thread_count;
static Atomic_counter<uint64_t> query_count;
static Atomic_relaxed<uint64_t> pending_writes;

struct MDL_lock {
    Atomic_counter<int32_t> m_ref_usage;
};

extern void mdl_lock_free(MDL_lock *lock);

void thd_created()
{
    thread_count++;
    query_count += 1;
}

void thd_destroyed()
{
    thread_count--;
}

uint64_t queries_so_far()
{
    return query_count;
}

void write_started()
{
    ++pending_writes;
    pending_writes.fetch_add(1);
}

void write_done()
{
    --pending_writes;
}

void mdl_lock_release(MDL_lock *lock)
{
    if (!--lock->m_ref_usage)
        mdl_lock_free(lock);
}

void reset_query_count()
{
    query_count = 0;
}
