/* ut0log.h - logging helpers, called from both the cold and the hot code. */
#ifndef UT0LOG_H
#define UT0LOG_H

#include <time.h>

time_t ut_log_timestamp(void);
unsigned long long ut_now_ms(void);

#endif
