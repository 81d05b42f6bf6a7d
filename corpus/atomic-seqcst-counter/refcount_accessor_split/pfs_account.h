/*
 * refcount_accessor_split: MariaDB 10.4's performance schema (storage/perfschema/pfs_account.h
 * and kin), as a shape. The reference count of an account is kept by inline methods through
 * PFS_atomic wrappers (a decrement written as an add of -1) and read through get_refcount();
 * the purge code in another TU frees the account when get_refcount() == 0. The header's
 * method bodies are walked once (for the first TU); the test is in the second TU, so the
 * accessor must be resolved across TUs. Not a counter: nothing here may be flagged.
 * PFS_table_share's count is tested only as get_refcount() > 0 (a table shows the shares
 * in use): decremented by an add of -1 and tested against zero, a reference count too.
 * m_hits is a statistic read through its own accessor in a limit test: still a counter.
 */
#ifndef PFS_ACCOUNT_H
#define PFS_ACCOUNT_H

#include <stdint.h>

class PFS_atomic {
public:
    static inline int32_t load_32(volatile int32_t *ptr) { return __atomic_load_n(ptr, __ATOMIC_SEQ_CST); }
    static inline void store_32(volatile int32_t *ptr, int32_t value) { __atomic_store_n(ptr, value, __ATOMIC_SEQ_CST); }
    static inline int32_t add_32(volatile int32_t *ptr, int32_t value) { return __atomic_fetch_add(ptr, value, __ATOMIC_SEQ_CST); }
};

struct PFS_account {
    inline void init_refcount(void) { PFS_atomic::store_32(&m_refcount, 1); }
    inline int get_refcount(void) { return PFS_atomic::load_32(&m_refcount); }
    inline void inc_refcount(void) { PFS_atomic::add_32(&m_refcount, 1); }
    inline void dec_refcount(void) { PFS_atomic::add_32(&m_refcount, -1); }

    inline void hit(void) { PFS_atomic::add_32(&m_hits, 1); } // expect: atomic-seqcst-counter
    inline int get_hits(void) { return PFS_atomic::load_32(&m_hits); } // expect: atomic-seqcst-counter

    volatile int32_t m_refcount;
    volatile int32_t m_hits;
    bool m_used;
};

struct PFS_table_share {
    inline int get_refcount(void) { return PFS_atomic::load_32(&m_refcount); }
    inline void inc_refcount(void) { PFS_atomic::add_32(&m_refcount, 1); }
    inline void dec_refcount(void) { PFS_atomic::add_32(&m_refcount, -1); }
    volatile int32_t m_refcount;
};

extern PFS_account account_array[16];
extern PFS_table_share share_array[16];

PFS_account *find_or_create_account(int i);
void release_account(PFS_account *a);
void purge_accounts(void);

#endif
