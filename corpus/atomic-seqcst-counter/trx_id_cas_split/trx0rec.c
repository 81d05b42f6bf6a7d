/*
 * The other half of the trx_id_cas_split case: crash recovery raises max_trx_id past the
 * largest id found in the undo logs with a CAS loop, and a prepared transaction that was
 * rolled back is taken off n_prepared with a CAS that must not go below zero.
 */
#include <stdbool.h>

#include "trx0sys.h"

void trx_sys_raise_max_trx_id(trx_id_t recovered)
{
    trx_id_t cur = atomic_load(&trx_sys.max_trx_id);
    while (recovered >= cur && !atomic_compare_exchange_weak(&trx_sys.max_trx_id, &cur, recovered + 1))
        ;
}

bool trx_prepared_rolled_back(void)
{
    uint64_t n = atomic_load(&trx_sys.n_prepared);
    while (n > 0 && !atomic_compare_exchange_weak(&trx_sys.n_prepared, &n, n - 1))
        ;
    return n > 0;
}
