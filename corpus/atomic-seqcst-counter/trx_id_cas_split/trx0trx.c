/*
 * A counter incremented in one TU and compared-and-swapped in another: trx_sys.max_trx_id
 * is handed out with atomic_fetch_add here (it looks like a ticket counter), but recovery
 * in trx0rec.c raises it with a CAS loop, so across the program it is not only a counter
 * and nothing here may be flagged. n_prepared is added to here and CAS'd there too.
 */
// hotscan-args: --min-confidence low
#include "trx0sys.h"

struct trx_sys_t trx_sys;

trx_id_t trx_sys_get_new_trx_id(void)
{
    return atomic_fetch_add(&trx_sys.max_trx_id, 1);
}

void trx_prepare_low(void)
{
    atomic_fetch_add(&trx_sys.n_prepared, 1);
}

trx_id_t trx_sys_peek_max_trx_id(void)
{
    return atomic_load(&trx_sys.max_trx_id);
}
