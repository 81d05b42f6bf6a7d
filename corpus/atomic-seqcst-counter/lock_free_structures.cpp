/*
 * Lock-free structures whose atomics look like counters in places, all negatives:
 *  - Seqlock::m_seq: only ever incremented by the writer (twice per update), but readers
 *    retry in a loop until it is even and unchanged: it orders the data it guards;
 *  - Free_list::m_head: a Treiber stack head moved with compare_exchange_weak;
 *  - Free_list::m_version: an ABA version bumped with fetch_add by push, but stepped by
 *    pop with compare_exchange_strong, so not only a counter;
 *  - Hwm::m_peak: a high-water mark raised with a compare_exchange loop;
 *  - Ticket_lock::m_serving: advanced with fetch_add, waited on in a loop condition;
 *  - Epoch::m_current: advanced, and swapped with exchange at reclamation.
 */
// hotscan-args: --min-confidence low
#include <atomic>
#include <cstdint>

class Seqlock {
public:
    void write_begin() { m_seq.fetch_add(1); }
    void write_end() { m_seq++; }

    template <class F> void read(F f) const
    {
        uint64_t s;
        do {
            s = m_seq.load();
            f();
        } while ((s & 1) != 0 || m_seq.load() != s);
    }

private:
    std::atomic<uint64_t> m_seq{0};
};

struct Node {
    Node *next;
};

class Free_list {
public:
    void push(Node *n)
    {
        m_version.fetch_add(1);
        Node *old = m_head.load();
        do {
            n->next = old;
        } while (!m_head.compare_exchange_weak(old, n));
    }

    Node *pop()
    {
        uint64_t version = m_version.load();
        Node *old = m_head.load();
        while (old && !m_head.compare_exchange_weak(old, old->next)) {
        }
        m_version.compare_exchange_strong(version, version + 1);
        return old;
    }

private:
    std::atomic<Node *> m_head{nullptr};
    std::atomic<uint64_t> m_version{0};
};

class Hwm {
public:
    void observe(uint64_t v)
    {
        uint64_t cur = m_peak.load();
        while (v > cur && !m_peak.compare_exchange_weak(cur, v)) {
        }
    }

private:
    std::atomic<uint64_t> m_peak{0};
};

class Ticket_lock {
public:
    void lock(uint32_t my_ticket)
    {
        while (m_serving.load() != my_ticket) {
        }
    }
    void unlock() { m_serving.fetch_add(1); }

private:
    std::atomic<uint32_t> m_serving{0};
};

class Epoch {
public:
    void advance() { ++m_current; }
    uint64_t retire() { return m_current.exchange(0); }

private:
    std::atomic<uint64_t> m_current{0};
};
