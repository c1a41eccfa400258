#pragma once
/// \file
/// \brief Joins agent and providers: `AgentBuilder::withProvider("anthropic")` makes the provider with
/// `providers::fromEnvironment`.
///
/// The agent library does not depend on providers (so an agent given its own provider links neither HTTP
/// nor OpenSSL); this header, part of `reagent::reagent` and included by `<reagent/reagent.hpp>`, is the
/// layer above both that lets a provider be named by kind.

#include <memory>
#include <string_view>

#include "reagent/agent/agent.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/llm/provider.hpp"
#include "reagent/llm/provider_error.hpp"
#include "reagent/providers/from_environment.hpp"

namespace reagent::agent {

/// \brief `withProvider(kind)` reads the provider's configuration from the environment
/// (`providers::fromEnvironment`).
template <>
struct ProviderByKind<void> {
    [[nodiscard]] static expected<std::shared_ptr<llm::Provider>, llm::ProviderError> make(
        std::string_view kind) {
        return providers::fromEnvironment(kind);
    }
};

}  // namespace reagent::agent
