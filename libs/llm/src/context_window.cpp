#include "reagent/llm/context_window.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "model_id.hpp"

namespace reagent::llm {

namespace {

struct Window {
    std::string_view model;
    std::int64_t tokens;
};

// Sorted by id for the binary search. As published on the vendors' model pages (kContextWindowsDate).
constexpr auto kWindows = std::to_array<Window>({
    {"claude-3-5-haiku", 200'000},
    {"claude-3-5-haiku-latest", 200'000},
    {"claude-3-5-sonnet", 200'000},
    {"claude-3-5-sonnet-latest", 200'000},
    {"claude-3-7-sonnet", 200'000},
    {"claude-3-7-sonnet-latest", 200'000},
    {"claude-3-haiku", 200'000},
    {"claude-3-opus", 200'000},
    {"claude-haiku-4-5", 200'000},
    {"claude-opus-4", 200'000},
    {"claude-opus-4-0", 200'000},
    {"claude-opus-4-1", 200'000},
    {"claude-opus-4-5", 200'000},
    {"claude-sonnet-4", 200'000},
    {"claude-sonnet-4-0", 200'000},
    {"claude-sonnet-4-5", 200'000},
    {"gemini-1.5-flash", 1'048'576},
    {"gemini-1.5-pro", 2'097'152},
    {"gemini-2.0-flash", 1'048'576},
    {"gemini-2.0-flash-lite", 1'048'576},
    {"gemini-2.5-flash", 1'048'576},
    {"gemini-2.5-flash-lite", 1'048'576},
    {"gemini-2.5-pro", 1'048'576},
    {"gpt-3.5-turbo", 16'385},
    {"gpt-4-turbo", 128'000},
    {"gpt-4.1", 1'047'576},
    {"gpt-4.1-mini", 1'047'576},
    {"gpt-4.1-nano", 1'047'576},
    {"gpt-4o", 128'000},
    {"gpt-4o-mini", 128'000},
    {"gpt-5", 400'000},
    {"gpt-5-mini", 400'000},
    {"gpt-5-nano", 400'000},
    {"o1", 200'000},
    {"o3", 200'000},
    {"o3-mini", 200'000},
    {"o4-mini", 200'000},
});

static_assert(std::is_sorted(kWindows.begin(), kWindows.end(),
                             [](const Window& a, const Window& b) { return a.model < b.model; }));

}  // namespace

std::optional<std::int64_t> publishedContextWindow(std::string_view model) {
    const Window* found = detail::findModel(model, [](std::string_view id) -> const Window* {
        const auto it =
            std::lower_bound(kWindows.begin(), kWindows.end(), id,
                             [](const Window& entry, std::string_view key) { return entry.model < key; });
        return it != kWindows.end() && it->model == id ? &*it : nullptr;
    });
    if (found == nullptr) {
        return std::nullopt;
    }
    return found->tokens;
}

}  // namespace reagent::llm
