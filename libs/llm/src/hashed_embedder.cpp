#include "reagent/llm/hashed_embedder.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <utility>

namespace reagent::llm {

namespace {

constexpr std::uint64_t kFnvOffset = 14695981039346656037ULL;
constexpr std::uint64_t kFnvPrime = 1099511628211ULL;

std::uint64_t fnv1a64(std::string_view bytes) noexcept {
    std::uint64_t hash = kFnvOffset;
    for (const char c : bytes) {
        hash ^= static_cast<unsigned char>(c);
        hash *= kFnvPrime;
    }
    return hash;
}

// A byte of a word: an ASCII letter or digit, or any non-ASCII byte (part of a UTF-8 character).
bool isWordByte(unsigned char c) noexcept {
    return c >= 0x80 || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// Each word of `text` (see HashedEmbedder) with its count.
std::map<std::string, int> countedWords(std::string_view text) {
    std::map<std::string, int> counts;
    std::string word;
    const auto flush = [&] {
        if (word.size() > 3 && word.back() == 's') {
            word.pop_back();  // a plural, most of the time
        }
        if (!word.empty()) {
            ++counts[word];
        }
        word.clear();
    };
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (!isWordByte(byte)) {
            flush();
            continue;
        }
        word.push_back(byte >= 'A' && byte <= 'Z' ? static_cast<char>(byte - 'A' + 'a') : c);
    }
    flush();
    return counts;
}

}  // namespace

HashedEmbedder::HashedEmbedder(std::size_t dimensions)
    : dimensions_(std::max<std::size_t>(dimensions, 1)),
      model_("hashed-words-" + std::to_string(dimensions_)) {}

std::vector<float> HashedEmbedder::vector(std::string_view text) const {
    std::vector<double> sums(dimensions_, 0.0);
    for (const auto& [word, count] : countedWords(text)) {
        const std::uint64_t hash = fnv1a64(word);
        const double weight = 1.0 + std::log(static_cast<double>(count));
        sums[hash % dimensions_] += (hash >> 63U) != 0 ? -weight : weight;
    }
    double norm = 0;
    for (const double value : sums) {
        norm += value * value;
    }
    norm = std::sqrt(norm);
    std::vector<float> out(dimensions_, 0.0F);
    if (norm > 0) {
        std::transform(sums.begin(), sums.end(), out.begin(),
                       [norm](double value) { return static_cast<float>(value / norm); });
    }
    return out;
}

Task<expected<Embeddings, ProviderError>> HashedEmbedder::embed(std::vector<std::string> texts,
                                                                EmbeddingPurpose /*purpose*/) {
    Embeddings out;
    out.model = model_;
    out.vectors.reserve(texts.size());
    for (const std::string& text : texts) {
        out.vectors.push_back(vector(text));
    }
    co_return out;
}

}  // namespace reagent::llm
