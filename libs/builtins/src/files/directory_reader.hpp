#pragma once
// Reading directories through descriptors: entries without following links, sorted by name.

#include <cstdint>
#include <string>
#include <vector>

#include "reagent/builtins/workspace_error.hpp"
#include "reagent/core/expected.hpp"
#include "workspace/unique_fd.hpp"

namespace reagent::builtins::detail {

enum class EntryKind { directory, file, symlink, other };

struct DirectoryEntry {
    std::string name;
    EntryKind kind = EntryKind::other;
};

/// The entries of the open directory `directory` (its position is not changed), `.` and `..` left out,
/// sorted by name.
[[nodiscard]] expected<std::vector<DirectoryEntry>, WorkspaceError> readDirectory(
    int directory, const std::string& relative);

/// Opens the subdirectory `name` of `directory` without following a symbolic link; an invalid descriptor
/// when it cannot (gone meanwhile, swapped for a link, no permission): walks skip it.
[[nodiscard]] UniqueFd openSubdirectory(int directory, const std::string& name);

/// `relative` + "/" + `name`, or `name` alone at the root.
[[nodiscard]] std::string joinRelative(const std::string& relative, const std::string& name);

}  // namespace reagent::builtins::detail
