/* refcount_accessor_split (see pfs_account.h): the purge frees the accounts nobody holds. */
#include <stdio.h>

#include "pfs_account.h"

void purge_accounts(void)
{
    for (int i = 0; i < 16; i++) {
        PFS_account *a = &account_array[i];
        if (a->get_refcount() == 0)
            a->m_used = false;
        if (share_array[i].get_refcount() > 0)
            printf("share %d in use\n", i);
        if (a->get_hits() > 1000)
            printf("busy account %d\n", i);
    }
}
