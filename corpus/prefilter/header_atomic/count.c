/* The counter's only writer: a seq_cst increment where relaxed would do. */
#include "stats.h"

_Atomic long requests;

void on_request(void)
{
    atomic_fetch_add(&requests, 1); // expect: atomic-seqcst-counter
}
