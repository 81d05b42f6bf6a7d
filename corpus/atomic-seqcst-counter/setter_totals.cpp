/*
 * A setter that stores a new total into a statistics ticker (rocksdb's
 * `StatisticsImpl::setTickerCount`): the stored value is the function's parameter, as
 * given, and the ticker is otherwise only added to and read. Such a store is a reset, like
 * a store of a constant; before, it was taken for a store of a computed value (a flag or a
 * published value), and the tickers were not reported.
 * Negatives: `flushed_lsn_`, set from a parameter and added to, but tested against a
 * waiter's target (a published value); `hist_sum_`, stored a value computed from the
 * parameter (`count * 2`), which is no setter's total.
 */
// hotscan-args: --min-confidence low
#include <atomic>
#include <cstdint>

enum Tickers : uint32_t { BLOCK_CACHE_MISS = 0, BLOCK_CACHE_HIT, TICKER_ENUM_MAX };

class StatisticsImpl {
public:
    void RecordTick(uint32_t ticker, uint64_t count)
    {
        tickers_[ticker].fetch_add(count); // expect: atomic-seqcst-counter
    }
    void SetTickerCount(uint32_t ticker, uint64_t count)
    {
        tickers_[ticker].store(count); // expect: atomic-seqcst-counter
    }
    uint64_t GetTickerCount(uint32_t ticker) const
    {
        return tickers_[ticker].load(); // expect: atomic-seqcst-counter
    }
    void RecordInHistogram(uint64_t count)
    {
        hist_count_++; // expect: atomic-seqcst-counter
        hist_sum_.fetch_add(count);
    }
    void SetHistogramTotals(uint64_t count, uint64_t sum)
    {
        hist_count_ = count; // expect: atomic-seqcst-counter
        hist_sum_.store(sum * 2);
    }
    uint64_t HistogramMean() const
    {
        return hist_sum_.load() / (hist_count_.load(std::memory_order_relaxed) + 1);
    }

private:
    std::atomic<uint64_t> tickers_[TICKER_ENUM_MAX];
    std::atomic<uint64_t> hist_count_{0};
    std::atomic<uint64_t> hist_sum_{0};
};

class LogWriter {
public:
    void SetFlushedLsn(uint64_t lsn) { flushed_lsn_.store(lsn); }
    void AddFlushed(uint64_t bytes) { flushed_lsn_.fetch_add(bytes); }
    bool IsFlushed(uint64_t lsn) const
    {
        if (flushed_lsn_.load() >= lsn)
            return true;
        return false;
    }

private:
    std::atomic<uint64_t> flushed_lsn_{0};
};
