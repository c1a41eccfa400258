#include "embedding_format.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <optional>
#include <utility>

#include "json_access.hpp"
#include "json_writer.hpp"
#include "reagent/providers/provider_http_error.hpp"

namespace reagent::providers::embedding_wire {

namespace {

using detail::Json;
using llm::Embeddings;
using llm::ProviderError;

using Vector = std::vector<float>;

// The value of one vector component, when it is a number a float can hold.
std::optional<float> component(const Json& value) {
    double number = 0;
    if (value.is_double()) {
        number = value.get_double();
    } else if (value.is_int64()) {
        number = static_cast<double>(value.get_int64());
    } else if (value.is_uint64()) {
        number = static_cast<double>(value.get_uint64());
    } else {
        return std::nullopt;
    }
    if (!std::isfinite(number) || std::fabs(number) > static_cast<double>(FLT_MAX)) {
        return std::nullopt;
    }
    return static_cast<float>(number);
}

// The vector `value` holds (an array of numbers), else the problem, naming it as `what`.
expected<Vector, std::string> readVector(const Json* value, const std::string& what) {
    const boost::json::array* array = value != nullptr ? value->if_array() : nullptr;
    if (array == nullptr) {
        return fail(
            what + " is not an array of numbers" +
            (value != nullptr && value->is_string() ? " (a string: base64? floats were asked for)" : ""));
    }
    Vector out;
    out.reserve(array->size());
    for (std::size_t i = 0; i < array->size(); ++i) {
        const auto number = component((*array)[i]);
        if (!number) {
            return fail(what + " has a value that is no number a float can hold at position " +
                        std::to_string(i) + ": " + detail::excerpt(detail::serialize((*array)[i]), 40));
        }
        out.push_back(*number);
    }
    return out;
}

// The checks every API's vectors pass: one per text, none empty, all of one dimension.
expected<Embeddings, ProviderError> checked(std::string_view api, std::vector<Vector> vectors,
                                            std::size_t count, std::string model, llm::Usage usage) {
    if (vectors.size() != count) {
        return fail(malformedResponse(
            api, "the reply holds " + std::to_string(vectors.size()) + " embeddings for the " +
                     std::to_string(count) +
                     " texts sent; is the base URL an embeddings API that takes a list of inputs?"));
    }
    for (std::size_t i = 0; i < vectors.size(); ++i) {
        if (vectors[i].empty()) {
            return fail(malformedResponse(api, "embedding " + std::to_string(i) +
                                                   " is empty; does the model '" + model +
                                                   "' make embeddings?"));
        }
        if (vectors[i].size() != vectors.front().size()) {
            return fail(malformedResponse(
                api, "embedding " + std::to_string(i) + " has " + std::to_string(vectors[i].size()) +
                         " dimensions and embedding 0 has " + std::to_string(vectors.front().size()) +
                         "; one model must embed every text of a call"));
        }
    }
    return Embeddings{std::move(vectors), std::move(model), usage};
}

// The 2xx body as a JSON object, or the error the response describes.
expected<const Json*, ProviderError> replyObject(std::string_view api, const detail::ParsedJson& parsed,
                                                 int status, std::string_view body,
                                                 const http::HttpHeaders& headers) {
    if (status < 200 || status > 299) {
        return fail(httpError(api, status, body, headers));
    }
    if (!parsed || !parsed->is_object()) {
        return fail(
            malformedResponse(api, "the embeddings reply is not a JSON object: " + detail::excerpt(body)));
    }
    return &*parsed;
}

std::string modelOr(const Json& reply, std::string_view configured) {
    const auto named = detail::stringView(reply, "model");
    return std::string(named && !named->empty() ? *named : configured);
}

// ---- OpenAI: POST /embeddings {model, input, encoding_format} -> {data: [{index, embedding}], usage}

constexpr std::string_view kOpenAi = "openai";

detail::EmbeddingRequest encodeOpenAi(const std::vector<std::string>& texts,
                                      llm::EmbeddingPurpose /*purpose*/, std::string_view model) {
    detail::EmbeddingRequest request{"/embeddings", {}};
    detail::JsonWriter out(request.body);
    out.beginObject().key("encoding_format").string("float").key("input").beginArray();
    for (const std::string& text : texts) {
        out.string(text);
    }
    out.endArray().key("model").string(model).endObject();
    return request;
}

expected<Embeddings, ProviderError> decodeOpenAi(int status, std::string_view body,
                                                 const http::HttpHeaders& headers, std::size_t count,
                                                 std::string_view model) {
    const detail::ParsedJson parsed(body);
    auto reply = replyObject(kOpenAi, parsed, status, body, headers);
    if (!reply) {
        return fail(std::move(reply.error()));
    }
    const boost::json::array* data = detail::arrayMember(**reply, "data");
    if (data == nullptr) {
        return fail(
            malformedResponse(kOpenAi, "the embeddings reply has no data array: " + detail::excerpt(body)));
    }
    std::vector<Vector> vectors(data->size());
    std::vector<bool> seen(data->size(), false);
    for (std::size_t i = 0; i < data->size(); ++i) {
        const Json& item = (*data)[i];
        // The API numbers its items; a server that does not keeps them in order.
        const auto index = detail::integerMember(item, "index");
        const std::size_t at = index ? static_cast<std::size_t>(*index) : i;
        if ((index && *index < 0) || at >= vectors.size() || seen[at]) {
            return fail(malformedResponse(kOpenAi, "data[" + std::to_string(i) + "] has the index " +
                                                       std::to_string(index.value_or(-1)) +
                                                       ", out of range or repeated"));
        }
        auto vector =
            readVector(detail::member(item, "embedding"), "data[" + std::to_string(i) + "].embedding");
        if (!vector) {
            return fail(malformedResponse(kOpenAi, vector.error()));
        }
        vectors[at] = std::move(*vector);
        seen[at] = true;
    }
    llm::Usage usage;
    if (const Json* reported = detail::objectMember(**reply, "usage")) {
        usage.inputTokens =
            std::max<std::int64_t>(0, detail::integerMember(*reported, "prompt_tokens").value_or(0));
    }
    return checked(kOpenAi, std::move(vectors), count, modelOr(**reply, model), usage);
}

// ---- Gemini: POST /models/{m}:batchEmbedContents {requests: [{model, content, taskType}]}
//      -> {embeddings: [{values}]}

constexpr std::string_view kGemini = "gemini";

std::string geminiModel(std::string_view model) {
    if (model.rfind("models/", 0) == 0 || model.rfind("tunedModels/", 0) == 0) {
        return std::string(model);
    }
    return "models/" + std::string(model);
}

detail::EmbeddingRequest encodeGemini(const std::vector<std::string>& texts, llm::EmbeddingPurpose purpose,
                                      std::string_view model) {
    const std::string resource = geminiModel(model);
    const std::string_view task =
        purpose == llm::EmbeddingPurpose::query ? "RETRIEVAL_QUERY" : "RETRIEVAL_DOCUMENT";
    detail::EmbeddingRequest request{"/" + resource + ":batchEmbedContents", {}};
    detail::JsonWriter out(request.body);
    out.beginObject().key("requests").beginArray();
    for (const std::string& text : texts) {
        out.beginObject().key("content").beginObject().key("parts").beginArray();
        out.beginObject().key("text").string(text).endObject();
        out.endArray().endObject();
        out.key("model").string(resource).key("taskType").string(task).endObject();
    }
    out.endArray().endObject();
    return request;
}

expected<Embeddings, ProviderError> decodeGemini(int status, std::string_view body,
                                                 const http::HttpHeaders& headers, std::size_t count,
                                                 std::string_view model) {
    const detail::ParsedJson parsed(body);
    auto reply = replyObject(kGemini, parsed, status, body, headers);
    if (!reply) {
        return fail(std::move(reply.error()));
    }
    const boost::json::array* embeddings = detail::arrayMember(**reply, "embeddings");
    if (embeddings == nullptr) {
        return fail(malformedResponse(
            kGemini, "the embeddings reply has no embeddings array: " + detail::excerpt(body)));
    }
    std::vector<Vector> vectors;
    vectors.reserve(embeddings->size());
    for (std::size_t i = 0; i < embeddings->size(); ++i) {
        auto vector = readVector(detail::member((*embeddings)[i], "values"),
                                 "embeddings[" + std::to_string(i) + "].values");
        if (!vector) {
            return fail(malformedResponse(kGemini, vector.error()));
        }
        vectors.push_back(std::move(*vector));
    }
    return checked(kGemini, std::move(vectors), count, std::string(model), {});
}

// ---- Ollama: POST /embed {model, input} -> {model, embeddings: [[...]], prompt_eval_count}

constexpr std::string_view kOllama = "ollama";

detail::EmbeddingRequest encodeOllama(const std::vector<std::string>& texts,
                                      llm::EmbeddingPurpose /*purpose*/, std::string_view model) {
    detail::EmbeddingRequest request{"/embed", {}};
    detail::JsonWriter out(request.body);
    out.beginObject().key("input").beginArray();
    for (const std::string& text : texts) {
        out.string(text);
    }
    out.endArray().key("model").string(model).endObject();
    return request;
}

expected<Embeddings, ProviderError> decodeOllama(int status, std::string_view body,
                                                 const http::HttpHeaders& headers, std::size_t count,
                                                 std::string_view model) {
    const detail::ParsedJson parsed(body);
    auto reply = replyObject(kOllama, parsed, status, body, headers);
    if (!reply) {
        return fail(std::move(reply.error()));
    }
    const boost::json::array* embeddings = detail::arrayMember(**reply, "embeddings");
    if (embeddings == nullptr) {
        return fail(malformedResponse(
            kOllama, "the embeddings reply has no embeddings array: " + detail::excerpt(body)));
    }
    std::vector<Vector> vectors;
    vectors.reserve(embeddings->size());
    for (std::size_t i = 0; i < embeddings->size(); ++i) {
        auto vector = readVector(&(*embeddings)[i], "embeddings[" + std::to_string(i) + "]");
        if (!vector) {
            return fail(malformedResponse(kOllama, vector.error()));
        }
        vectors.push_back(std::move(*vector));
    }
    llm::Usage usage;
    usage.inputTokens =
        std::max<std::int64_t>(0, detail::integerMember(**reply, "prompt_eval_count").value_or(0));
    return checked(kOllama, std::move(vectors), count, modelOr(**reply, model), usage);
}

// Batch sizes: OpenAI takes up to 2048 inputs (and 300k tokens) per request, but long documents reach the
// token limit far sooner: 128 keeps a request of 2 KB chunks well inside it. Gemini's batchEmbedContents
// takes at most 100 requests. Ollama has no limit; 64 keeps one request of a local model short.
constexpr detail::EmbeddingFormat kOpenAiFormat{kOpenAi, "text-embedding-3-small", 128, encodeOpenAi,
                                                decodeOpenAi};
constexpr detail::EmbeddingFormat kGeminiFormat{kGemini, "gemini-embedding-001", 100, encodeGemini,
                                                decodeGemini};
constexpr detail::EmbeddingFormat kOllamaFormat{kOllama, "nomic-embed-text", 64, encodeOllama, decodeOllama};

}  // namespace

}  // namespace reagent::providers::embedding_wire

namespace reagent::providers::detail {

const EmbeddingFormat* embeddingFormat(ProviderKind kind) noexcept {
    switch (kind) {
        case ProviderKind::openai:
            return &embedding_wire::kOpenAiFormat;
        case ProviderKind::gemini:
            return &embedding_wire::kGeminiFormat;
        case ProviderKind::ollama:
            return &embedding_wire::kOllamaFormat;
        case ProviderKind::anthropic:
            break;
    }
    return nullptr;
}

}  // namespace reagent::providers::detail
