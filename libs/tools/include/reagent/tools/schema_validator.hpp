#pragma once
/// \file
/// \brief `SchemaValidator`: a compiled JSON Schema that checks tool arguments and injects defaults.

#include <memory>
#include <nlohmann/json.hpp>

#include "reagent/core/expected.hpp"
#include "reagent/tools/tool_error.hpp"

namespace reagent::tools {

/// \brief A JSON Schema (draft 7 subset supported by valijson) compiled once and shared by every call.
///
/// \par Thread safety
/// `validate` is const and may run concurrently: each call uses its own validator state.
class SchemaValidator {
  public:
    /// \brief Compiles `schema`.
    ///
    /// \par Errors
    /// `ToolErrc::invalid_definition` when the schema is malformed (the message says where).
    [[nodiscard]] static expected<SchemaValidator, ToolError> compile(const nlohmann::json& schema);

    /// \brief Injects defaults for missing properties (recursively), then validates.
    ///
    /// \returns the arguments with defaults, or `ToolErrc::invalid_arguments` whose message names each
    /// failing path and rule (e.g. `at /limit: expected integer, got string`), in a form a model can fix.
    [[nodiscard]] expected<nlohmann::json, ToolError> validate(nlohmann::json args) const;

    /// \brief The schema as given.
    [[nodiscard]] const nlohmann::json& schema() const noexcept;

  private:
    struct Compiled;
    explicit SchemaValidator(std::shared_ptr<const Compiled> compiled);
    std::shared_ptr<const Compiled> compiled_;
};

}  // namespace reagent::tools
