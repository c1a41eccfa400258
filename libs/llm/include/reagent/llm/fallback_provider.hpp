#pragma once
/// \file
/// \brief `FallbackProvider`: an ordered chain of providers; a request one cannot serve goes to the next.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "reagent/llm/provider.hpp"

namespace reagent::llm {

/// \brief Which failures move a request to the next provider of a `FallbackProvider`. Each provider's own
/// retries come first (an HTTP provider retries rate limits and server errors): the chain moves only on
/// what is left.
struct FallbackPolicy {
    /// The error codes that move the request on. Default: `rate_limited`, `server_error` (overloaded, 5xx),
    /// `connection_failed`, `timeout`, `quota_exceeded`. Never `cancelled`, whatever is listed.
    std::vector<ProviderErrc> on{ProviderErrc::rate_limited, ProviderErrc::server_error,
                                 ProviderErrc::connection_failed, ProviderErrc::timeout,
                                 ProviderErrc::quota_exceeded};
    /// Also move on a request the model's context window cannot hold (an `invalid_request` whose message
    /// says so: `isContextLengthExceeded`), to a model with a larger one. Default true.
    bool onContextLength = true;
};

/// \brief True when `error` says the request is longer than the model's context window (OpenAI
/// `context_length_exceeded`, Anthropic "prompt is too long", Gemini "exceeds the maximum number of tokens").
[[nodiscard]] bool isContextLengthExceeded(const ProviderError& error) noexcept;

/// \brief Serves each request with the first provider of `chain` that can: on a failure `policy` names,
/// the same request goes to the next, until one answers or the chain ends (then the last failure is the
/// result).
///
/// The history is `llm::Message`s, which every provider encodes in its own format, so tool calls and their
/// ids stay valid across a switch. A reply streamed in part is not moved (its text has been shown): its
/// failure is the result. The usage a failed provider reported is added to the answer's (or the last
/// failure's). Each move is told to `ModelRequest::onFallback` before the next provider is asked.
///
/// \par Thread safety
/// As its providers: shared by several agents on one executor.
class FallbackProvider final : public Provider {
  public:
    /// \param chain At least one provider, none null (`make` checks).
    FallbackProvider(std::vector<std::shared_ptr<Provider>> chain, FallbackPolicy policy = {});

    /// \brief The chain, or `configuration` naming what is wrong (empty, a null provider).
    [[nodiscard]] static expected<std::shared_ptr<FallbackProvider>, ProviderError> make(
        std::vector<std::shared_ptr<Provider>> chain, FallbackPolicy policy = {});

    /// \brief "fallback".
    [[nodiscard]] std::string_view name() const noexcept override { return "fallback"; }
    /// \brief The first provider's model.
    [[nodiscard]] std::string_view model() const noexcept override { return chain_.front()->model(); }
    [[nodiscard]] Task<expected<ModelReply, ProviderError>> complete(ModelRequest request) override;
    /// \brief The first provider's count (the one a request goes to first).
    [[nodiscard]] Task<expected<std::int64_t, ProviderError>> countTokens(ModelRequest request) override;

    [[nodiscard]] const std::vector<std::shared_ptr<Provider>>& chain() const noexcept { return chain_; }

  private:
    [[nodiscard]] bool movesOn(const ProviderError& error) const noexcept;

    std::vector<std::shared_ptr<Provider>> chain_;
    FallbackPolicy policy_;
};

/// \brief "name:model" of `provider` (the name alone when it does not say its model).
[[nodiscard]] std::string describeProvider(const Provider& provider);

}  // namespace reagent::llm
