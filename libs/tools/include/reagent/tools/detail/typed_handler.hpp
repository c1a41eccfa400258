#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "reagent/core/task.hpp"
#include "reagent/tools/described_schema.hpp"
#include "reagent/tools/tool.hpp"

namespace reagent::tools::detail {

// A free coroutine (parameters by value) so the frame never refers to a lambda or std::function that
// a registry update could destroy while the call is in flight.
template <class Args, class Fn>
Task<ToolResult> invokeTyped(Fn fn, nlohmann::json args, ToolContext context) {
    Args decoded{};
    std::string problem;
    try {
        decoded = args.get<Args>();
    } catch (const nlohmann::json::exception& e) {
        problem = e.what();
    }
    if (!problem.empty()) {
        co_return tl::make_unexpected(ToolError{ToolErrc::invalid_arguments,
                                                "arguments do not match the tool's "
                                                "types: " +
                                                    problem});
    }
    co_return co_await fn(std::move(decoded), std::move(context));
}

// `invalid_arguments` naming where the arguments are not an `Args` (tool_builder.cpp).
[[nodiscard]] ToolError invalidArguments(const DecodeError& error);

// As invokeTyped, for a described `Args`: decodeAs names the first mismatch by its JSON Pointer.
template <class Args, class Fn>
Task<ToolResult> invokeDescribed(Fn fn, nlohmann::json args, ToolContext context) {
    auto decoded = decodeAs<Args>(args);
    if (!decoded) {
        co_return tl::make_unexpected(invalidArguments(decoded.error()));
    }
    co_return co_await fn(std::move(*decoded), std::move(context));
}

template <class Args, class Fn>
struct DescribedHandler {
    Fn fn;
    Task<ToolResult> operator()(nlohmann::json args, ToolContext context) const {
        return invokeDescribed<Args, Fn>(fn, std::move(args), std::move(context));
    }
};

template <class Args, class Fn>
struct TypedHandler {
    Fn fn;
    Task<ToolResult> operator()(nlohmann::json args, ToolContext context) const {
        return invokeTyped<Args, Fn>(fn, std::move(args), std::move(context));
    }
};

}  // namespace reagent::tools::detail
