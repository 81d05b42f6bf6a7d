/*
 * Cross-TU chain from the --hot root: dispatch_command (here) -> mysql_execute_command
 * (sql_execute.c) -> trx_start_if_not_started -> trx_start_low (trx0trx.c), whose clock()
 * is MDEV-12345's. Negatives: the connection loop that calls the hot root (it blocks in
 * read(), and a caller of a hot root is not hot), and functions of the same name that are
 * static in another TU.
 */
// hotscan-args: --hot dispatch_command
#include <time.h>
#include <unistd.h>

#include "thd.h"

void dispatch_command(struct thd *thd)
{
    thd->start_utime = thd_now_us(); // expect: timer-hot-path
    mysql_execute_command(thd);
}

time_t do_handle_one_connection(struct thd *thd, char *packet, unsigned long len)
{
    time_t connected = time(NULL);
    while (read(thd->fd, packet, len) > 0)
        dispatch_command(thd);
    return connected;
}
