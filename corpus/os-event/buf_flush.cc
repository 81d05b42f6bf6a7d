// MySQL 8 / MariaDB 10.x buf0flu.cc style, in C++: events as struct fields, an array of
// events indexed by flush type, a class that creates its event in the constructor and
// destroys it in the destructor, a class static, local aliases and parameters, and MySQL
// 8's os_event_try_set and os_event_wait_for. Each use names its object; the declarations
// are flagged too.
#include <chrono>
#include <cstdint>

typedef unsigned long ulint;
struct os_event;
typedef struct os_event *os_event_t;

os_event_t os_event_create();
void os_event_set(os_event_t event);
bool os_event_try_set(os_event_t event);
bool os_event_is_set(const os_event_t event);
int64_t os_event_reset(os_event_t event);
void os_event_destroy(os_event_t &event);
void os_event_wait_low(os_event_t event, int64_t reset_sig_count);
ulint os_event_wait_time_low(os_event_t event, std::chrono::microseconds timeout,
                             int64_t reset_sig_count);
// MySQL 8 defines os_event_wait_for in os0event.h; the API's own body is not a use of it.
template <typename Condition>
ulint os_event_wait_for(os_event_t &event, uint64_t spins_limit, std::chrono::microseconds timeout,
                        Condition condition)
{
    for (uint64_t i = 0; i < spins_limit; i++)
        if (condition())
            return 0;
    int64_t sig = os_event_reset(event);
    while (!condition())
        if (os_event_wait_time_low(event, timeout, sig) != 0)
            return 1;
    return 0;
}

#define os_event_wait(e) os_event_wait_low(e, 0)
#define os_event_wait_time(e, t) os_event_wait_time_low(e, t, 0)

enum buf_flush_t { BUF_FLUSH_LRU, BUF_FLUSH_LIST, BUF_FLUSH_SINGLE_PAGE, BUF_FLUSH_N_TYPES };

struct buf_pool_t {
    ulint n_flush[BUF_FLUSH_N_TYPES];
    os_event_t no_flush[BUF_FLUSH_N_TYPES]; // expect: os-event
    bool init_flush[BUF_FLUSH_N_TYPES];
};

buf_pool_t *buf_pool_ptr;

class page_cleaner_t {
public:
    page_cleaner_t() : is_requested(os_event_create()), is_finished(os_event_create()) {} // expect: os-event, os-event
    ~page_cleaner_t()
    {
        os_event_destroy(is_requested); // expect: os-event
        os_event_destroy(is_finished); // expect: os-event
    }
    os_event_t is_requested; // expect: os-event
    os_event_t is_finished; // expect: os-event
    ulint n_slots_requested = 0;
    static os_event_t shutdown_event; // expect: os-event
};

os_event_t page_cleaner_t::shutdown_event; // expect: os-event
static page_cleaner_t *page_cleaner;

// A member's default initializer and a global's dynamic initializer create events too:
// the declaration and the create are two findings on one line.
struct purge_sys_t {
    os_event_t event = os_event_create(); // expect: os-event, os-event
    ulint n_stop = 0;
};
static os_event_t recv_writer_event = os_event_create(); // expect: os-event, os-event

void buf_pool_init_flush(buf_pool_t *buf_pool)
{
    for (int i = 0; i < BUF_FLUSH_N_TYPES; i++)
        buf_pool->no_flush[i] = os_event_create(); // expect: os-event
}

void buf_flush_end(buf_pool_t *buf_pool, buf_flush_t flush_type)
{
    buf_pool->init_flush[flush_type] = false;
    if (buf_pool->n_flush[flush_type] == 0)
        os_event_set(buf_pool->no_flush[flush_type]); // expect: os-event
}

void buf_flush_start(buf_pool_t *buf_pool, buf_flush_t flush_type)
{
    buf_pool->init_flush[flush_type] = true;
    os_event_reset(buf_pool->no_flush[flush_type]); // expect: os-event
}

void buf_flush_wait_batch_end(buf_pool_t *buf_pool, buf_flush_t type)
{
    // A local alias of an array element is still the array.
    os_event_t event = buf_pool->no_flush[type];
    os_event_wait(event); // expect: os-event
}

void pc_request(ulint min_n)
{
    page_cleaner->n_slots_requested = min_n;
    if (!os_event_try_set(page_cleaner->is_requested)) // expect: os-event
        os_event_set(page_cleaner->is_requested); // expect: os-event
}

bool pc_wait_finished(std::chrono::microseconds timeout)
{
    int64_t sig = os_event_reset(page_cleaner->is_finished); // expect: os-event
    os_event_wait_time_low(page_cleaner->is_finished, timeout, sig); // expect: os-event
    return os_event_is_set(page_cleaner->is_finished); // expect: os-event
}

void pc_sleep_if_needed(std::chrono::microseconds timeout)
{
    os_event_wait_for(page_cleaner_t::shutdown_event, 100, timeout, // expect: os-event
                      [] { return page_cleaner->n_slots_requested > 0; });
}

// A parameter: the object is not known here, but the use is still flagged.
void wake_waiter(os_event_t event)
{
    os_event_set(event); // expect: os-event
}

template <typename T> void wake_all(T *obj)
{
    os_event_set(obj->is_requested); // expect: os-event
}

void shutdown_cleaner(purge_sys_t *purge_sys)
{
    wake_all(page_cleaner);
    os_event_set(purge_sys->event); // expect: os-event
    os_event_set(recv_writer_event); // expect: os-event
    os_event_set(page_cleaner_t::shutdown_event); // expect: os-event
}
