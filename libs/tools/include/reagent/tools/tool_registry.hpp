#pragma once
/// \file
/// \brief `ToolRegistry`: the tools an agent can call, by name.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
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

/// \brief Tools by name, in registration order.
///
/// \par Thread safety
/// Not thread-safe; use it from the agent's strand.
class ToolRegistry {
  public:
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
    void clear() noexcept { tools_.clear(); }

  private:
    std::vector<std::shared_ptr<const RegisteredTool>> tools_;
};

}  // namespace reagent::tools
