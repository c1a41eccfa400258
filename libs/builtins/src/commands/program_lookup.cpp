#include "commands/program_lookup.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>

namespace reagent::builtins::detail {

namespace fs = std::filesystem;

std::string findProgram(const std::string& program, const std::string& path) {
    std::size_t at = 0;
    while (at <= path.size()) {
        const std::size_t end = std::min(path.find(':', at), path.size());
        const std::string dir = path.substr(at, end - at);
        at = end + 1;
        if (dir.empty()) {
            continue;
        }
        const fs::path candidate = fs::path(dir) / program;
        if (::access(candidate.c_str(), X_OK) == 0) {
            std::error_code ec;
            const fs::path real = fs::canonical(candidate, ec);
            return ec ? candidate.string() : real.string();
        }
    }
    return {};
}

}  // namespace reagent::builtins::detail
