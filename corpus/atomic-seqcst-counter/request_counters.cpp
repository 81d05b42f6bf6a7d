/*
 * A proxy's request accounting: global and class-static std::atomic counters driven by
 * the operators (++, --, +=, implicit loads and `= 0` resets), all seq_cst by default.
 * The connection id is a ticket (`return ++next_conn_id`): its value is used, but only as
 * a value, so it is still a counter. active_connections goes up and down (a gauge) with
 * the results discarded, so it is a counter too.
 * Negatives: workers_running, whose decrement result decides who signals shutdown;
 * shutdown_requested, a flag stored from a computed value and polled in a loop.
 */
// hotscan-args: --min-confidence low
#include <atomic>
#include <cstdint>
#include <cstdio>

static std::atomic<uint64_t> requests_total;
static std::atomic<uint64_t> responses_5xx;
static std::atomic<uint64_t> bytes_in;
static std::atomic<int64_t> active_connections;
static std::atomic<uint64_t> next_conn_id;
static std::atomic<int> workers_running;
static std::atomic<bool> shutdown_requested;

extern void wake_main_thread();
extern bool handle_one(int fd);

class Session {
public:
    Session() : id(++next_conn_id) { ++instances; } // expect: atomic-seqcst-counter, atomic-seqcst-counter
    ~Session() { instances--; } // expect: atomic-seqcst-counter

    static uint64_t live() { return instances; } // expect: atomic-seqcst-counter

    uint64_t id;

private:
    static std::atomic<uint64_t> instances;
};

std::atomic<uint64_t> Session::instances{0};

uint64_t new_connection_id()
{
    return ++next_conn_id; // expect: atomic-seqcst-counter
}

void on_request(unsigned long len, int status)
{
    requests_total++; // expect: atomic-seqcst-counter
    bytes_in += len; // expect: atomic-seqcst-counter
    if (status >= 500)
        ++responses_5xx; // expect: atomic-seqcst-counter
}

void on_connect() { ++active_connections; } // expect: atomic-seqcst-counter
void on_disconnect() { --active_connections; } // expect: atomic-seqcst-counter

void print_status(FILE *out)
{
    uint64_t total = requests_total; // expect: atomic-seqcst-counter
    std::fprintf(out, "requests %llu 5xx %llu in %llu active %lld\n", (unsigned long long)total,
                 (unsigned long long)responses_5xx.load(), // expect: atomic-seqcst-counter
                 (unsigned long long)bytes_in.load(), // expect: atomic-seqcst-counter
                 (long long)active_connections.load()); // expect: atomic-seqcst-counter
}

void reset_status()
{
    requests_total = 0; // expect: atomic-seqcst-counter
    responses_5xx = 0; // expect: atomic-seqcst-counter
    bytes_in.store(0); // expect: atomic-seqcst-counter
}

void worker_main(int fd)
{
    workers_running++;
    while (!shutdown_requested.load()) {
        bool keep_going = handle_one(fd);
        if (!keep_going)
            shutdown_requested.store(!keep_going);
    }
    if (--workers_running == 0)
        wake_main_thread();
}
