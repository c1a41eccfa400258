#include "reagent/tools/tool_builder.hpp"

#include <algorithm>
#include <array>
#include <string_view>

#include "reagent/tools/schema_validator.hpp"

namespace reagent::tools {

using nlohmann::json;

namespace {

constexpr std::array<std::string_view, 6> kParamTypes{"string",  "number", "integer",
                                                      "boolean", "array",  "object"};

bool isParamType(std::string_view type) {
    return std::find(kParamTypes.begin(), kParamTypes.end(), type) != kParamTypes.end();
}

}  // namespace

ToolBuilder::ToolBuilder(std::string name) {
    tool_.definition.name = std::move(name);
}

ToolBuilder ToolBuilder::create(std::string name) {
    return ToolBuilder(std::move(name));
}

ToolBuilder& ToolBuilder::description(std::string text) {
    tool_.definition.description = std::move(text);
    return *this;
}

ToolBuilder& ToolBuilder::action(std::string text) {
    tool_.definition.action = [text = std::move(text)](const json&) { return text; };
    return *this;
}

ToolBuilder& ToolBuilder::action(ActionText text) {
    tool_.definition.action = std::move(text);
    return *this;
}

ToolBuilder& ToolBuilder::param(std::string name, std::string type, std::string description,
                                ParamOptions options) {
    const std::string where = "parameter '" + name + "': ";
    if (name.empty()) {
        problems_.emplace_back("a parameter has an empty name");
        return *this;
    }
    if (properties_.contains(name)) {
        problems_.push_back(where + "declared twice");
        return *this;
    }
    if (!isParamType(type)) {
        problems_.push_back(where + "unknown type '" + type +
                            "' (use string, number, integer, boolean, array or object)");
        return *this;
    }
    if (!options.items.is_null() && type != "array") {
        problems_.push_back(where + "items is only for array parameters");
        return *this;
    }
    if (!options.items.is_null() && !options.items.is_object()) {
        problems_.push_back(where + "items must be a JSON Schema object");
        return *this;
    }
    json property{{"type", type}};
    if (!description.empty()) {
        property["description"] = std::move(description);
    }
    if (!options.enumValues.empty()) {
        property["enum"] = std::move(options.enumValues);
    }
    if (options.defaultValue) {
        property["default"] = std::move(*options.defaultValue);
    }
    if (!options.items.is_null()) {
        property["items"] = std::move(options.items);
    }
    properties_[name] = std::move(property);
    if (options.required) {
        required_.push_back(std::move(name));
    }
    return *this;
}

ToolBuilder& ToolBuilder::schema(json schema) {
    schema_ = std::move(schema);
    return *this;
}

ToolError detail::invalidArguments(const DecodeError& error) {
    ToolError out{ToolErrc::invalid_arguments,
                  "arguments do not match the tool's types: " + error.describe()};
    out.details = json::array({json{{"path", error.path}, {"message", error.message}}});
    return out;
}

void ToolBuilder::argumentsFrom(expected<nlohmann::json, SchemaError> schema) {
    if (schema) {
        argumentsSchema_ = std::move(*schema);
    } else {
        problems_.push_back("the arguments' struct: " + schema.error().describe());
    }
}

ToolBuilder& ToolBuilder::outputSchema(nlohmann::json schema) {
    tool_.definition.outputSchema = std::move(schema);
    return *this;
}

ToolBuilder& ToolBuilder::category(std::string category) {
    tool_.definition.category = std::move(category);
    return *this;
}

ToolBuilder& ToolBuilder::tags(std::vector<std::string> tags) {
    tool_.definition.tags = std::move(tags);
    return *this;
}

ToolBuilder& ToolBuilder::riskLevel(RiskLevel level) {
    tool_.definition.riskLevel = level;
    return *this;
}

ToolBuilder& ToolBuilder::timeout(std::chrono::milliseconds limit) {
    tool_.definition.timeout = limit;
    return *this;
}

ToolBuilder& ToolBuilder::requiresApproval(bool required) {
    tool_.definition.requiresApproval = required;
    return *this;
}

ToolBuilder& ToolBuilder::requiresApprovalWhen(ApprovalRule rule) {
    tool_.definition.requiresApproval = true;
    tool_.definition.approvalRule = std::move(rule);
    return *this;
}

ToolBuilder& ToolBuilder::mode(ToolMode mode) {
    tool_.definition.mode = mode;
    return *this;
}

ToolBuilder& ToolBuilder::sideEffect(bool value) {
    tool_.definition.sideEffect = value;
    return *this;
}

ToolBuilder& ToolBuilder::idempotent(bool value) {
    tool_.definition.idempotent = value;
    return *this;
}

ToolBuilder& ToolBuilder::handler(ToolHandler handler) {
    tool_.handler = std::move(handler);
    return *this;
}

ToolBuilder& ToolBuilder::init(ToolHook hook) {
    tool_.init = std::move(hook);
    return *this;
}

ToolBuilder& ToolBuilder::dispose(ToolHook hook) {
    tool_.dispose = std::move(hook);
    return *this;
}

ToolBuilder& ToolBuilder::declarationOnly() {
    declarationOnly_ = true;
    return *this;
}

expected<Tool, ToolError> ToolBuilder::build() const {
    Tool tool = tool_;
    std::vector<std::string> problems;
    if (argumentsSchema_) {
        tool.definition.inputSchema = *argumentsSchema_;
        if (schema_ || !properties_.empty()) {
            problems.emplace_back(
                "typedHandler<Args> takes the schema of the described Args: param() and schema() would "
                "write it twice");
        }
    } else if (schema_) {
        tool.definition.inputSchema = *schema_;
        if (!properties_.empty()) {
            problems.emplace_back(
                "schema() replaces the parameters declared with param(): use one or the other");
        }
    } else {
        tool.definition.inputSchema = json{{"type", "object"}, {"properties", properties_}};
        if (!required_.empty()) {
            tool.definition.inputSchema["required"] = required_;
        }
    }

    if (auto valid = validateDefinition(tool.definition); !valid) {
        for (const auto& problem : valid.error().details) {
            problems.push_back(problem.get<std::string>());
        }
    } else if (auto compiled = SchemaValidator::compile(tool.definition.inputSchema); !compiled) {
        problems.push_back(compiled.error().message);
    }
    problems.insert(problems.end(), problems_.begin(), problems_.end());
    if (declarationOnly_ && tool.handler) {
        problems.emplace_back("a declaration-only tool must not have a handler");
    } else if (!declarationOnly_ && !tool.handler) {
        problems.emplace_back(
            "handler is missing (set handler() or typedHandler(), or mark it declarationOnly())");
    }

    if (problems.empty()) {
        return tool;
    }
    std::string message = "invalid tool definition '" + tool.definition.name + "': ";
    for (std::size_t i = 0; i < problems.size(); ++i) {
        message += (i == 0 ? "" : "; ") + problems[i];
    }
    return fail(ToolError{ToolErrc::invalid_definition, std::move(message), json(problems)});
}

}  // namespace reagent::tools
