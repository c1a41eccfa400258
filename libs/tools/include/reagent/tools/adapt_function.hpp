#pragma once
/// \file
/// \brief `adaptFunction`: turn a plain (synchronous) C++ callable into a tool.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/tools/tool.hpp"

namespace reagent::tools {

/// \brief One parameter of an adapted function.
struct FunctionParam {
    std::string name;
    /// string, number, integer, boolean, array or object.
    std::string type;
    std::string description = {};
    /// Function parameters are required unless said otherwise.
    bool required = true;
    std::vector<nlohmann::json> enumValues = {};
    std::optional<nlohmann::json> defaultValue = std::nullopt;
};

/// \brief Name, description and parameters of an adapted function.
struct FunctionSpec {
    std::string name;
    std::string description;
    std::vector<FunctionParam> parameters;
};

namespace detail {

[[nodiscard]] expected<Tool, ToolError> adaptFunctionImpl(FunctionSpec spec, ToolHandler handler);

// Turns whatever the callable returned into the model-facing text: strings (and JSON strings) pass
// through, anything else convertible to JSON is serialised, and an `expected` keeps its error.
template <class R>
ToolResult toToolResult(R&& value) {
    using V = std::decay_t<R>;
    if constexpr (std::is_same_v<V, nlohmann::json> || std::is_same_v<V, nlohmann::ordered_json>) {
        // Tested first: a json converts implicitly to std::string, which throws unless it holds a string.
        return value.is_string() ? value.template get<std::string>() : value.dump();
    } else if constexpr (std::is_convertible_v<V, std::string>) {
        return std::string(std::forward<R>(value));
    } else if constexpr (requires {
                             value.has_value();
                             value.error();
                         }) {
        if (!value) {
            return tl::make_unexpected(ToolError(value.error()));
        }
        if constexpr (std::is_void_v<typename V::value_type>) {
            return std::string("ok");
        } else {
            return toToolResult(*std::forward<R>(value));
        }
    } else {
        return nlohmann::json(std::forward<R>(value)).dump();
    }
}

template <class Fn>
Task<ToolResult> invokeFunction(Fn fn, nlohmann::json args, ToolContext) {
    co_return toToolResult(fn(std::as_const(args)));
}

}  // namespace detail

/// \brief Wraps `fn(const nlohmann::json& args)`; its result may be a string, anything convertible to
/// JSON, or an `expected<..., ToolError>`. It runs on the agent's executor, so keep it short (a slow
/// function blocks other calls: write a `Task` handler for I/O).
///
/// \par Errors
/// `ToolErrc::invalid_definition` for a bad name, parameter type or duplicate parameter.
template <class Fn>
[[nodiscard]] expected<Tool, ToolError> adaptFunction(FunctionSpec spec, Fn fn) {
    ToolHandler handler = [fn = std::move(fn)](nlohmann::json args, ToolContext context) {
        return detail::invokeFunction(fn, std::move(args), std::move(context));
    };
    return detail::adaptFunctionImpl(std::move(spec), std::move(handler));
}

}  // namespace reagent::tools
