#pragma once
// Private to libs/tools: the checks a JSON Schema from outside must pass before valijson sees it.

#include <nlohmann/json.hpp>
#include <string>

namespace reagent::tools::detail {

/// Why valijson must not be given `schema`, or "" when it may: a `$ref` cycle that applies a schema to
/// the same value without end (`{"$ref": "#"}`, `{"allOf": [{"$ref": "#"}]}`, a `$defs` loop: valijson
/// would recurse until the stack overflows, parsing or validating), or a `pattern` / `patternProperties`
/// key that is not valid RE2 syntax. Recursion through a child value (`properties`, `items`, ...) is
/// allowed: it ends with the value, whose depth is bounded when it is parsed. Follows only local
/// references (`#...`); walks what is reachable from the root, without recursion.
[[nodiscard]] std::string schemaProblem(const nlohmann::json& schema);

}  // namespace reagent::tools::detail
