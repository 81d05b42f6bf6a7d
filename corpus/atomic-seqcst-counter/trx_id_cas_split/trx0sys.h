/*
 * The shared declarations of the trx_id_cas_split case (see trx0trx.c).
 */
#ifndef TRX0SYS_H
#define TRX0SYS_H

#include <stdatomic.h>
#include <stdint.h>

typedef uint64_t trx_id_t;

struct trx_sys_t {
    _Atomic trx_id_t max_trx_id;
    _Atomic uint64_t n_prepared;
};

extern struct trx_sys_t trx_sys;

trx_id_t trx_sys_get_new_trx_id(void);
void trx_sys_raise_max_trx_id(trx_id_t recovered);

#endif
