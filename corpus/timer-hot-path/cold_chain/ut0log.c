/* ut_log_timestamp() is reached only through the cold reporter; ut_now_ms() also from the hot fetch. */
#include "ut0log.h"

extern unsigned long long ut_time_ms(void);

time_t ut_log_timestamp(void)
{
    return time(NULL);
}

unsigned long long ut_now_ms(void)
{
    return ut_time_ms(); // expect: timer-hot-path
}
