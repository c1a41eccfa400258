#pragma once
/// \file
/// \brief `HttpProvider`: a model API over HTTP, one class run with any `WireFormat`, and `makeProvider`.

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/http/http_client.hpp"
#include "reagent/llm/provider.hpp"
#include "reagent/providers/codec_options.hpp"
#include "reagent/providers/encoded_request.hpp"
#include "reagent/providers/provider_config.hpp"
#include "reagent/providers/wire_format.hpp"

namespace reagent::providers::detail {
class RateLimiter;
}  // namespace reagent::providers::detail

namespace reagent::providers {

/// \brief A model API over HTTP: a `WireFormat` run by the common machinery (HTTP client, retries,
/// streaming, cancellation, limits, the cache of encoded tool lists).
///
/// `complete` encodes the request with the format, sends it to the configured base URL joined with the
/// request's path (`joinUrl`), with the provider's `HttpClient` on the calling coroutine's
/// executor, and decodes the reply. With `ProviderConfig::stream` and a
/// `ModelRequest::onDelta`, the reply is streamed and every delta is handed to `onDelta` as it arrives.
///
/// A reply with neither text nor a tool call fails with `empty_reply` (not retried).
///
/// \par Retries
/// Rate limits (429), server errors (5xx, Anthropic's 529) and connection failures are retried up to
/// `ProviderConfig::retry.maxAttempts` attempts in total, with exponential backoff and jitter, waiting
/// what the server's `retry-after` asks instead when it sends one, unless it asks for more than
/// `ProviderConfig::maxRetryWait`: the call then fails at once, saying what was asked. Each wait is
/// announced to `ModelRequest::onRetry` first. Timeouts, cancellation, client errors
/// and a spent quota (`quota_exceeded`, even when it comes as a 429) are not retried, and neither is a
/// stream that failed after a delta was delivered.
///
/// \par Cancellation
/// Cancelling the awaiting coroutine closes the connection and returns `cancelled`.
///
/// \par Thread safety and lifetime
/// A provider may be shared by several agents, executors and threads: `complete` may run on several
/// execution contexts at once. Idle keep-alive connections are pooled per execution context and close
/// with it (see `http::HttpClient`), so a provider may outlive the `io_context`s it was used on, and an
/// `io_context` may be destroyed while the provider lives on.
class HttpProvider final : public llm::Provider {
  public:
    /// \brief A provider speaking `format` with `config`, whose empty model and base URL take the format's
    /// defaults. `config.kind` is not read (`makeProvider` uses it to choose the format), and `config`
    /// is not checked: `makeProvider` does that.
    HttpProvider(ProviderConfig config, WireFormat format);
    ~HttpProvider() override;

    /// \brief The format's name ("anthropic").
    [[nodiscard]] std::string_view name() const noexcept override { return format_.name; }
    /// \brief `ProviderConfig::model`, or the format's default model.
    [[nodiscard]] std::string_view model() const noexcept override {
        return config_.model.empty() ? std::string_view(format_.defaultModel)
                                     : std::string_view(config_.model);
    }

    [[nodiscard]] Task<expected<llm::ModelReply, llm::ProviderError>> complete(
        llm::ModelRequest request) override;
    /// \brief The API's count of `request`'s prompt (`WireFormat::encodeCount`), retried as `complete` is;
    /// outside the rate limits (the counting endpoints have their own). Fails with `configuration` of type
    /// `llm::kNoTokenCount` for a format without one (OpenAI, Ollama).
    [[nodiscard]] Task<expected<std::int64_t, llm::ProviderError>> countTokens(
        llm::ModelRequest request) override;

    /// \brief The configuration with defaults filled in (model, base URL).
    [[nodiscard]] const ProviderConfig& config() const noexcept { return config_; }
    /// \brief The wire format spoken.
    [[nodiscard]] const WireFormat& format() const noexcept { return format_; }
    /// \brief The HTTP client (for tests of connection reuse).
    [[nodiscard]] const http::HttpClient* client() const noexcept { return client_.get(); }

  private:
    struct Attempt;
    struct Caches;
    [[nodiscard]] Task<expected<llm::ModelReply, llm::ProviderError>> attempt(std::shared_ptr<Attempt> state);
    /// Why the format cannot take `request` (`WireFormat::refuse`), as an `invalid_request` error; none when
    /// it can.
    [[nodiscard]] std::optional<llm::ProviderError> refusal(const llm::ModelRequest& request,
                                                            const CodecOptions& options) const;
    /// The codec options of this provider's configuration.
    [[nodiscard]] CodecOptions codecOptions(bool stream) const;
    [[nodiscard]] Task<expected<llm::ModelReply, llm::ProviderError>> attemptWhole(
        std::shared_ptr<Attempt> state);
    [[nodiscard]] Task<expected<llm::ModelReply, llm::ProviderError>> attemptStreamed(
        std::shared_ptr<Attempt> state);
    /// Hands `delta` to the call's `onDelta` (whatever it throws is dropped).
    static void deliver(Attempt& state, const llm::StreamDelta& delta);
    /// The encoded declarations of `tools`: remembered for the last few lists seen, recognised by
    /// identity (the turns of a run share one list) or by equal specs (the runs of an agent).
    [[nodiscard]] std::shared_ptr<const EncodedTools> encodedTools(const llm::ToolList& tools,
                                                                   const CodecOptions& options);
    /// Makes the header fields of every request: content type, accept, authentication, extra headers.
    void makeHeaders();

    ProviderConfig config_;
    WireFormat format_;
    std::shared_ptr<http::HttpClient> client_;
    std::unique_ptr<Caches> caches_;
    /// Keeps every request of this provider within `ProviderConfig::rateLimits` and the API's headers.
    std::unique_ptr<detail::RateLimiter> limiter_;
    /// The header fields of every request, not streamed and streamed (they differ in `Accept`).
    std::array<http::HttpHeaders, 2> headers_;
};

/// \brief The provider for `config.kind`: an `HttpProvider` speaking `wire::forKind(config.kind)`.
///
/// \par Errors
/// `configuration` when `validateConfig` refuses `config`: a required API key is empty (the message
/// names the environment variable), or the base URL is not an absolute `http://` or `https://` URL with a
/// host and a valid port (the message says which, the URL's credentials masked).
[[nodiscard]] expected<std::shared_ptr<llm::Provider>, llm::ProviderError> makeProvider(
    ProviderConfig config);

/// \brief A provider speaking `format`, for an API reagent has no format for: `config.kind` is not read.
///
/// \par Errors
/// `configuration` when the base URL (`config.baseUrl`, else `format.defaultBaseUrl`) is not an
/// absolute `http://` or `https://` URL with a host and a valid port, as `validateConfig` checks it, or
/// when `format` lacks one of its functions. No API key is required: `format.authenticate` receives what
/// `config.apiKey` holds.
[[nodiscard]] expected<std::shared_ptr<llm::Provider>, llm::ProviderError> makeProvider(ProviderConfig config,
                                                                                        WireFormat format);

}  // namespace reagent::providers
