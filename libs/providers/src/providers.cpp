#include <utility>

#include "reagent/http/sse_parser.hpp"
#include "reagent/providers/anthropic_codec.hpp"
#include "reagent/providers/gemini_codec.hpp"
#include "reagent/providers/http_provider.hpp"
#include "reagent/providers/ollama_codec.hpp"
#include "reagent/providers/openai_codec.hpp"

namespace reagent::providers {

namespace {

// The SSE wire formats share this: bytes -> events -> the codec's event decoder.
template <class Decoder>
class SseDecoding final : public StreamDecoding {
  public:
    explicit SseDecoding(ToolNameMap names) : decoder_(std::move(names)) {}

    expected<std::vector<llm::StreamDelta>, llm::ProviderError> feed(std::string_view bytes) override {
        std::vector<llm::StreamDelta> out;
        for (const http::SseEvent& event : parser_.feed(bytes)) {
            ++frames_;
            auto deltas = decoder_.feed(event);
            if (!deltas) {
                return fail(std::move(deltas.error()));
            }
            for (auto& delta : *deltas) {
                out.push_back(std::move(delta));
            }
        }
        return out;
    }

    std::size_t pendingBytes() const noexcept override { return parser_.pendingBytes(); }
    std::size_t framesSeen() const noexcept override { return frames_; }

    expected<llm::ModelReply, llm::ProviderError> finish() override {
        (void)parser_.finish();
        return decoder_.finish();
    }

  private:
    http::SseParser parser_;
    Decoder decoder_;
    std::size_t frames_ = 0;
};

class NdjsonDecoding final : public StreamDecoding {
  public:
    explicit NdjsonDecoding(ToolNameMap names) : decoder_(std::move(names)) {}

    expected<std::vector<llm::StreamDelta>, llm::ProviderError> feed(std::string_view bytes) override {
        return decoder_.feed(bytes);
    }
    std::size_t pendingBytes() const noexcept override { return decoder_.pendingBytes(); }
    std::size_t framesSeen() const noexcept override { return decoder_.linesSeen(); }
    expected<llm::ModelReply, llm::ProviderError> finish() override { return decoder_.finish(); }

  private:
    ollama::StreamDecoder decoder_;
};

void setBearer(http::HttpHeaders& headers, const std::string& key) {
    if (!key.empty()) {
        headers.set("Authorization", "Bearer " + key);
    }
}

}  // namespace

// --- Anthropic ---------------------------------------------------------------------------------------

EncodedTools AnthropicProvider::encodeTools(const llm::ToolList& tools, const CodecOptions& options) const {
    return anthropic::encodeTools(tools, options);
}

EncodedRequest AnthropicProvider::encode(const llm::ModelRequest& request, const CodecOptions& options,
                                         const EncodedTools& tools) const {
    return anthropic::encodeRequest(request, options, tools);
}

void AnthropicProvider::authenticate(http::HttpHeaders& headers) const {
    headers.set("x-api-key", config().apiKey);
    headers.set("anthropic-version", std::string(anthropic::kApiVersion));
}

expected<llm::ModelReply, llm::ProviderError> AnthropicProvider::decode(
    int status, std::string_view body, const ToolNameMap& names, const http::HttpHeaders& headers) const {
    return anthropic::decodeResponse(status, body, names, headers);
}

std::unique_ptr<StreamDecoding> AnthropicProvider::streamDecoder(ToolNameMap names) const {
    return std::make_unique<SseDecoding<anthropic::StreamDecoder>>(std::move(names));
}

// --- OpenAI ------------------------------------------------------------------------------------------

EncodedTools OpenAiProvider::encodeTools(const llm::ToolList& tools, const CodecOptions& options) const {
    return openai::encodeTools(tools, options);
}

EncodedRequest OpenAiProvider::encode(const llm::ModelRequest& request, const CodecOptions& options,
                                      const EncodedTools& tools) const {
    return openai::encodeRequest(request, options, tools);
}

void OpenAiProvider::authenticate(http::HttpHeaders& headers) const {
    setBearer(headers, config().apiKey);
}

expected<llm::ModelReply, llm::ProviderError> OpenAiProvider::decode(int status, std::string_view body,
                                                                     const ToolNameMap& names,
                                                                     const http::HttpHeaders& headers) const {
    return openai::decodeResponse(status, body, names, headers);
}

std::unique_ptr<StreamDecoding> OpenAiProvider::streamDecoder(ToolNameMap names) const {
    return std::make_unique<SseDecoding<openai::StreamDecoder>>(std::move(names));
}

// --- Gemini ------------------------------------------------------------------------------------------

EncodedTools GeminiProvider::encodeTools(const llm::ToolList& tools, const CodecOptions& options) const {
    return gemini::encodeTools(tools, options);
}

EncodedRequest GeminiProvider::encode(const llm::ModelRequest& request, const CodecOptions& options,
                                      const EncodedTools& tools) const {
    return gemini::encodeRequest(request, options, tools);
}

// The codec's path starts with the API version; the base URL already ends with it.
std::string GeminiProvider::url(const EncodedRequest& encoded) const {
    std::string_view path = encoded.path;
    constexpr std::string_view kVersion = "/v1beta";
    if (path.substr(0, kVersion.size()) == kVersion) {
        path.remove_prefix(kVersion.size());
    }
    return joinUrl(config().baseUrl, path);
}

void GeminiProvider::authenticate(http::HttpHeaders& headers) const {
    headers.set("x-goog-api-key", config().apiKey);
}

expected<llm::ModelReply, llm::ProviderError> GeminiProvider::decode(int status, std::string_view body,
                                                                     const ToolNameMap& names,
                                                                     const http::HttpHeaders& headers) const {
    return gemini::decodeResponse(status, body, names, headers);
}

std::unique_ptr<StreamDecoding> GeminiProvider::streamDecoder(ToolNameMap names) const {
    return std::make_unique<SseDecoding<gemini::StreamDecoder>>(std::move(names));
}

// --- Ollama ------------------------------------------------------------------------------------------

EncodedTools OllamaProvider::encodeTools(const llm::ToolList& tools, const CodecOptions& options) const {
    return ollama::encodeTools(tools, options);
}

EncodedRequest OllamaProvider::encode(const llm::ModelRequest& request, const CodecOptions& options,
                                      const EncodedTools& tools) const {
    return ollama::encodeRequest(request, options, tools);
}

void OllamaProvider::authenticate(http::HttpHeaders& headers) const {
    setBearer(headers, config().apiKey);
}

expected<llm::ModelReply, llm::ProviderError> OllamaProvider::decode(int status, std::string_view body,
                                                                     const ToolNameMap& names,
                                                                     const http::HttpHeaders& headers) const {
    return ollama::decodeResponse(status, body, names, headers);
}

std::unique_ptr<StreamDecoding> OllamaProvider::streamDecoder(ToolNameMap names) const {
    return std::make_unique<NdjsonDecoding>(std::move(names));
}

// --- Factory -----------------------------------------------------------------------------------------

expected<std::shared_ptr<llm::Provider>, llm::ProviderError> makeProvider(ProviderConfig config) {
    if (auto valid = validateConfig(config); !valid) {
        return fail(std::move(valid.error()));
    }
    switch (config.kind) {
        case ProviderKind::anthropic:
            return std::make_shared<AnthropicProvider>(std::move(config));
        case ProviderKind::openai:
            return std::make_shared<OpenAiProvider>(std::move(config));
        case ProviderKind::gemini:
            return std::make_shared<GeminiProvider>(std::move(config));
        case ProviderKind::ollama:
            return std::make_shared<OllamaProvider>(std::move(config));
    }
    return fail(configurationError("unknown provider kind"));
}

}  // namespace reagent::providers
