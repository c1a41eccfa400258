#include "reagent/core/file_read.hpp"

#include <fstream>
#include <system_error>

namespace reagent {

expected<std::string, FileReadFailure> readFileUpTo(const std::filesystem::path& path, std::uintmax_t limit) {
    std::error_code error;
    const std::uintmax_t size = std::filesystem::file_size(path, error);
    if (error) {
        return fail(FileReadFailure{false, 0, error.message()});
    }
    if (size > limit) {
        return fail(FileReadFailure{true, size, {}});
    }
    std::ifstream in(path, std::ios::binary);
    std::string bytes(static_cast<std::size_t>(size), '\0');
    if (!in || !in.read(bytes.data(), static_cast<std::streamsize>(size))) {
        return fail(FileReadFailure{false, size, {}});
    }
    return bytes;
}

}  // namespace reagent
