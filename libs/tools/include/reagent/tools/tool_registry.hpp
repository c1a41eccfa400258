#pragma once
/// \file
/// \brief `ToolRegistry`: the tools an agent can call, by name.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/tools/schema_validator.hpp"
#include "reagent/tools/tool.hpp"

namespace reagent::tools {

/// \brief A registered tool with its compiled schema. Shared so a call in flight keeps it alive even if
/// the tool is unregistered meanwhile.
struct RegisteredTool {
    Tool tool;
    SchemaValidator validator;
};

/// \brief Called after the set of tools changed (`add`, `remove`, `clear`). Must not throw.
using RegistryListener = std::function<void()>;

/// \brief Tools by name, in registration order.
///
/// \par Thread safety
/// Not thread-safe; use it from the agent's strand.
class ToolRegistry {
  public:
    ToolRegistry() = default;
    /// Copies the tools, not the listeners (they watch the original).
    ToolRegistry(const ToolRegistry& other) : tools_(other.tools_) {}
    ToolRegistry& operator=(const ToolRegistry& other) {
        tools_ = other.tools_;
        notify();
        return *this;
    }
    ToolRegistry(ToolRegistry&&) noexcept = default;
    ToolRegistry& operator=(ToolRegistry&&) noexcept = default;
    ~ToolRegistry() = default;

    /// \brief Validates the definition, compiles its schema and adds it.
    ///
    /// \par Errors
    /// `invalid_definition` (bad name, description, timeout or schema), `duplicate_name`. On error the
    /// registry is unchanged.
    [[nodiscard]] expected<void, ToolError> add(Tool tool);

    /// \brief Removes a tool; false when no tool has that name.
    bool remove(std::string_view name);

    /// \brief The tool named `name`, or null.
    [[nodiscard]] std::shared_ptr<const RegisteredTool> find(std::string_view name) const;

    [[nodiscard]] std::vector<std::shared_ptr<const RegisteredTool>> all() const;
    [[nodiscard]] std::vector<std::shared_ptr<const RegisteredTool>> byCategory(
        std::string_view category) const;
    [[nodiscard]] std::size_t size() const noexcept { return tools_.size(); }
    void clear() noexcept;

    /// \brief Calls `listener` after each change from now on (an MCP server announces
    /// `notifications/tools/list_changed` this way); returns the id that `unwatch` takes.
    std::uint64_t watch(RegistryListener listener);
    /// \brief Stops calling the listener `id`; unknown ids are ignored.
    void unwatch(std::uint64_t id) noexcept;

  private:
    void notify() const noexcept;

    std::vector<std::shared_ptr<const RegisteredTool>> tools_;
    std::vector<std::pair<std::uint64_t, RegistryListener>> listeners_;
    std::uint64_t nextListener_ = 1;
};

}  // namespace reagent::tools
