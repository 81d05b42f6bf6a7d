/*
 * A C++ query dispatcher: [[gnu::hot]] on a member function's in-class declaration, clocks
 * named through an alias (libstdc++ puts them in an inline namespace), a range-for body
 * (flagged) and its range expression (evaluated once: not flagged), a template read once
 * per loop however often it is instantiated, and a namespace-scope initializer (runs once).
 */
/* Loops no hot root reaches are low confidence (hidden by default); shown here to test
 * which loops count. */
// hotscan-args: --min-confidence low
#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace sql {

using Clock = std::chrono::steady_clock;

static const auto server_started = std::chrono::system_clock::now();

struct Query {
    std::string text;
    Clock::time_point queued;
    Clock::time_point started;
};

struct KeyRow {
    long key;
    std::chrono::high_resolution_clock::time_point seen;
};

struct DataRow {
    std::string payload;
    std::chrono::high_resolution_clock::time_point seen;
};

class Dispatcher {
public:
    [[gnu::hot]] void dispatch(Query &q);
    void drain(std::vector<Query> &out);

private:
    std::vector<Query> &pending_since(Clock::time_point t);
    void execute(Query &q);
    std::vector<Query> pending_;
    std::size_t executed_ = 0;
};

void Dispatcher::dispatch(Query &q)
{
    q.started = Clock::now(); // expect: timer-hot-path
    execute(q);
}

void Dispatcher::execute(Query &q)
{
    executed_ += !q.text.empty();
}

std::vector<Query> &Dispatcher::pending_since(Clock::time_point t)
{
    while (!pending_.empty() && pending_.front().queued > t)
        pending_.erase(pending_.begin());
    return pending_;
}

void Dispatcher::drain(std::vector<Query> &out)
{
    for (Query &q : pending_since(Clock::now())) {
        q.queued = Clock::now(); // expect: timer-hot-path
        out.push_back(q);
    }
}

template <typename Row>
std::size_t stamp_rows(std::vector<Row> &rows)
{
    for (Row &r : rows)
        r.seen = std::chrono::high_resolution_clock::now(); // expect: timer-hot-path
    return rows.size();
}

std::size_t stamp_all(std::vector<KeyRow> &keys, std::vector<DataRow> &data)
{
    return stamp_rows(keys) + stamp_rows(data);
}

std::chrono::system_clock::duration uptime()
{
    return std::chrono::system_clock::now() - server_started;
}

} // namespace sql
