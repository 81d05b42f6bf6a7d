/*
 * thd.h - the session object shared by all three translation units. thd_now_us() is a
 * static inline helper every TU sees: reached from the hot root, its one read is one
 * finding, not one per TU that includes the header.
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
    return my_hrtime().val; // expect: timer-hot-path
}

void mysql_execute_command(struct thd *thd);

#endif
