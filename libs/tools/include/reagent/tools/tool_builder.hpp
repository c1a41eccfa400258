#pragma once
/// \file
/// \brief `ToolBuilder`: a fluent way to define a tool without writing JSON Schema by hand.

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/tools/described_schema.hpp"
#include "reagent/tools/detail/typed_handler.hpp"
#include "reagent/tools/tool.hpp"

namespace reagent::tools {

/// \brief Options of one parameter: `{.required = true, .enumValues = {"read", "write"}}`.
struct ParamOptions {
    /// Whether the model must pass it. Default false.
    bool required = false;
    /// Allowed values; empty means any value of the type.
    std::vector<nlohmann::json> enumValues = {};
    /// Injected when the model leaves the parameter out.
    std::optional<nlohmann::json> defaultValue = std::nullopt;
    /// For `array` parameters: the schema of the items (default: any).
    nlohmann::json items = nullptr;
};

/// \brief Fluent builder: `ToolBuilder::create("calc").description(...).param(...).handler(...).build()`.
///
/// Problems found while building (a bad name, an unknown parameter type, a duplicate parameter, a
/// missing description or handler) are collected and reported by `build()`; nothing throws.
class ToolBuilder {
  public:
    [[nodiscard]] static ToolBuilder create(std::string name);

    ToolBuilder& description(std::string text);
    /// A fixed progress text for people.
    ToolBuilder& action(std::string text);
    /// A progress text computed from the validated arguments.
    ToolBuilder& action(ActionText text);
    /// Adds a parameter; `type` is one of string, number, integer, boolean, array, object.
    ToolBuilder& param(std::string name, std::string type, std::string description,
                       ParamOptions options = {});
    /// Replaces the generated schema with a complete JSON Schema of the arguments.
    ToolBuilder& schema(nlohmann::json schema);
    /// \brief Sets `ToolDefinition::outputSchema` (the schema of the structured result).
    ToolBuilder& outputSchema(nlohmann::json schema);
    ToolBuilder& category(std::string category);
    ToolBuilder& tags(std::vector<std::string> tags);
    ToolBuilder& riskLevel(RiskLevel level);
    ToolBuilder& timeout(std::chrono::milliseconds limit);
    ToolBuilder& requiresApproval(bool required = true);
    /// Requires approval for the calls `rule` returns true for (`ToolDefinition::approvalRule`).
    ToolBuilder& requiresApprovalWhen(ApprovalRule rule);
    ToolBuilder& mode(ToolMode mode);
    ToolBuilder& sideEffect(bool value = true);
    /// `ToolDefinition::idempotent`: false for a tool whose calls must not be repeated without a person.
    ToolBuilder& idempotent(bool value = true);
    ToolBuilder& handler(ToolHandler handler);
    /// A handler that receives `Args` decoded from the validated arguments; `fn(Args, ToolContext)`
    /// returns `Task<ToolResult>`. When `Args` is described (`BOOST_DESCRIBE_STRUCT`), the tool's schema
    /// is `schemaOf<Args>()` (do not also call param() or schema()) and `decodeAs<Args>` decodes;
    /// otherwise nlohmann's `from_json` decodes and param()/schema() give the schema. A decoding failure
    /// reaches the model as `invalid_arguments`.
    template <class Args, class Fn>
    ToolBuilder& typedHandler(Fn fn) {
        if constexpr (tools::detail::kDescribedStruct<Args>) {
            argumentsFrom(schemaOf<Args>());
            return handler(detail::DescribedHandler<Args, Fn>{std::move(fn)});
        } else {
            return handler(detail::TypedHandler<Args, Fn>{std::move(fn)});
        }
    }
    ToolBuilder& init(ToolHook hook);
    ToolBuilder& dispose(ToolHook hook);
    /// Builds without a handler on purpose: the caller executes this tool.
    ToolBuilder& declarationOnly();

    /// \brief The tool, or `ToolErrc::invalid_definition` listing every problem found.
    [[nodiscard]] expected<Tool, ToolError> build() const;

  private:
    explicit ToolBuilder(std::string name);
    // The schema of a described argument struct (typedHandler), or why it has none.
    void argumentsFrom(expected<nlohmann::json, SchemaError> schema);
    Tool tool_;
    nlohmann::json properties_ = nlohmann::json::object();
    std::vector<std::string> required_;
    std::optional<nlohmann::json> schema_;
    std::optional<nlohmann::json> argumentsSchema_;
    std::vector<std::string> problems_;
    bool declarationOnly_ = false;
};

}  // namespace reagent::tools
