/* ut_log_timestamp() is reached only through the cold reporter; ut_now_ms(), a clock
 * wrapper, is called from the hot fetch too, and flagged there. */
#include "ut0log.h"

extern unsigned long long ut_time_ms(void);

time_t ut_log_timestamp(void)
{
    return time(NULL);
}

unsigned long long ut_now_ms(void)
{
    return ut_time_ms();
}
