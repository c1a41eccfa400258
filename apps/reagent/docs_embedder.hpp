#pragma once
/// \file
/// \brief The embedder of `--embedder KIND[:MODEL]`, and the one an index remembers.

#include <memory>
#include <string>

#include "reagent/core/expected.hpp"
#include "reagent/documents/document_index.hpp"
#include "reagent/llm/embedder.hpp"

namespace reagent::cli {

/// \brief `openai`, `gemini`, `ollama` (each optionally `:MODEL`; keys and base URLs from the provider's
/// environment variables, as `--provider`), or `hashed` (offline, `hashed:hashed-words-N` for N
/// dimensions); or what is wrong with `spec`.
[[nodiscard]] expected<std::shared_ptr<llm::Embedder>, std::string> embedderFromSpec(const std::string& spec);

/// \brief The embedder `spec` names when given; else the one `index` was embedded with (none when it has
/// none). `warning` gets why an index's own embedder cannot be made (a missing key): the caller then ranks
/// by text.
[[nodiscard]] expected<std::shared_ptr<llm::Embedder>, std::string> embedderFor(
    const std::string& spec, documents::DocumentIndex& index, std::string& warning);

}  // namespace reagent::cli
