#pragma once
// Private to reagent::mcp_server: running a request's handler (a tool call, a prompt's getter) raced
// against its cancellation, and what ends such a request without the handler's value: a cancellation
// (no answer is owed) or, in 2026-07-28, a round that asked the client questions (input_required).

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/experimental/parallel_group.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <exception>
#include <memory>
#include <optional>
#include <string>

#include "reagent/core/cancellation.hpp"
#include "reagent/mcp/envelope.hpp"
#include "server_state.hpp"

namespace reagent::mcp::detail {

/// How a raced handler ended: its value; or `error` (it threw); or `over` (the request was answered
/// input_required, or cancelled and owes no answer).
template <class T>
struct Raced {
    std::optional<T> value;
    std::exception_ptr error;
    bool over = false;
};

template <class T>
Task<Raced<T>> raceCall(std::shared_ptr<ServerSession::State> self, RequestId id, Task<T> run,
                        std::shared_ptr<ServerSession::State::Call> call) {
    namespace asio = boost::asio;
    auto executor = co_await asio::this_coro::executor;
    auto race = asio::experimental::make_parallel_group(
        asio::co_spawn(executor, std::move(run), asio::deferred), call->cancel.wait(asio::deferred));
    auto [order, error, value, cancelWait] =
        co_await std::move(race).async_wait(asio::experimental::wait_for_one(), asio::use_awaitable);
    (void)cancelWait;
    self->inFlight.erase(id);
    Raced<T> out;
    const bool cancelled =
        call->cancelled || self->closed || isCancelled(co_await asio::this_coro::cancellation_state);
    if (!cancelled && call->round && call->round->required) {
        // A question ended the round: the client answers it and calls again.
        self->respond(id, inputRequired(self->server->rounds, *call->round));
        out.over = true;
    } else if (order[0] == 1 || cancelled) {
        self->unanswered(id);  // cancelled: the client expects no response
        out.over = true;
    } else if (error) {
        out.error = error;
    } else {
        out.value = std::move(value);
    }
    co_return out;
}

/// A request whose handler failed after one of its questions needed a capability the request did not
/// declare is refused with kMissingClientCapability (`what`: "tool", "prompt"); false when none was missing.
inline bool refuseMissingCapability(ServerSession::State& self, const RequestId& id,
                                    const ServerSession::State::Call& call, const std::string& what) {
    if (call.missingCapability.is_null()) {
        return false;
    }
    self.refuse(id, RpcError{kMissingClientCapability,
                             "Missing required client capability: the " + what + " needs " +
                                 call.missingCapability.dump() + ", which the request did not declare",
                             nlohmann::json{{"requiredCapabilities", call.missingCapability}}});
    return true;
}

}  // namespace reagent::mcp::detail
