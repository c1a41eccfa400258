#pragma once
/// \file
/// \brief `readFileUpTo`: a whole file read into memory, refused from its size (without reading it) when
/// larger than a bound.

#include <cstdint>
#include <filesystem>
#include <string>

#include "reagent/core/expected.hpp"

namespace reagent {

/// \brief Why `readFileUpTo` gave no bytes; each caller words it in its own terms.
struct FileReadFailure {
    /// The file is larger than the bound: `size` has its size, and nothing was read.
    bool tooLarge = false;
    std::uintmax_t size = 0;
    /// The file system's reason when the size could not be learnt (no such file, no permission); empty
    /// when opening or reading failed (or the file shrank while being read).
    std::string reason;
};

/// \brief The bytes of `path`, when it has at most `limit` of them.
[[nodiscard]] expected<std::string, FileReadFailure> readFileUpTo(const std::filesystem::path& path,
                                                                  std::uintmax_t limit);

}  // namespace reagent
