/*
 * The middle of the chain. log_now() is a static clock wrapper here, called from the hot
 * path (flagged at the call); a different static log_now() in trx0trx.c is not, and must
 * not be confused with this one.
 */
#include "thd.h"
#include "trx0trx.h"

extern ulonglong my_interval_timer(void);

static ulonglong log_now(void)
{
    return my_interval_timer();
}

void mysql_execute_command(struct thd *thd)
{
    thd->lock_utime = log_now(); // expect: timer-hot-path
    trx_start_if_not_started(thd->trx);
}
