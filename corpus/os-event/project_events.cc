// A project's own event and signalling code, none of it InnoDB's os_event: my_event_set
// and my_event_t are not in the API list, Event::set()/wait() are methods of another
// class, os_event_set_callback only begins with a listed name, and
// replication::os_event_set is another function than ::os_event_set. Code already moved
// to std::condition_variable is the goal of the migration, not a finding.
#include <condition_variable>
#include <functional>
#include <mutex>

struct my_event {
    std::mutex m;
    std::condition_variable cv;
    bool signalled = false;
};
typedef my_event *my_event_t;

void my_event_set(my_event_t e)
{
    std::lock_guard<std::mutex> g(e->m);
    e->signalled = true;
    e->cv.notify_all();
}

void my_event_wait(my_event_t e)
{
    std::unique_lock<std::mutex> g(e->m);
    e->cv.wait(g, [e] { return e->signalled; });
}

class Event {
public:
    void set() { flag = true; }
    void reset() { flag = false; }
    bool wait() const { return flag; }

private:
    bool flag = false;
};

namespace replication {
void os_event_set(Event &e) { e.set(); }
} // namespace replication

void os_event_set_callback(std::function<void()> cb);

my_event_t flush_done;
Event event;
static my_event global_event;

void notify_all_waiters()
{
    my_event_set(flush_done);
    my_event_set(&global_event);
    event.set();
    replication::os_event_set(event);
    os_event_set_callback([] { event.reset(); });
    my_event_wait(&global_event);
}
