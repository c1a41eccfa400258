#include "reagent/llm/provider.hpp"

#include <string>

namespace reagent::llm {

Task<expected<std::int64_t, ProviderError>> Provider::countTokens(ModelRequest /*request*/) {
    ProviderError error;
    error.code = ProviderErrc::configuration;
    error.providerType = kNoTokenCount;
    error.message =
        std::string(name()) + ": this API has no token-counting endpoint; the prompt's size is estimated";
    co_return fail(std::move(error));
}

}  // namespace reagent::llm
