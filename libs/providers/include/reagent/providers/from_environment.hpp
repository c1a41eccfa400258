#pragma once
/// \file
/// \brief `fromEnvironment`: a provider named by kind, configured from the environment.

#include <memory>
#include <string_view>

#include "reagent/core/expected.hpp"
#include "reagent/llm/provider.hpp"
#include "reagent/llm/provider_error.hpp"

namespace reagent::providers {

/// \brief A provider of the kind named `kind` ("anthropic", "openai", "gemini" or "ollama", as
/// `toString(ProviderKind)` spells it), configured by `configFromEnvironment` and made by `makeProvider`.
///
/// Pass the result straight to the agent builder, which reports a failure from `build()`:
/// `Agent::create().withProvider(providers::fromEnvironment("openai"))`.
///
/// \par Errors
/// `configuration` when `kind` names no known provider (the message quotes it and lists the known
/// kinds), when a required API key is missing (the message names the variable), or when a variable
/// holds an unusable value such as a malformed base URL (see `validateConfig`).
[[nodiscard]] expected<std::shared_ptr<llm::Provider>, llm::ProviderError> fromEnvironment(
    std::string_view kind);

}  // namespace reagent::providers
