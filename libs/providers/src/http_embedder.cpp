#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "embedding_format.hpp"
#include "provider_exchange.hpp"
#include "reagent/http/http_client.hpp"
#include "reagent/providers/embedder_factory.hpp"
#include "reagent/providers/wire_format.hpp"

namespace reagent::providers {

namespace {

/// An embedding API over HTTP: an `EmbeddingFormat` run with the client, retries and error handling the
/// chat providers use (`provider_exchange.hpp`).
class HttpEmbedder final : public llm::Embedder {
  public:
    HttpEmbedder(ProviderConfig config, const detail::EmbeddingFormat& format)
        : config_(std::move(config)),
          format_(format),
          client_(std::make_shared<http::HttpClient>(detail::clientConfig(config_))) {
        const WireFormat& wire = wire::forKind(config_.kind);
        if (config_.model.empty()) {
            config_.model = format_.defaultModel;
        }
        config_.baseUrl =
            detail::withoutTrailingSlash(config_.baseUrl.empty() ? wire.defaultBaseUrl : config_.baseUrl);
        headers_.set("Content-Type", "application/json");
        headers_.set("Accept", "application/json");
        wire.authenticate(headers_, config_.apiKey);
        for (const auto& field : config_.extraHeaders) {
            headers_.set(field.name, field.value);
        }
    }

    [[nodiscard]] std::string_view name() const noexcept override { return format_.name; }
    [[nodiscard]] std::string_view model() const noexcept override { return config_.model; }
    [[nodiscard]] std::size_t maxBatch() const noexcept override { return format_.maxBatch; }

    [[nodiscard]] Task<expected<llm::Embeddings, llm::ProviderError>> embed(
        std::vector<std::string> texts, llm::EmbeddingPurpose purpose) override {
        if (texts.empty()) {
            co_return llm::Embeddings{{}, config_.model, {}};
        }
        if (texts.size() > format_.maxBatch) {
            co_return fail(tooManyTexts(texts.size()));
        }
        detail::EmbeddingRequest encoded = format_.encode(texts, purpose, config_.model);
        auto request = std::make_shared<http::HttpRequest>();
        request->method = "POST";
        request->url = joinUrl(config_.baseUrl, encoded.path);
        request->headers = headers_;
        request->body = std::move(encoded.body);
        request->timeout = config_.requestTimeout;
        auto decode = [format = &format_, count = texts.size(), model = config_.model](
                          int status, std::string_view body, const http::HttpHeaders& headers) {
            return format->decode(status, body, headers, count, model);
        };
        auto exchange = detail::exchangeWithRetries<llm::Embeddings>(
            client_, std::move(request), std::string(name()), config_, std::move(decode), {});
        co_return co_await std::move(exchange);
    }

  private:
    [[nodiscard]] llm::ProviderError tooManyTexts(std::size_t count) const {
        llm::ProviderError error;
        error.code = llm::ProviderErrc::invalid_request;
        error.message = std::string(name()) + ": " + std::to_string(count) +
                        " texts in one embed call, more than the " + std::to_string(format_.maxBatch) +
                        " one request takes (Embedder::maxBatch): split the list";
        return error;
    }

    ProviderConfig config_;
    const detail::EmbeddingFormat& format_;
    std::shared_ptr<http::HttpClient> client_;
    http::HttpHeaders headers_;
};

}  // namespace

expected<std::shared_ptr<llm::Embedder>, llm::ProviderError> makeEmbedder(ProviderConfig config) {
    const detail::EmbeddingFormat* format = detail::embeddingFormat(config.kind);
    if (format == nullptr) {
        return fail(configurationError(
            std::string(toString(config.kind)) +
            ": this API has no embeddings endpoint; configure an embedding API instead (kind openai, gemini "
            "or ollama; Anthropic recommends Voyage AI)"));
    }
    if (auto valid = validateConfig(config); !valid) {
        return fail(std::move(valid.error()));
    }
    return std::make_shared<HttpEmbedder>(std::move(config), *format);
}

}  // namespace reagent::providers
