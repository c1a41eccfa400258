#pragma once
/// \file
/// \brief `ScriptedProvider`: a provider that plays back a script, for users' tests and offline demos.

#include <chrono>
#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "reagent/llm/provider.hpp"

namespace reagent::llm {

/// \brief `ProviderError::providerType` of a call the script has no turn left for (code `configuration`:
/// the script is too short for the run).
inline constexpr std::string_view kScriptExhausted = "script_exhausted";
/// \brief `ProviderError::providerType` of a call a turn's expectation rejected (code `invalid_request`:
/// the request is not the one the script expects).
inline constexpr std::string_view kScriptMismatch = "script_mismatch";

/// \brief One scripted model turn: a reply, an error, or a reply computed from the request.
class ScriptedTurn {
  public:
    using Responder = std::function<expected<ModelReply, ProviderError>(const ModelRequest&)>;
    using Matcher = std::function<bool(const ModelRequest&)>;

    /// \brief The model answers with text and stops.
    [[nodiscard]] static ScriptedTurn text(std::string text);
    /// \brief The model asks for one tool call (id defaults to `call_<n>`).
    [[nodiscard]] static ScriptedTurn toolCall(std::string name, nlohmann::json arguments,
                                               std::string id = {});
    /// \brief The model asks for several tool calls at once (a parallel batch).
    [[nodiscard]] static ScriptedTurn toolCalls(std::vector<ToolCall> calls);
    /// \brief The provider fails with `error`.
    [[nodiscard]] static ScriptedTurn error(ProviderError error);
    /// \brief The reply is computed from the request (for example from the tool results so far).
    [[nodiscard]] static ScriptedTurn respond(Responder responder);
    /// \brief A full reply as given.
    [[nodiscard]] static ScriptedTurn reply(ModelReply reply);

    /// \brief Only plays if `matcher` accepts the request; otherwise the call fails with
    /// `invalid_request` of type `kScriptMismatch`, naming `expectation`.
    ScriptedTurn& expect(Matcher matcher, std::string expectation);
    /// \brief Shorthand: the last message of the request contains `fragment`.
    ScriptedTurn& expectLastMessageContains(std::string fragment);
    /// \brief Tokens to report for this turn.
    ScriptedTurn& usage(Usage usage);
    /// \brief Waits this long before answering (cancellable), to simulate latency.
    ScriptedTurn& delay(std::chrono::milliseconds latency);

  private:
    friend class ScriptedProvider;
    explicit ScriptedTurn(std::variant<ModelReply, ProviderError, Responder> outcome);

    std::variant<ModelReply, ProviderError, Responder> outcome_;
    Matcher matcher_;
    std::string expectation_;
    std::optional<Usage> usage_;
    std::chrono::milliseconds delay_{0};
};

/// \brief Plays scripted turns in order, one per `complete` call, and records every request.
///
/// Once the script is exhausted each call fails with `configuration` of type `kScriptExhausted` (or, if
/// `loop(true)`, starts over). Share it through a `std::shared_ptr` to inspect `requests()` after a run.
///
/// Every request is recorded before it is answered, whatever the outcome. Tool calls without an id get
/// `call_<n>`, where n counts (from 1) the tool calls this provider has produced. A reply with tool calls
/// reports `StopReason::tool_use` unless the turn set another reason than `end_turn`.
///
/// \par Errors
/// The production codes, told apart from a real provider's by `ProviderError::providerType` (which
/// `describe()` shows): `invalid_request` of type `kScriptMismatch` when a turn's expectation rejects the
/// request (the message names the expectation and the request number), `configuration` of type
/// `kScriptExhausted` when no turn is left; `cancelled` when cancelled during a `delay`, `server_error`
/// when a `respond` function throws, and whatever error a turn scripts. Nothing is thrown.
///
/// \par Thread safety
/// Not thread-safe; use from one strand.
class ScriptedProvider final : public Provider {
  public:
    ScriptedProvider() = default;
    explicit ScriptedProvider(std::vector<ScriptedTurn> turns);

    /// \brief Appends a turn; returns *this for chaining.
    ScriptedProvider& then(ScriptedTurn turn);
    /// \brief Replays the script from the start once it is exhausted.
    ScriptedProvider& loop(bool enabled = true);
    /// \brief Whether `requests()` keeps a copy of every request (default true). Turn it off for long
    /// or looping scripts (benchmarks, soak tests): the copies then cost nothing and memory stays flat.
    ScriptedProvider& recordRequests(bool enabled);

    [[nodiscard]] std::string_view name() const noexcept override { return "scripted"; }
    [[nodiscard]] Task<expected<ModelReply, ProviderError>> complete(ModelRequest request) override;

    /// \brief Every request seen, in order (empty when recording is off).
    [[nodiscard]] const std::vector<ModelRequest>& requests() const noexcept { return requests_; }
    /// \brief Turns not yet played.
    [[nodiscard]] std::size_t remaining() const noexcept;

  private:
    std::vector<ScriptedTurn> turns_;
    std::size_t next_ = 0;
    bool loop_ = false;
    bool record_ = true;
    std::vector<ModelRequest> requests_;
    /// Requests answered so far, recorded or not.
    std::size_t requestCount_ = 0;
    /// Tool calls produced so far; numbers the default ids.
    std::size_t callCount_ = 0;
};

}  // namespace reagent::llm
