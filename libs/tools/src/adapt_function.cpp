#include "reagent/tools/adapt_function.hpp"

#include "reagent/tools/tool_builder.hpp"

namespace reagent::tools::detail {

// The builder already turns parameters into a schema and collects definition problems: reuse it.
expected<Tool, ToolError> adaptFunctionImpl(FunctionSpec spec, ToolHandler handler) {
    auto builder = ToolBuilder::create(std::move(spec.name));
    builder.description(std::move(spec.description)).handler(std::move(handler));
    for (auto& parameter : spec.parameters) {
        ParamOptions options;
        options.required = parameter.required;
        options.enumValues = std::move(parameter.enumValues);
        options.defaultValue = std::move(parameter.defaultValue);
        builder.param(std::move(parameter.name), std::move(parameter.type), std::move(parameter.description),
                      std::move(options));
    }
    return builder.build();
}

}  // namespace reagent::tools::detail
