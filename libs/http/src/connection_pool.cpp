#include "connection_pool.hpp"

namespace reagent::http::detail {

using Clock = std::chrono::steady_clock;

std::unique_ptr<Connection> ConnectionPool::acquire(std::string_view key, const PoolLimits& limits) {
    prune(Clock::now(), limits.idleTimeout);
    const auto found = idle_.find(key);
    if (found == idle_.end()) return nullptr;
    auto& idle = found->second;
    std::unique_ptr<Connection> connection;
    while (!idle.empty() && !connection) {
        auto candidate = std::move(idle.back().connection);
        idle.pop_back();
        if (candidate->stream->idleUsable()) connection = std::move(candidate);
    }
    if (idle.empty()) idle_.erase(found);
    return connection;
}

void ConnectionPool::release(const std::string& key, std::unique_ptr<Connection> connection,
                             const PoolLimits& limits) {
    const auto now = Clock::now();
    prune(now, limits.idleTimeout);
    if (limits.maxIdlePerKey == 0) return;
    auto found = idle_.find(key);
    if (found == idle_.end()) found = idle_.emplace(key, std::deque<Idle>{}).first;
    auto& idle = found->second;
    idle.push_back(Idle{std::move(connection), now});
    while (idle.size() > limits.maxIdlePerKey) idle.pop_front();
}

std::size_t ConnectionPool::idleCount() const noexcept {
    std::size_t count = 0;
    for (const auto& [key, idle] : idle_) count += idle.size();
    return count;
}

void ConnectionPool::prune(Clock::time_point now, std::chrono::milliseconds idleTimeout) {
    for (auto it = idle_.begin(); it != idle_.end();) {
        auto& idle = it->second;
        // Oldest first: stop at the first one still fresh.
        while (!idle.empty() && now - idle.front().since >= idleTimeout) idle.pop_front();
        it = idle.empty() ? idle_.erase(it) : std::next(it);
    }
}

std::unique_ptr<Connection> ContextPools::acquire(std::uint64_t client, std::string_view key,
                                                  const PoolLimits& limits) {
    const std::lock_guard lock(mutex_);
    const auto found = pools_.find(client);
    if (found == pools_.end()) return nullptr;
    auto connection = found->second.acquire(key, limits);
    if (found->second.empty()) pools_.erase(found);
    return connection;
}

void ContextPools::release(std::uint64_t client, const std::string& key,
                           std::unique_ptr<Connection> connection, const PoolLimits& limits) {
    const std::lock_guard lock(mutex_);
    if (closed_) return;  // destroyed here, under the lock
    auto& pool = pools_[client];
    pool.release(key, std::move(connection), limits);
    if (pool.empty()) pools_.erase(client);
}

std::size_t ContextPools::idleCount(std::uint64_t client) const {
    const std::lock_guard lock(mutex_);
    const auto found = pools_.find(client);
    return found == pools_.end() ? 0 : found->second.idleCount();
}

void ContextPools::clear(std::uint64_t client) noexcept {
    const std::lock_guard lock(mutex_);
    pools_.erase(client);
}

void ContextPools::close() noexcept {
    const std::lock_guard lock(mutex_);
    closed_ = true;
    pools_.clear();
}

boost::asio::execution_context::id PoolService::id;

PoolService::PoolService(boost::asio::execution_context& context)
    : boost::asio::execution_context::service(context), pools_(std::make_shared<ContextPools>()) {}

PoolService::~PoolService() {
    pools_->close();
}

void PoolService::shutdown() {
    pools_->close();
}

}  // namespace reagent::http::detail
