#pragma once
/// \file
/// \brief The offline demo provider: a scripted "model" whose replies are computed from the conversation.

#include <chrono>
#include <memory>
#include <string>

#include "reagent/llm/scripted_provider.hpp"

namespace reagent::cli {

/// \brief The notice printed whenever the demo provider stands in for a real model.
inline constexpr const char* kDemoNotice =
    "reagent: no provider configured \u2014 using the offline demo provider (scripted, no model involved)";

/// \brief A `ScriptedProvider` playing two turns (started over for each turn of `reagent chat`), with no
/// model involved.
///
/// Turn 1 asks for three tool calls at once (a parallel batch): `calculator` on the arithmetic found in
/// the prompt (or `6*7`), `word_count` on the prompt, and `current_time`. Turn 2 reads the tool results
/// in the request and calls `final-answer` with an answer composed from them (errors included).
/// `latency` delays each turn, to simulate a model (and to give Ctrl-C something to cancel).
[[nodiscard]] std::shared_ptr<llm::ScriptedProvider> makeDemoProvider(
    std::chrono::milliseconds latency = std::chrono::milliseconds(0));

/// \brief The expression the demo's `calculator` call uses for `prompt`.
[[nodiscard]] std::string demoExpression(const std::string& prompt);

}  // namespace reagent::cli
