#pragma once
/// \file
/// \brief `Provider`: the interface to a language model (a process boundary).

#include <cstdint>
#include <string_view>

#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/llm/model_request.hpp"
#include "reagent/llm/provider_error.hpp"

namespace reagent::llm {

/// \brief Something that answers a `ModelRequest`: an HTTP API, a local server, or a script.
///
/// \par Errors and cancellation
/// `complete` never throws: failures, including cancellation, come back as `ProviderError`.
///
/// \par Thread safety
/// An implementation may be shared by several agents on one executor; it documents anything more.
class Provider {
  public:
    virtual ~Provider() = default;

    /// \brief A short name for logs and results ("anthropic", "scripted", ...).
    [[nodiscard]] virtual std::string_view name() const noexcept = 0;

    /// \brief The model it asks, when it knows ("claude-sonnet-4-5"); empty by default. Prices a reply
    /// whose API does not name the model that answered (`ModelReply::model`).
    [[nodiscard]] virtual std::string_view model() const noexcept { return {}; }

    /// \brief Sends `request` and returns the model's reply.
    [[nodiscard]] virtual Task<expected<ModelReply, ProviderError>> complete(ModelRequest request) = 0;

    /// \brief The exact size of `request`'s prompt in tokens (its messages, system prompt and tools), from
    /// the API's own counting endpoint (Anthropic's `messages/count_tokens`, Gemini's `countTokens`). The
    /// default, for APIs without one, fails with `configuration` of type `kNoTokenCount`.
    [[nodiscard]] virtual Task<expected<std::int64_t, ProviderError>> countTokens(ModelRequest request);
};

/// \brief `ProviderError::providerType` of `Provider::countTokens` on a provider whose API cannot count.
inline constexpr const char* kNoTokenCount = "no_token_count";

}  // namespace reagent::llm
