/*
 * thd.h - the session object shared by all three translation units. thd_now_us() is a
 * static inline clock wrapper every TU sees: its call from the hot root is one finding (in
 * sql_parse.c), and its body is one function, not one per TU that includes the header.
 */
#ifndef THD_H
#define THD_H

typedef unsigned long long ulonglong;
typedef struct {
    ulonglong val;
} my_hrtime_t;

extern my_hrtime_t my_hrtime(void);

struct trx;

struct thd {
    ulonglong start_utime;
    ulonglong lock_utime;
    int fd;
    struct trx *trx;
};

static inline ulonglong thd_now_us(void)
{
    return my_hrtime().val;
}

void mysql_execute_command(struct thd *thd);

#endif
