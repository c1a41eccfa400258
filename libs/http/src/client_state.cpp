#include "client_state.hpp"

#include <algorithm>
#include <boost/asio/execution/context.hpp>
#include <boost/asio/query.hpp>

#include "tls_stream.hpp"

namespace reagent::http::detail {

namespace asio = boost::asio;

namespace {

// A client may see many URLs (a generic HTTP client); a provider sees one or two. Past this many the
// remembered routes are simply dropped.
constexpr std::size_t kMaxRoutes = 64;

std::uint64_t nextClientId() {
    static std::atomic<std::uint64_t> counter{0};
    return ++counter;
}

HttpClientConfig resolved(HttpClientConfig config) {
    if (!config.proxy) config.proxy = ProxySettings::fromEnvironment();
    return config;
}

}  // namespace

ClientState::ClientState(HttpClientConfig config)
    : id(nextClientId()),
      config(resolved(std::move(config))),
      limits{this->config.maxIdlePerHost, this->config.idleTimeout} {}

ClientState::~ClientState() {
    closeIdle();
}

expected<std::shared_ptr<TlsContext>, HttpError> ClientState::tlsContext() {
    const std::lock_guard lock(mutex_);
    if (!tls_) {
        auto made = makeTlsContext(config.caFile, config.verifyPeer);
        if (!made) return fail(made.error());
        tls_ = std::move(*made);
    }
    return tls_;
}

expected<std::shared_ptr<const Route>, HttpError> ClientState::route(const std::string& url) {
    {
        const std::lock_guard lock(mutex_);
        if (const auto found = routes_.find(url); found != routes_.end()) return found->second;
    }
    auto made = makeRoute(url, *config.proxy);
    if (!made) return fail(std::move(made.error()));
    auto route = std::make_shared<const Route>(std::move(*made));
    const std::lock_guard lock(mutex_);
    if (routes_.size() >= kMaxRoutes) routes_.clear();
    routes_.emplace(url, route);
    return route;
}

std::shared_ptr<ContextPools> ClientState::pools(const Executor& executor, bool create) {
    asio::execution_context& context = asio::query(executor, asio::execution::context);
    // Made on the first release, when a socket (and so the context's reactor) exists: the pools then
    // shut down before the reactor does.
    if (!create && !asio::has_service<PoolService>(context)) return nullptr;
    std::shared_ptr<ContextPools> pools = asio::use_service<PoolService>(context).pools();
    const std::lock_guard lock(mutex_);
    bool known = false;
    contexts_.erase(std::remove_if(contexts_.begin(), contexts_.end(),
                                   [&](const std::weak_ptr<ContextPools>& weak) {
                                       const auto alive = weak.lock();
                                       known = known || alive == pools;
                                       return alive == nullptr;
                                   }),
                    contexts_.end());
    if (!known) contexts_.push_back(pools);
    return pools;
}

std::vector<std::shared_ptr<ContextPools>> ClientState::liveContexts() const {
    std::vector<std::shared_ptr<ContextPools>> live;
    const std::lock_guard lock(mutex_);
    for (const auto& weak : contexts_) {
        if (auto pools = weak.lock()) live.push_back(std::move(pools));
    }
    return live;
}

std::size_t ClientState::idleCount() const {
    std::size_t count = 0;
    for (const auto& pools : liveContexts()) count += pools->idleCount(id);
    return count;
}

void ClientState::closeIdle() noexcept {
    try {
        for (const auto& pools : liveContexts()) pools->clear(id);
    } catch (...) {
        // Only allocation can fail here; the connections then close with their context.
    }
}

}  // namespace reagent::http::detail
