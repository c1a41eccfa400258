#pragma once
// The error of an error object inside a reply or a stream, for the decoders (which hold Boost.JSON
// values). Internal to the providers library; see `providers::streamError` for the rules.

#include <string_view>

#include "json_access.hpp"
#include "reagent/llm/provider_error.hpp"

namespace reagent::providers::detail {

[[nodiscard]] llm::ProviderError streamError(std::string_view provider, const Json& body);

}  // namespace reagent::providers::detail
