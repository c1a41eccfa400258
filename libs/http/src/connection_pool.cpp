#include "connection_pool.hpp"

namespace reagent::http::detail {

ConnectionPool::ConnectionPool(std::size_t maxIdlePerKey, std::chrono::milliseconds idleTimeout)
    : maxIdlePerKey_(maxIdlePerKey), idleTimeout_(idleTimeout) {}

std::unique_ptr<ByteStream> ConnectionPool::acquire(const std::string& key) {
    prune(std::chrono::steady_clock::now());
    const auto found = idle_.find(key);
    if (found == idle_.end()) return nullptr;
    auto& idle = found->second;
    std::unique_ptr<ByteStream> stream;
    while (!idle.empty() && !stream) {
        auto candidate = std::move(idle.back().stream);
        idle.pop_back();
        if (candidate->idleUsable()) stream = std::move(candidate);
    }
    if (idle.empty()) idle_.erase(found);
    return stream;
}

void ConnectionPool::release(const std::string& key, std::unique_ptr<ByteStream> stream) {
    const auto now = std::chrono::steady_clock::now();
    prune(now);
    if (maxIdlePerKey_ == 0) return;
    auto& idle = idle_[key];
    idle.push_back(Idle{std::move(stream), now});
    while (idle.size() > maxIdlePerKey_) idle.pop_front();
}

std::size_t ConnectionPool::idleCount() const noexcept {
    std::size_t count = 0;
    for (const auto& [key, idle] : idle_) count += idle.size();
    return count;
}

void ConnectionPool::clear() noexcept {
    idle_.clear();
}

void ConnectionPool::prune(std::chrono::steady_clock::time_point now) {
    for (auto it = idle_.begin(); it != idle_.end();) {
        auto& idle = it->second;
        // Oldest first: stop at the first one still fresh.
        while (!idle.empty() && now - idle.front().since >= idleTimeout_) idle.pop_front();
        it = idle.empty() ? idle_.erase(it) : std::next(it);
    }
}

}  // namespace reagent::http::detail
