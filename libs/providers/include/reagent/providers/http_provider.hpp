#pragma once
/// \file
/// \brief `HttpProvider`: the shared HTTP, retry and streaming logic behind every model API, and the four
/// providers built on it.

#include <memory>
#include <string>
#include <string_view>

#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/http/http_client.hpp"
#include "reagent/llm/provider.hpp"
#include "reagent/providers/codec_options.hpp"
#include "reagent/providers/encoded_request.hpp"
#include "reagent/providers/provider_config.hpp"

namespace reagent::providers {

/// \brief Turns the raw bytes of a streamed body into deltas, then into the assembled reply.
class StreamDecoding {
  public:
    virtual ~StreamDecoding() = default;
    /// \brief Consumes the next body bytes (split anywhere).
    [[nodiscard]] virtual expected<std::vector<llm::StreamDelta>, llm::ProviderError> feed(
        std::string_view bytes) = 0;
    /// \brief Bytes held for the event or line in progress (bounded by `ProviderConfig::maxEventBytes`).
    [[nodiscard]] virtual std::size_t pendingBytes() const noexcept = 0;
    /// \brief Events (SSE) or lines (NDJSON) seen so far: none in a whole body means it was no stream.
    [[nodiscard]] virtual std::size_t framesSeen() const noexcept = 0;
    /// \brief The body ended: the assembled reply, or why it is incomplete.
    [[nodiscard]] virtual expected<llm::ModelReply, llm::ProviderError> finish() = 0;
};

/// \brief A model API over HTTP: a wire format (the hooks below) plus the common machinery.
///
/// `complete` encodes the request, sends it with the provider's `HttpClient` on the calling coroutine's
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
class HttpProvider : public llm::Provider {
  public:
    explicit HttpProvider(ProviderConfig config);
    ~HttpProvider() override;

    [[nodiscard]] Task<expected<llm::ModelReply, llm::ProviderError>> complete(
        llm::ModelRequest request) final;

    /// \brief The configuration with defaults filled in (model, base URL).
    [[nodiscard]] const ProviderConfig& config() const noexcept { return config_; }
    /// \brief The HTTP client (for tests of connection reuse).
    [[nodiscard]] const http::HttpClient* client() const noexcept { return client_.get(); }

  protected:
    /// \brief Encodes the declarations of a tool list in the wire format. Called once per list: the
    /// provider keeps the result for the following requests offering the same tools.
    [[nodiscard]] virtual EncodedTools encodeTools(const llm::ToolList& tools,
                                                   const CodecOptions& options) const = 0;
    /// \brief Encodes `request` in the wire format, with its tools as `encodeTools` gave them.
    [[nodiscard]] virtual EncodedRequest encode(const llm::ModelRequest& request, const CodecOptions& options,
                                                const EncodedTools& tools) const = 0;
    /// \brief The URL of `encoded` (base URL plus path).
    [[nodiscard]] virtual std::string url(const EncodedRequest& encoded) const;
    /// \brief Adds the authentication headers.
    virtual void authenticate(http::HttpHeaders& headers) const = 0;
    /// \brief Decodes a whole response (any status).
    [[nodiscard]] virtual expected<llm::ModelReply, llm::ProviderError> decode(
        int status, std::string_view body, const ToolNameMap& names,
        const http::HttpHeaders& headers) const = 0;
    /// \brief A decoder for a streamed 2xx body.
    [[nodiscard]] virtual std::unique_ptr<StreamDecoding> streamDecoder(ToolNameMap names) const = 0;

  private:
    struct Attempt;
    struct Caches;
    [[nodiscard]] Task<expected<llm::ModelReply, llm::ProviderError>> attempt(std::shared_ptr<Attempt> state);
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
    /// The header fields of every request (content type, accept, authentication, extra headers), made
    /// on the first call.
    [[nodiscard]] const http::HttpHeaders& headers(bool streamed);

    ProviderConfig config_;
    std::shared_ptr<http::HttpClient> client_;
    std::unique_ptr<Caches> caches_;
};

/// \brief Anthropic Messages API: `x-api-key` and `anthropic-version: 2023-06-01` headers, SSE streams.
class AnthropicProvider final : public HttpProvider {
  public:
    explicit AnthropicProvider(ProviderConfig config) : HttpProvider(std::move(config)) {}
    [[nodiscard]] std::string_view name() const noexcept override { return "anthropic"; }

  protected:
    [[nodiscard]] EncodedTools encodeTools(const llm::ToolList& tools,
                                           const CodecOptions& options) const override;
    [[nodiscard]] EncodedRequest encode(const llm::ModelRequest& request, const CodecOptions& options,
                                        const EncodedTools& tools) const override;
    void authenticate(http::HttpHeaders& headers) const override;
    [[nodiscard]] expected<llm::ModelReply, llm::ProviderError> decode(
        int status, std::string_view body, const ToolNameMap& names,
        const http::HttpHeaders& headers) const override;
    [[nodiscard]] std::unique_ptr<StreamDecoding> streamDecoder(ToolNameMap names) const override;
};

/// \brief OpenAI Chat Completions and compatible servers: `Authorization: Bearer` (only when a key is
/// set), SSE streams.
class OpenAiProvider final : public HttpProvider {
  public:
    explicit OpenAiProvider(ProviderConfig config) : HttpProvider(std::move(config)) {}
    [[nodiscard]] std::string_view name() const noexcept override { return "openai"; }

  protected:
    [[nodiscard]] EncodedTools encodeTools(const llm::ToolList& tools,
                                           const CodecOptions& options) const override;
    [[nodiscard]] EncodedRequest encode(const llm::ModelRequest& request, const CodecOptions& options,
                                        const EncodedTools& tools) const override;
    void authenticate(http::HttpHeaders& headers) const override;
    [[nodiscard]] expected<llm::ModelReply, llm::ProviderError> decode(
        int status, std::string_view body, const ToolNameMap& names,
        const http::HttpHeaders& headers) const override;
    [[nodiscard]] std::unique_ptr<StreamDecoding> streamDecoder(ToolNameMap names) const override;
};

/// \brief Gemini API: `x-goog-api-key` header, `streamGenerateContent?alt=sse` streams. The base URL
/// includes the API version (`.../v1beta`).
class GeminiProvider final : public HttpProvider {
  public:
    explicit GeminiProvider(ProviderConfig config) : HttpProvider(std::move(config)) {}
    [[nodiscard]] std::string_view name() const noexcept override { return "gemini"; }

  protected:
    [[nodiscard]] EncodedTools encodeTools(const llm::ToolList& tools,
                                           const CodecOptions& options) const override;
    [[nodiscard]] EncodedRequest encode(const llm::ModelRequest& request, const CodecOptions& options,
                                        const EncodedTools& tools) const override;
    [[nodiscard]] std::string url(const EncodedRequest& encoded) const override;
    void authenticate(http::HttpHeaders& headers) const override;
    [[nodiscard]] expected<llm::ModelReply, llm::ProviderError> decode(
        int status, std::string_view body, const ToolNameMap& names,
        const http::HttpHeaders& headers) const override;
    [[nodiscard]] std::unique_ptr<StreamDecoding> streamDecoder(ToolNameMap names) const override;
};

/// \brief Ollama native API: no authentication unless a key is set (bearer), NDJSON streams.
class OllamaProvider final : public HttpProvider {
  public:
    explicit OllamaProvider(ProviderConfig config) : HttpProvider(std::move(config)) {}
    [[nodiscard]] std::string_view name() const noexcept override { return "ollama"; }

  protected:
    [[nodiscard]] EncodedTools encodeTools(const llm::ToolList& tools,
                                           const CodecOptions& options) const override;
    [[nodiscard]] EncodedRequest encode(const llm::ModelRequest& request, const CodecOptions& options,
                                        const EncodedTools& tools) const override;
    void authenticate(http::HttpHeaders& headers) const override;
    [[nodiscard]] expected<llm::ModelReply, llm::ProviderError> decode(
        int status, std::string_view body, const ToolNameMap& names,
        const http::HttpHeaders& headers) const override;
    [[nodiscard]] std::unique_ptr<StreamDecoding> streamDecoder(ToolNameMap names) const override;
};

/// \brief The provider for `config.kind`.
///
/// \par Errors
/// `configuration` when `validateConfig` refuses `config`: a required API key is empty (the message
/// names the environment variable), or the base URL is not an absolute `http://` or `https://` URL with a
/// host and a valid port (the message says which, the URL's credentials masked).
[[nodiscard]] expected<std::shared_ptr<llm::Provider>, llm::ProviderError> makeProvider(
    ProviderConfig config);

}  // namespace reagent::providers
