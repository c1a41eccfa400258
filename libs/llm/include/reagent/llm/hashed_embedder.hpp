#pragma once
/// \file
/// \brief `HashedEmbedder`: a deterministic, offline `Embedder` (hashed word counts), for tests and demos.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "reagent/llm/embedder.hpp"

namespace reagent::llm {

/// \brief An `Embedder` that needs no model and no network: each text becomes a bag of hashed words.
///
/// A text's words are its runs of ASCII letters and digits (lower-cased) and of non-ASCII bytes (kept as
/// they are, so UTF-8 words stay whole); every other byte separates them. A final `s` is dropped from a
/// word longer than 3 bytes ("cats" and "cat" are one word). Each distinct word adds `±(1 + ln(tf))` (tf:
/// its count in the text) to bucket `h % dimensions` of the vector, where `h` is the 64-bit FNV-1a hash of
/// the word and the sign is `-` when bit 63 of `h` is set; the vector is then scaled to unit length. A text
/// without words keeps the zero vector (so may, rarely, one whose few words cancel out in one bucket). The
/// loopback provider peer (`tests/peers/provider_peer.py`, script key `embeddings`) computes the same
/// vectors.
///
/// It captures shared words, not meaning: texts that share words are near, synonyms and paraphrases are
/// not ("car" and "automobile" are unrelated). Use it where a real model is not wanted (tests, offline
/// demos), never to judge retrieval quality.
///
/// \par Errors and cancellation
/// `embed` always succeeds and never suspends; `maxBatch()` is not enforced.
///
/// \par Thread safety
/// Immutable after construction: any number of threads may use one at once.
class HashedEmbedder final : public Embedder {
  public:
    /// \brief The default dimension of the vectors.
    static constexpr std::size_t kDefaultDimensions = 256;

    /// \brief An embedder of `dimensions`-dimensional vectors (invariant: at least 1; 0 is taken as 1).
    explicit HashedEmbedder(std::size_t dimensions = kDefaultDimensions);

    /// \brief `"hashed"`.
    [[nodiscard]] std::string_view name() const noexcept override { return "hashed"; }
    /// \brief `"hashed-words-<dimensions>"` (`"hashed-words-256"`): vectors of different dimensions
    /// never pass for one model's.
    [[nodiscard]] std::string_view model() const noexcept override { return model_; }
    /// \brief 1024: no API limits it; callers that split by it make bounded calls.
    [[nodiscard]] std::size_t maxBatch() const noexcept override { return 1024; }
    /// \brief The dimension of every vector.
    [[nodiscard]] std::size_t dimensions() const noexcept { return dimensions_; }

    /// \brief The vector of `text`, as `embed` gives it.
    [[nodiscard]] std::vector<float> vector(std::string_view text) const;

    /// \brief The vectors of `texts`, in order; `purpose` is ignored and the usage is zero.
    [[nodiscard]] Task<expected<Embeddings, ProviderError>> embed(std::vector<std::string> texts,
                                                                  EmbeddingPurpose purpose) override;

  private:
    std::size_t dimensions_;
    std::string model_;
};

}  // namespace reagent::llm
