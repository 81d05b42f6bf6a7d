/* refcount_accessor_split (see pfs_account.h): the accounts are created, taken and released here. */
// hotscan-args: -j 1 --min-confidence low
#include "pfs_account.h"

PFS_account account_array[16];
PFS_table_share share_array[16];

void open_table(int i) { share_array[i & 15].inc_refcount(); }
void close_table(int i) { share_array[i & 15].dec_refcount(); }

PFS_account *find_or_create_account(int i)
{
    PFS_account *a = &account_array[i & 15];
    if (a->m_used) {
        a->inc_refcount();
        a->hit();
        return a;
    }
    a->init_refcount();
    a->m_used = true;
    return a;
}

void release_account(PFS_account *a)
{
    a->dec_refcount();
}
