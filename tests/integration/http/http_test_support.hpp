#pragma once
// Helpers shared by the HTTP integration tests: an io_context that outlives several requests (so the
// client's pool can be observed), requests, JSON and the peers' /stats.

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "peer_process.hpp"
#include "reagent/core/task.hpp"
#include "reagent/http/http_client.hpp"

namespace reagent::test {

/// An io_context on which tasks run to completion one after another; sockets pooled by a client made on
/// `executor()` survive between runs.
class Loop {
  public:
    [[nodiscard]] Executor executor() { return io_.get_executor(); }
    [[nodiscard]] boost::asio::io_context& io() { return io_; }

    template <class T>
    T run(Task<T> task) {
        std::optional<T> value;
        std::exception_ptr error;
        boost::asio::co_spawn(io_, std::move(task), [&](std::exception_ptr e, T v) {
            error = e;
            if (!e) value.emplace(std::move(v));
        });
        io_.restart();
        io_.run();
        if (error) std::rethrow_exception(error);
        return std::move(*value);
    }

  private:
    boost::asio::io_context io_;
};

/// Settings that ignore proxy variables of the environment the tests run in.
inline http::HttpClientConfig directConfig() {
    http::HttpClientConfig config;
    config.proxy = http::ProxySettings{};
    return config;
}

inline http::HttpRequest get(std::string url) {
    http::HttpRequest request;
    request.url = std::move(url);
    return request;
}

inline nlohmann::json parseJson(const std::string& text) {
    return nlohmann::json::parse(text);
}

/// The peer's counters: connections, stall_closed, tls_failures, requests (request lines seen).
inline nlohmann::json peerStats(const PeerProcess& peer, const std::string& scheme = "http",
                                const std::string& caFile = "") {
    Loop loop;
    auto config = directConfig();
    config.caFile = caFile;
    http::HttpClient client(config);
    auto response = loop.run(client.send(get(peer.url("/stats", scheme))));
    if (!response) throw std::runtime_error("no stats from the peer: " + response.error().describe());
    return parseJson(response->body);
}

/// Polls the peer's stats until `key` reaches `value` or `limit` passes; returns the last value seen.
inline long long waitForStat(const PeerProcess& peer, const std::string& key, long long value,
                             std::chrono::milliseconds limit = std::chrono::seconds(3)) {
    const auto end = std::chrono::steady_clock::now() + limit;
    long long seen = -1;
    while (std::chrono::steady_clock::now() < end) {
        seen = peerStats(peer)[key].get<long long>();
        if (seen >= value) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return seen;
}

inline long long epochMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

inline long long msBetween(std::chrono::steady_clock::time_point from,
                           std::chrono::steady_clock::time_point to) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(to - from).count();
}

/// Clears every proxy variable of the environment, sets `values`, and restores it all at scope exit.
class ProxyEnvironment {
  public:
    explicit ProxyEnvironment(std::initializer_list<std::pair<const char*, const char*>> values = {}) {
        for (const char* name : {"http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy",
                                 "ALL_PROXY", "no_proxy", "NO_PROXY"}) {
            const char* old = std::getenv(name);
            saved_.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
            ::unsetenv(name);
        }
        for (const auto& [name, value] : values) ::setenv(name, value, 1);
    }
    ProxyEnvironment(const ProxyEnvironment&) = delete;
    ProxyEnvironment& operator=(const ProxyEnvironment&) = delete;
    ~ProxyEnvironment() {
        for (const auto& [name, old] : saved_) {
            if (old) {
                ::setenv(name.c_str(), old->c_str(), 1);
            } else {
                ::unsetenv(name.c_str());
            }
        }
    }

  private:
    std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

}  // namespace reagent::test
