#include "reagent/providers/from_environment.hpp"

#include <string>

#include "reagent/providers/http_provider.hpp"
#include "reagent/providers/provider_config.hpp"

namespace reagent::providers {

expected<std::shared_ptr<llm::Provider>, llm::ProviderError> fromEnvironment(std::string_view kind) {
    const auto parsed = parseProviderKind(kind);
    if (!parsed) {
        return fail(configurationError("unknown provider '" + std::string(kind) +
                                       "' (known kinds: anthropic, openai, gemini, ollama)"));
    }
    auto config = configFromEnvironment(*parsed);
    if (!config) {
        return fail(std::move(config.error()));
    }
    return makeProvider(std::move(*config));
}

}  // namespace reagent::providers
