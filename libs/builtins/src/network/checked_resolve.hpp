#pragma once
// Resolving the host of a URL the model chose and checking every address against the network rule.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "network/address_rule.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/tools/tool_error.hpp"

namespace reagent::builtins::detail {

/// The addresses of `host` (an IP literal is taken as it is), in the resolver's order without repeats,
/// every one of them allowed by `rule`. Errors (`ToolErrc::failed`, worded for the model): the host does
/// not resolve, the lookup outlived `timeout`, or an address is refused (the message names it, says why
/// and that the user can allow it).
///
/// \par Cancellation
/// A lookup already running (`getaddrinfo`) cannot be interrupted: a cancelled call returns when it ends.
[[nodiscard]] Task<expected<std::vector<std::string>, tools::ToolError>> resolveChecked(
    std::string host, std::uint16_t port, std::shared_ptr<const AddressRule> rule,
    std::chrono::milliseconds timeout);

}  // namespace reagent::builtins::detail
