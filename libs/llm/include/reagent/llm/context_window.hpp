#pragma once
/// \file
/// \brief The context windows of the models their vendors publish, dated.

#include <cstdint>
#include <optional>
#include <string_view>

namespace reagent::llm {

/// \brief When the built-in table of context windows was last checked against the vendors' model pages.
inline constexpr std::string_view kContextWindowsDate = "2026-11-01";

/// \brief The context window of `model` in tokens (the prompt and the reply together), as its vendor
/// publishes it; `model` as an API names it (a dated snapshot such as `claude-sonnet-4-5-20250929`, Gemini's
/// `models/gemini-2.5-pro`). None for a model the table lacks: Ollama's models (their window is the
/// server's `num_ctx`), fine-tunes, newer models. Give the agent the window then
/// (`AgentBuilder::withContextWindow`, `reagent run --context-window`). Windows offered only behind a beta
/// flag (Claude's 1M) are not the table's.
[[nodiscard]] std::optional<std::int64_t> publishedContextWindow(std::string_view model);

}  // namespace reagent::llm
