#include "reagent/llm/scripted_provider.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <exception>
#include <utility>

#include "reagent/core/cancellation.hpp"
#include "reagent/core/detail/utf8.hpp"
#include "reagent/core/settle.hpp"

namespace reagent::llm {

namespace asio = boost::asio;

namespace {

// A short, single-line excerpt of the request's last message, so a mismatch says what was actually sent.
std::string lastMessageExcerpt(const ModelRequest& request) {
    if (request.messages.empty()) {
        return "the request has no messages";
    }
    const Message& last = request.messages.back();
    constexpr std::size_t kMax = 160;
    std::string text =
        last.text.size() > kMax ? std::string(detail::utf8Prefix(last.text, kMax)) + "..." : last.text;
    return "its last message (" + std::string(toString(last.role)) + ") was \"" + text + "\"";
}

ProviderError scriptError(ProviderErrc code, std::string message, std::string_view type = {}) {
    ProviderError error;
    error.code = code;
    error.message = std::move(message);
    error.providerType = type;
    return error;
}

}  // namespace

ScriptedTurn::ScriptedTurn(std::variant<ModelReply, ProviderError, Responder> outcome)
    : outcome_(std::move(outcome)) {}

ScriptedTurn ScriptedTurn::text(std::string text) {
    ModelReply reply;
    reply.text = std::move(text);
    return ScriptedTurn(std::move(reply));
}

ScriptedTurn ScriptedTurn::toolCall(std::string name, nlohmann::json arguments, std::string id) {
    ModelReply reply;
    reply.toolCalls.push_back(ToolCall{std::move(id), std::move(name), std::move(arguments)});
    return ScriptedTurn(std::move(reply));
}

ScriptedTurn ScriptedTurn::toolCalls(std::vector<ToolCall> calls) {
    ModelReply reply;
    reply.toolCalls = std::move(calls);
    return ScriptedTurn(std::move(reply));
}

ScriptedTurn ScriptedTurn::error(ProviderError error) {
    return ScriptedTurn(std::move(error));
}

ScriptedTurn ScriptedTurn::respond(Responder responder) {
    return ScriptedTurn(std::move(responder));
}

ScriptedTurn ScriptedTurn::reply(ModelReply reply) {
    return ScriptedTurn(std::move(reply));
}

ScriptedTurn& ScriptedTurn::expect(Matcher matcher, std::string expectation) {
    matcher_ = std::move(matcher);
    expectation_ = std::move(expectation);
    return *this;
}

ScriptedTurn& ScriptedTurn::expectLastMessageContains(std::string fragment) {
    auto expectation = "the last message contains \"" + fragment + "\"";
    return expect(
        [fragment = std::move(fragment)](const ModelRequest& request) {
            return !request.messages.empty() &&
                   request.messages.back().text.find(fragment) != std::string::npos;
        },
        std::move(expectation));
}

ScriptedTurn& ScriptedTurn::usage(Usage usage) {
    usage_ = usage;
    return *this;
}

ScriptedTurn& ScriptedTurn::delay(std::chrono::milliseconds latency) {
    delay_ = latency;
    return *this;
}

ScriptedProvider::ScriptedProvider(std::vector<ScriptedTurn> turns) : turns_(std::move(turns)) {}

ScriptedProvider& ScriptedProvider::then(ScriptedTurn turn) {
    turns_.push_back(std::move(turn));
    return *this;
}

ScriptedProvider& ScriptedProvider::loop(bool enabled) {
    loop_ = enabled;
    return *this;
}

ScriptedProvider& ScriptedProvider::recordRequests(bool enabled) {
    record_ = enabled;
    return *this;
}

std::size_t ScriptedProvider::remaining() const noexcept {
    return next_ < turns_.size() ? turns_.size() - next_ : 0;
}

Task<expected<ModelReply, ProviderError>> ScriptedProvider::complete(ModelRequest request) {
    // Recorded first, so a test can inspect what was sent even when the call fails.
    if (record_) {
        requests_.push_back(request);
    }
    const std::size_t number = ++requestCount_;
    const std::string label = "request #" + std::to_string(number);

    if (next_ >= turns_.size() && loop_ && !turns_.empty()) {
        next_ = 0;
    }
    if (next_ >= turns_.size()) {
        co_return fail(scriptError(ProviderErrc::configuration,
                                   "scripted provider has no turn left for " + label + " (script has " +
                                       std::to_string(turns_.size()) + " turns); add turns with then(...)",
                                   kScriptExhausted));
    }
    // A copy: the script may grow (then(...)) while this call waits out its delay.
    const std::size_t turnIndex = next_++;
    ScriptedTurn turn = turns_[turnIndex];

    if (turn.matcher_) {
        const auto matched = settleCall(turn.matcher_, request);
        const std::string problem = matched ? "" : "; the matcher threw: " + matched.error().message;
        if (!matched || !*matched) {
            co_return fail(scriptError(ProviderErrc::invalid_request,
                                       label + " does not match turn " + std::to_string(turnIndex + 1) +
                                           ", which expects that " + turn.expectation_ + "; " +
                                           lastMessageExcerpt(request) + problem,
                                       kScriptMismatch));
        }
    }

    if (turn.delay_.count() > 0) {
        bool interrupted = isCancelled(co_await asio::this_coro::cancellation_state);
        if (!interrupted) {
            asio::steady_timer timer(co_await asio::this_coro::executor, turn.delay_);
            auto [ec] = co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
            interrupted = static_cast<bool>(ec);
        }
        if (interrupted) {
            co_return fail(
                scriptError(ProviderErrc::cancelled, label + " was cancelled during its scripted delay"));
        }
    }

    ModelReply reply;
    if (auto* given = std::get_if<ModelReply>(&turn.outcome_)) {
        reply = std::move(*given);
    } else if (auto* error = std::get_if<ProviderError>(&turn.outcome_)) {
        co_return fail(std::move(*error));
    } else {
        auto computed = settleCall(std::get<ScriptedTurn::Responder>(turn.outcome_), request);
        if (!computed) {
            co_return fail(
                scriptError(ProviderErrc::server_error,
                            "the scripted responder for " + label + " threw: " + computed.error().message));
        }
        if (!*computed) {
            co_return fail(std::move(computed->error()));
        }
        reply = std::move(**computed);
    }

    for (ToolCall& call : reply.toolCalls) {
        ++callCount_;
        if (call.id.empty()) {
            call.id = "call_" + std::to_string(callCount_);
        }
    }
    if (!reply.toolCalls.empty() && reply.stopReason == StopReason::end_turn) {
        reply.stopReason = StopReason::tool_use;
    }
    if (turn.usage_) {
        reply.usage = *turn.usage_;
    }
    if (reply.model.empty()) {
        reply.model = "scripted";
    }
    co_return reply;
}

}  // namespace reagent::llm
