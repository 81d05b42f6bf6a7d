/*
 * MariaDB's THD timing in C++: set_time() calling my_hrtime() twice to split seconds and
 * microseconds is a duplicate (and can tear across a second boundary); so is taking
 * start_utime and utime_after_lock with two back-to-back reads. Negatives: the one-read
 * versions, and my_hrtime() next to my_interval_timer(), which are different clocks.
 */
#include <ctime>

typedef unsigned long long ulonglong;
typedef struct {
    ulonglong val;
} my_hrtime_t;

extern "C" {
my_hrtime_t my_hrtime(void);
ulonglong my_interval_timer(void);
ulonglong microsecond_interval_timer(void);
}

class THD {
public:
    void set_time_twice()
    {
        start_time = static_cast<std::time_t>(my_hrtime().val / 1000000);
        start_time_sec_part = my_hrtime().val % 1000000; // expect: timer-duplicate
    }

    void set_time()
    {
        my_hrtime_t hrtime = my_hrtime();
        start_time = static_cast<std::time_t>(hrtime.val / 1000000);
        start_time_sec_part = hrtime.val % 1000000;
    }

    void set_start_utime_twice()
    {
        start_utime = microsecond_interval_timer();
        utime_after_lock = microsecond_interval_timer(); // expect: timer-duplicate
    }

    void set_start_utime()
    {
        start_utime = utime_after_lock = microsecond_interval_timer();
    }

    void set_query_timer()
    {
        query_start_wall = my_hrtime().val;
        query_start_ns = my_interval_timer();
    }

private:
    std::time_t start_time = 0;
    ulonglong start_time_sec_part = 0;
    ulonglong start_utime = 0;
    ulonglong utime_after_lock = 0;
    ulonglong query_start_wall = 0;
    ulonglong query_start_ns = 0;
};

ulonglong thd_session_age(THD &thd)
{
    thd.set_time();
    return microsecond_interval_timer();
}
