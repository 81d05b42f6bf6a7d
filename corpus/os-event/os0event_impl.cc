// MariaDB 10.4's os0event.cc: the implementation of the API itself. Defining the API is
// not using it: the struct os_event, its methods, the API's own bodies (even where one
// API function calls another), parameters and locals of type os_event_t are not flagged.
// The migration deletes this file once the last use is gone.
#include <condition_variable>
#include <cstdint>
#include <mutex>

typedef unsigned long ulint;
#define OS_SYNC_INFINITE_TIME ((ulint)(-1))
#define OS_SYNC_TIME_EXCEEDED 1

struct os_event {
    explicit os_event(const char *) {}
    void set()
    {
        std::lock_guard<std::mutex> g(mutex);
        if (!m_set) {
            m_set = true;
            ++signal_count;
            cond_var.notify_all();
        }
    }
    int64_t reset()
    {
        std::lock_guard<std::mutex> g(mutex);
        m_set = false;
        return signal_count;
    }
    bool is_set() const { return m_set; }
    void wait_low(int64_t reset_sig_count)
    {
        std::unique_lock<std::mutex> g(mutex);
        if (!reset_sig_count)
            reset_sig_count = signal_count;
        cond_var.wait(g, [&] { return m_set || signal_count != reset_sig_count; });
    }

private:
    std::mutex mutex;
    std::condition_variable cond_var;
    bool m_set = false;
    int64_t signal_count = 1;
};

typedef struct os_event *os_event_t;

os_event_t os_event_create(const char *name)
{
    os_event_t ret = new os_event(name);
    return ret;
}

void os_event_set(os_event_t event) { event->set(); }

bool os_event_is_set(const os_event_t event) { return event->is_set(); }

int64_t os_event_reset(os_event_t event) { return event->reset(); }

void os_event_wait_low(os_event_t event, int64_t reset_sig_count) { event->wait_low(reset_sig_count); }

ulint os_event_wait_time_low(os_event_t event, ulint time_in_usec, int64_t reset_sig_count)
{
    if (time_in_usec == OS_SYNC_INFINITE_TIME) {
        os_event_wait_low(event, reset_sig_count);
        return 0;
    }
    return os_event_is_set(event) ? 0 : OS_SYNC_TIME_EXCEEDED;
}

void os_event_destroy(os_event_t &event)
{
    delete event;
    event = nullptr;
}
