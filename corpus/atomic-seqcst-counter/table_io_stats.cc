/*
 * Per-table statistics (like MariaDB's userstat / MySQL's table_io_waits): struct fields
 * bumped on every row operation and read when the INFORMATION_SCHEMA table is filled.
 * Seq_cst adds, loads (explicit and implicit) and resets of these fields are flagged.
 * Negatives: rows_deleted, already relaxed everywhere (never flagged even though it is a
 * counter); TABLE_SHARE::ref_count, a refcount whose fetch_sub result decides who frees
 * the share; the relaxed increment of rows_inserted is fine while its seq_cst load is not.
 */
// hotscan-args: --min-confidence low
#include <atomic>
#include <cstddef>
#include <cstdint>

struct Table_stats {
    std::atomic<uint64_t> rows_read{0};
    std::atomic<uint64_t> rows_changed{0};
    std::atomic<uint64_t> rows_changed_x_indexes{0};
    std::atomic<uint64_t> rows_inserted{0};
    std::atomic<uint64_t> rows_deleted{0};
};

struct TABLE_SHARE {
    Table_stats stats;
    std::atomic<uint32_t> ref_count{1};
    unsigned keys;
};

struct TABLE {
    TABLE_SHARE *s;
};

extern void free_table_share(TABLE_SHARE *share);

void ha_update_read_stats(TABLE *table, uint64_t rows)
{
    Table_stats *stats = &table->s->stats;
    stats->rows_read.fetch_add(rows); // expect: atomic-seqcst-counter
}

void ha_update_write_stats(TABLE *table)
{
    TABLE_SHARE *share = table->s;
    share->stats.rows_changed++; // expect: atomic-seqcst-counter
    share->stats.rows_changed_x_indexes += share->keys + 1; // expect: atomic-seqcst-counter
    share->stats.rows_inserted.fetch_add(1, std::memory_order_relaxed);
}

void ha_update_delete_stats(TABLE *table)
{
    table->s->stats.rows_deleted.fetch_add(1, std::memory_order_relaxed);
}

void fill_table_stats_row(const TABLE_SHARE *share, uint64_t *row)
{
    row[0] = share->stats.rows_read.load(); // expect: atomic-seqcst-counter
    row[1] = share->stats.rows_changed; // expect: atomic-seqcst-counter
    row[2] = share->stats.rows_changed_x_indexes.load(std::memory_order_seq_cst); // expect: atomic-seqcst-counter
    row[3] = share->stats.rows_inserted.load(); // expect: atomic-seqcst-counter
    row[4] = share->stats.rows_deleted.load(std::memory_order_relaxed);
}

void flush_table_stats(TABLE_SHARE *share)
{
    share->stats.rows_read.store(0); // expect: atomic-seqcst-counter
    share->stats.rows_changed = 0; // expect: atomic-seqcst-counter
    share->stats.rows_changed_x_indexes.store(0, std::memory_order_relaxed);
    share->stats.rows_deleted.store(0, std::memory_order_relaxed);
}

void tdc_acquire_share(TABLE_SHARE *share)
{
    share->ref_count.fetch_add(1);
}

void tdc_release_share(TABLE_SHARE *share)
{
    if (share->ref_count.fetch_sub(1) == 1)
        free_table_share(share);
}
