#include "network/price_cache.hpp"

namespace reagent::builtins::detail {

std::optional<double> PriceCache::find(const std::string& currency, const std::string& id,
                                       Clock::time_point now) const {
    const std::lock_guard lock(mutex_);
    const auto found = entries_.find({currency, id});
    if (found == entries_.end() || now - found->second.fetched >= ttl_) return std::nullopt;
    return found->second.price;
}

void PriceCache::store(const std::string& currency, const std::string& id, double price,
                       Clock::time_point now) {
    if (ttl_.count() <= 0) return;
    const std::lock_guard lock(mutex_);
    // Expired entries go first, so the map stays as small as the coins asked for recently.
    for (auto it = entries_.begin(); it != entries_.end();) {
        it = now - it->second.fetched >= ttl_ ? entries_.erase(it) : std::next(it);
    }
    entries_[{currency, id}] = Entry{price, now};
}

}  // namespace reagent::builtins::detail
