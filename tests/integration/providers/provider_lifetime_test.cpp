// A provider is not tied to an io_context: its idle connections live in the context they were opened on
// and close with it, so providers and io_contexts may be destroyed in either order, and one provider may
// serve several contexts, one after the other or from several threads at once.

#include <catch2/catch.hpp>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "provider_test_support.hpp"

using reagent::llm::Message;
using reagent::llm::ModelReply;
using reagent::llm::ModelRequest;
using reagent::llm::ProviderError;
using reagent::providers::ProviderKind;
using namespace reagent::test;

namespace {

using Outcome = reagent::expected<ModelReply, ProviderError>;

json alwaysText() {
    return json{{"rules", {{{"match", ""}, {"response", bodyResponse(fixture("openai/text.json"))}}}}};
}

reagent::Task<Outcome> ask(std::shared_ptr<reagent::llm::Provider> provider) {
    ModelRequest request;
    request.messages.push_back(Message::user("What is the capital of France?"));
    co_return co_await provider->complete(std::move(request));
}

// Connections the peer holds open besides the one asking (polled: a close takes a moment to arrive).
long long openConnections(const ProviderPeer& peer, long long expected) {
    long long open = -1;
    for (int i = 0; i < 60; ++i) {
        open = peer.stats()["open"].get<long long>() - 1;
        if (open == expected) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return open;
}

}  // namespace

TEST_CASE("a provider outlives the io_context it was used on and serves the next one",
          "[integration][providers][lifetime]") {
    ProviderPeer peer(alwaysText());
    auto provider = reagent::providers::makeProvider(peerConfig(ProviderKind::openai, peer));
    REQUIRE(provider);
    {
        Loop first;
        REQUIRE(first.run(ask(*provider)));
        REQUIRE(first.run(ask(*provider)));
        CHECK(openConnections(peer, 1) == 1);  // kept alive, reused by the second call
    }
    // The io_context is gone: so is the connection it pooled, though the provider lives on.
    CHECK(openConnections(peer, 0) == 0);

    Loop second;
    auto reply = second.run(ask(*provider));
    REQUIRE(reply);
    CHECK_FALSE(reply->text.empty());
    CHECK(peer.stats()["connections"].get<long long>() >= 2);

    SECTION("the provider goes first: its idle connection closes in the running context") {
        provider->reset();
        CHECK(openConnections(peer, 0) == 0);
    }
    SECTION("the provider goes last, after its io_context") {
        // Nothing to do here: `second` is destroyed before `provider` at the end of the test case.
    }
}

TEST_CASE("one provider serves two threads, each running its own io_context",
          "[integration][providers][lifetime]") {
    ProviderPeer peer(alwaysText());
    auto provider = reagent::providers::makeProvider(peerConfig(ProviderKind::openai, peer));
    REQUIRE(provider);
    constexpr int kCalls = 20;
    std::vector<int> ok(2, 0);

    std::vector<std::thread> threads;
    for (int& count : ok) {
        threads.emplace_back([&provider, &count] {
            Loop loop;
            for (int i = 0; i < kCalls; ++i) {
                if (auto reply = loop.run(ask(*provider)); reply && !reply->text.empty()) ++count;
            }
        });
    }
    for (auto& thread : threads) thread.join();

    CHECK(ok[0] == kCalls);
    CHECK(ok[1] == kCalls);
    // One keep-alive connection per context, and both closed with their contexts.
    CHECK(peer.stats()["connections"].get<long long>() == 2 + 1);
    CHECK(openConnections(peer, 0) == 0);
}

TEST_CASE("maxIdleConnections bounds the connections kept after concurrent calls",
          "[integration][providers][pool]") {
    const auto keptAfterThreeAtOnce = [](std::size_t maxIdle) {
        ProviderPeer peer(alwaysText());
        auto config = peerConfig(ProviderKind::openai, peer);
        config.maxIdleConnections = maxIdle;
        auto provider = reagent::providers::makeProvider(config);
        REQUIRE(provider);
        Loop loop;
        int ok = 0;
        for (int i = 0; i < 3; ++i) {
            boost::asio::co_spawn(loop.io(), ask(*provider),
                                  [&ok](std::exception_ptr, Outcome reply) { ok += reply ? 1 : 0; });
        }
        loop.io().run();
        CHECK(ok == 3);
        return openConnections(peer, static_cast<long long>(maxIdle));
    };
    CHECK(keptAfterThreeAtOnce(3) == 3);
    CHECK(keptAfterThreeAtOnce(1) == 1);
    CHECK(keptAfterThreeAtOnce(0) == 0);
}
