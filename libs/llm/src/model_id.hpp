#pragma once
// Private to libs/llm: how a table keyed by model id (prices, context windows) finds a model the APIs
// name in other forms: Gemini's "models/" prefix, a dated snapshot of an id, an Ollama tag.

#include <string_view>

namespace reagent::llm::detail {

/// `model` without Gemini's "models/" prefix.
[[nodiscard]] std::string_view withoutModelsPrefix(std::string_view model) noexcept;

/// `id` without a dated snapshot suffix: "-20250929" (8 digits) or "-2025-04-14"; empty when it has none.
[[nodiscard]] std::string_view undated(std::string_view id) noexcept;

/// Looks `model` up with `find` (a function of an id returning a pointer, null when absent): as given
/// (without "models/"), then without its dated snapshot suffix.
template <class Find>
[[nodiscard]] auto findModel(std::string_view model, const Find& find) {
    model = withoutModelsPrefix(model);
    auto found = find(model);
    if (found == nullptr) {
        if (const auto base = undated(model); !base.empty()) {
            found = find(base);
        }
    }
    return found;
}

}  // namespace reagent::llm::detail
