#include "reagent/tools/tool_source.hpp"

namespace reagent::tools {

expected<std::vector<Tool>, ToolError> ToolSource::tools() {
    return std::vector<Tool>{};
}

bool ToolSource::opens() const noexcept {
    return false;
}

Task<expected<void, ToolError>> ToolSource::open(std::shared_ptr<ToolSink> /*sink*/) {
    co_return expected<void, ToolError>{};
}

Task<void> ToolSource::close() {
    co_return;
}

CheckpointRollback ToolSource::rollback() const {
    return {};
}

}  // namespace reagent::tools
