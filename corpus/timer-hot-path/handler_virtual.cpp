/*
 * A MariaDB-shaped storage-engine interface: dispatch_command reads rows through the
 * abstract handler, h->index_read(...), a virtual call. Every override of
 * handler::index_read is a possible target, so ha_innobase::index_read -> row_search ->
 * trx_start_low's clock() is on the hot path. Negatives: an engine whose override reads
 * no clock; a non-virtual call (qualified, h->handler::extra) is not widened to the
 * overrides (ha_innobase::extra reads the clock: not flagged); a virtual method no hot
 * code calls (handler::info's overrides).
 */
// hotscan-args: --hot dispatch_command
#include <ctime>

struct trx_t {
    std::clock_t start_time_clock;
    unsigned long id;
};

static void trx_start_low(trx_t *trx)
{
    trx->start_time_clock = std::clock(); // expect: timer-hot-path
    trx->id++;
}

static int row_search(trx_t *trx, const unsigned char *key)
{
    if (!trx->id)
        trx_start_low(trx);
    return key[0];
}

class handler {
public:
    virtual ~handler() {}
    virtual int index_read(unsigned char *buf, const unsigned char *key) = 0;
    virtual int info(unsigned flag) = 0;
    virtual int extra(int operation) { return operation; }
};

class ha_innobase : public handler {
public:
    int index_read(unsigned char *buf, const unsigned char *key) override
    {
        buf[0] = (unsigned char)row_search(&trx, key);
        return 0;
    }
    int info(unsigned flag) override
    {
        stats_updated = std::time(nullptr);
        return (int)flag;
    }
    int extra(int operation) override
    {
        stats_updated = std::time(nullptr);
        return operation;
    }

private:
    trx_t trx;
    std::time_t stats_updated;
};

class ha_heap : public handler {
public:
    int index_read(unsigned char *buf, const unsigned char *key) override
    {
        buf[0] = key[0];
        return 0;
    }
    int info(unsigned flag) override { return (int)flag; }
};

class ha_archive : public handler {
public:
    int index_read(unsigned char *buf, const unsigned char *key) override
    {
        buf[0] = key[1];
        return 0;
    }
    int info(unsigned flag) override
    {
        last_info = std::clock();
        return (int)flag;
    }
    std::clock_t last_info;
};

int dispatch_command(handler *h, ha_archive *archive, unsigned char *buf, const unsigned char *key)
{
    int error = h->index_read(buf, key);
    /* Qualified: a direct call to ha_archive::index_read, never to another override. */
    error |= archive->ha_archive::index_read(buf, key);
    error |= h->handler::extra(error);
    return error;
}

/* ANALYZE TABLE: cold in practice, and not a hot root. */
int analyze_table(handler *h)
{
    return h->info(1);
}
