#include "reagent/builtins/network_tools.hpp"

namespace reagent::builtins {

expected<std::vector<tools::Tool>, tools::ToolError> networkTools(const NetworkToolOptions& options) {
    std::vector<tools::Tool> out;
    for (auto make : {&httpGetTool, &webSearchTool, &cryptoPriceTool}) {
        auto tool = make(options);
        if (!tool) return fail(std::move(tool.error()));
        out.push_back(std::move(*tool));
    }
    return out;
}

}  // namespace reagent::builtins
