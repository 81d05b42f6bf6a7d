/*
 * Calls into templates: the walk visits a template once, as written, and a call names the
 * instantiation (`Txn<Inno>::start`, `row_fetch<int>`), so the call must be joined to the
 * template's body or the hot path stops there. A transaction class template whose start()
 * reads clock() (MDEV-12345's trx_start_low), a function template reading the clock per
 * row, and a member template that returns a reading (a clock wrapper: its call is flagged
 * where it is made). Negatives: an explicit specialization is code of its own
 * (`row_cost<long>` reads no clock, and the primary template it specializes is never called
 * from the hot path), and a class template method no hot code calls.
 */
// hotscan-args: --hot dispatch_command
#include <ctime>

struct Inno {
    int rows;
};

template <class Engine>
struct Txn {
    Engine engine;
    std::clock_t start_clock;
    std::time_t committed;
    void start() { start_clock = std::clock(); } // expect: timer-hot-path
    void commit() { committed = std::time(nullptr); }
    template <class Row>
    long touch(Row *r)
    {
        return (long)std::time(nullptr) + r->rows;
    }
};

template <class T>
long row_fetch(T key)
{
    return (long)key + (long)std::clock(); // expect: timer-hot-path
}

template <class T>
long row_cost(T key)
{
    return (long)key * (long)std::clock();
}

template <>
long row_cost<long>(long key)
{
    return key * 2;
}

int dispatch_command(Txn<Inno> *trx, int n)
{
    long sum = 0;
    for (int i = 0; i < n; i++) {
        trx->start();
        sum += row_fetch(i);
        sum += row_cost(2L);
        sum += trx->touch(&trx->engine); // expect: timer-hot-path
    }
    return (int)sum;
}

void shutdown_engine(Txn<Inno> *trx)
{
    trx->commit();
}
