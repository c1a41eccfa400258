#pragma once
/// \file
/// \brief `DirectoryMapRequest`: an indented outline of a directory tree.

#include <cstddef>
#include <string>

namespace reagent::builtins {

/// \brief Which tree to outline, and how deep.
///
/// The map is text: the directory on the first line (`./` for the root), then one entry per line,
/// indented two spaces per level, directories first (with a trailing `/`), then the other entries, each
/// group sorted by name; a symbolic link shows as `name -> target` and is not followed. A directory deeper
/// than `maxDepth` shows as `name/ …`; entries beyond `maxEntries` are summarised in a last line.
struct DirectoryMapRequest {
    /// Relative to the workspace root. Default: the root.
    std::string path = ".";
    /// Levels shown below `path` (1: only its own entries). Default 3.
    std::size_t maxDepth = 3;
    /// Include entries whose name starts with `.`.
    bool showHidden = false;
    /// The most entries shown.
    std::size_t maxEntries = 500;
};

}  // namespace reagent::builtins
