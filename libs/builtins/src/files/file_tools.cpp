#include "reagent/builtins/file_tools.hpp"

#include <utility>

namespace reagent::builtins {

std::vector<tools::Tool> fileTools(std::shared_ptr<ExecutionAdapter> workspace, FileToolOptions options) {
    std::vector<tools::Tool> result;
    result.push_back(fileReadTool(workspace, options));
    if (!options.readOnly) {
        result.push_back(fileWriteTool(workspace, options));
        result.push_back(fileEditTool(workspace, options));
    }
    result.push_back(lsTool(workspace, options));
    result.push_back(globTool(workspace, options));
    result.push_back(grepTool(std::move(workspace), options));
    return result;
}

}  // namespace reagent::builtins
