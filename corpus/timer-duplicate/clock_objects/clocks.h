#ifndef CLOCKS_H
#define CLOCKS_H
#include <time.h>

long long clk_msec(void);       /* monotonic, in ms */
long long clk_wall_msec(void);  /* wall clock, in ms */
void clk_timespec(struct timespec *ts);
void clk_read(clockid_t id, struct timespec *ts);
long long deadline_after(long long ms);

#endif
