#pragma once
// crypto-price's cache: one price per (quote currency, coin), reused for a fixed time (no I/O).

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

namespace reagent::builtins::detail {

/// Prices by currency and CoinGecko id. Thread-safe (one mutex, never held across a suspension).
class PriceCache {
  public:
    using Clock = std::chrono::steady_clock;

    /// Prices live `ttl` (zero: nothing is kept).
    explicit PriceCache(std::chrono::milliseconds ttl) : ttl_(ttl) {}

    /// The price of `id` in `currency` stored less than `ttl` before `now`.
    [[nodiscard]] std::optional<double> find(const std::string& currency, const std::string& id,
                                             Clock::time_point now) const;
    /// Stores a price fetched at `now`.
    void store(const std::string& currency, const std::string& id, double price, Clock::time_point now);

  private:
    struct Entry {
        double price = 0;
        Clock::time_point fetched;
    };
    std::chrono::milliseconds ttl_;
    mutable std::mutex mutex_;
    std::map<std::pair<std::string, std::string>, Entry> entries_;
};

}  // namespace reagent::builtins::detail
