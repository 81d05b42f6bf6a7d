/*
 * status_table_escape: the counters are bumped here with seq_cst operations; their
 * addresses escape in status_vars.c, so they are not provably counters (see there).
 */
// hotscan-args: --min-confidence low
#include <stdatomic.h>
#include <stdint.h>

_Atomic uint64_t aborted_connects;
uint64_t connection_errors_accept;

void on_handshake_failed(void)
{
    atomic_fetch_add(&aborted_connects, 1);
}

void on_accept_error(void)
{
    __atomic_fetch_add(&connection_errors_accept, 1, __ATOMIC_SEQ_CST);
}
