#include "reagent/tools/tool_registry.hpp"

#include <algorithm>
#include <utility>

#include "reagent/core/settle.hpp"

namespace reagent::tools {

expected<void, ToolError> ToolRegistry::add(Tool tool) {
    if (auto valid = validateDefinition(tool.definition); !valid) {
        return fail(std::move(valid.error()));
    }
    if (find(tool.definition.name)) {
        return fail(ToolError{ToolErrc::duplicate_name,
                              "a tool named '" + tool.definition.name + "' is already registered"});
    }
    auto validator = SchemaValidator::compile(tool.definition.inputSchema);
    if (!validator) {
        ToolError error = std::move(validator.error());
        error.message = "tool '" + tool.definition.name + "': " + error.message;
        return fail(std::move(error));
    }
    tools_.push_back(
        std::make_shared<const RegisteredTool>(RegisteredTool{std::move(tool), std::move(*validator)}));
    notify();
    return {};
}

bool ToolRegistry::remove(std::string_view name) {
    const auto it = std::find_if(tools_.begin(), tools_.end(),
                                 [name](const auto& entry) { return entry->tool.definition.name == name; });
    if (it == tools_.end()) {
        return false;
    }
    tools_.erase(it);
    notify();
    return true;
}

void ToolRegistry::clear() noexcept {
    const bool changed = !tools_.empty();
    tools_.clear();
    if (changed) {
        notify();
    }
}

std::uint64_t ToolRegistry::watch(RegistryListener listener) {
    listeners_.emplace_back(nextListener_, std::move(listener));
    return nextListener_++;
}

void ToolRegistry::unwatch(std::uint64_t id) noexcept {
    std::erase_if(listeners_, [id](const auto& entry) { return entry.first == id; });
}

void ToolRegistry::notify() const noexcept {
    // A copy: a listener may unwatch (or watch) while it runs. A faulty listener must not break a change.
    const auto listeners = listeners_;
    for (const auto& [id, listener] : listeners) {
        (void)id;
        (void)settleCall(listener);
    }
}

std::shared_ptr<const RegisteredTool> ToolRegistry::find(std::string_view name) const {
    for (const auto& entry : tools_) {
        if (entry->tool.definition.name == name) {
            return entry;
        }
    }
    return nullptr;
}

std::vector<std::shared_ptr<const RegisteredTool>> ToolRegistry::all() const {
    return tools_;
}

std::vector<std::shared_ptr<const RegisteredTool>> ToolRegistry::byCategory(std::string_view category) const {
    std::vector<std::shared_ptr<const RegisteredTool>> matching;
    for (const auto& entry : tools_) {
        if (entry->tool.definition.category == category) {
            matching.push_back(entry);
        }
    }
    return matching;
}

}  // namespace reagent::tools
