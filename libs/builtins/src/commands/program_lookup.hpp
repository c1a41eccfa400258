#pragma once
// Finding a program on a PATH list, as execvp would, before starting it: tools say at once, and clearly,
// that a program is not installed.

#include <string>

namespace reagent::builtins::detail {

/// The first executable `program` in the directories of `path` (colon-separated), with its symbolic
/// links resolved; empty when there is none.
[[nodiscard]] std::string findProgram(const std::string& program, const std::string& path);

}  // namespace reagent::builtins::detail
