#pragma once
/// \file
/// \brief `Embedder`: the seam of embedding models (OpenAI `/embeddings`, Gemini `embedContent`, Ollama
/// `/api/embed`; `providers::makeEmbedder`), used by document retrieval.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/llm/provider_error.hpp"
#include "reagent/llm/usage.hpp"

namespace reagent::llm {

/// \brief What the vectors are for: APIs that distinguish them (Gemini's `taskType`) embed documents and
/// the queries that search them differently; the others ignore it.
enum class EmbeddingPurpose {
    document,
    query,
};

/// \brief The vectors of one `Embedder::embed` call, in the order of its texts.
struct Embeddings {
    /// One vector per text, all of one dimension.
    std::vector<std::vector<float>> vectors;
    /// The model that embedded them, as the API names it (the configured one when it names none).
    std::string model;
    /// The tokens the API counted (`inputTokens`), when it reports them.
    Usage usage;
};

/// \brief An embedding model.
///
/// \par Errors and cancellation
/// `embed` never throws: failures, cancellation included, come back as `ProviderError` (a count of
/// vectors that does not match the texts, or vectors of mixed dimensions, are `malformed_response`).
///
/// \par Thread safety
/// As `Provider`: shareable by the users of one executor.
class Embedder {
  public:
    virtual ~Embedder() = default;

    /// \brief A short name for logs ("openai", "gemini", "ollama", ...).
    [[nodiscard]] virtual std::string_view name() const noexcept = 0;
    /// \brief The model asked ("text-embedding-3-small"); what a stored vector was made by.
    [[nodiscard]] virtual std::string_view model() const noexcept = 0;
    /// \brief The most texts one `embed` call sends; callers split longer lists. At least 1.
    [[nodiscard]] virtual std::size_t maxBatch() const noexcept { return 64; }
    /// \brief The vectors of `texts` (at most `maxBatch()` of them), in order.
    [[nodiscard]] virtual Task<expected<Embeddings, ProviderError>> embed(std::vector<std::string> texts,
                                                                          EmbeddingPurpose purpose) = 0;
};

}  // namespace reagent::llm
