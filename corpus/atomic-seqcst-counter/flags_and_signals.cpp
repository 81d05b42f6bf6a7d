/*
 * Atomics that synchronize, all negatives even where they are added to:
 *  - srv_started: a flag stored from a computed value and waited for in a loop;
 *  - n_pending_flushes: incremented and decremented like a counter, but shutdown waits
 *    in a loop until it drains, relying on the decrement to publish the finished I/O;
 *  - flushed_lsn: advanced by fetch_add and consumed by waiters polling it in a loop
 *    condition (a publish/consume signal);
 *  - log_generation: bumped and then waited on with C++20 wait()/notify_all();
 *  - pending_bytes: added to by writers but drained with exchange(0) by the flusher;
 *  - conn_flags: a set of bits (fetch_or / fetch_and / |=);
 *  - sux_lock_word: a waiter count in the high bits next to a writer flag in the low
 *    bit (like MariaDB's srw_lock): added to and subtracted from, but also fetch_or'ed.
 */
// hotscan-args: --min-confidence low
#include <atomic>
#include <cstdint>

static std::atomic<bool> srv_started;
static std::atomic<uint32_t> n_pending_flushes;
static std::atomic<uint64_t> flushed_lsn;
static std::atomic<uint32_t> log_generation;
static std::atomic<uint64_t> pending_bytes;
static std::atomic<uint32_t> conn_flags;
static std::atomic<uint32_t> sux_lock_word;

extern bool init_subsystems(void);
extern void os_thread_sleep(unsigned long usec);
extern void write_pages(void);
extern uint64_t write_log(uint64_t len);
extern void write_out(uint64_t bytes);

enum { CONN_KILLED = 1, CONN_IDLE = 2 };
enum : uint32_t { SUX_WRITER = 1, SUX_WAITER = 2 };

void srv_start()
{
    bool ok = init_subsystems();
    srv_started.store(ok);
}

void wait_for_start()
{
    while (!srv_started.load())
        os_thread_sleep(1000);
}

void buf_flush_batch()
{
    n_pending_flushes++;
    write_pages();
    n_pending_flushes--;
}

void buf_flush_wait_all()
{
    while (n_pending_flushes.load() > 0)
        os_thread_sleep(10000);
}

void log_write_up_to(uint64_t len)
{
    flushed_lsn.fetch_add(write_log(len));
}

void log_wait_for_flush(uint64_t lsn)
{
    do {
        os_thread_sleep(100);
    } while (flushed_lsn.load() < lsn);
}

void log_rotate()
{
    log_generation++;
    log_generation.notify_all();
}

void log_wait_rotation(uint32_t seen)
{
    log_generation.wait(seen);
}

void buffer_write(uint64_t n)
{
    pending_bytes += n;
}

void flusher_tick()
{
    uint64_t bytes = pending_bytes.exchange(0);
    write_out(bytes);
}

void conn_kill()
{
    conn_flags.fetch_or(CONN_KILLED);
}

void conn_set_idle(bool idle)
{
    if (idle)
        conn_flags |= CONN_IDLE;
    else
        conn_flags.fetch_and(~CONN_IDLE);
}

void sux_lock_wait()
{
    sux_lock_word.fetch_add(SUX_WAITER);
    os_thread_sleep(10);
    sux_lock_word.fetch_sub(SUX_WAITER);
}

void sux_lock_set_writer()
{
    sux_lock_word.fetch_or(SUX_WRITER);
}
