#include "reagent/core/helper_program.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace reagent {

std::string helperProgramPath(const std::string& name, const char* overrideVariable,
                              const std::string& installedPath, const std::string& buildPath) {
    if (const char* overridden = std::getenv(overrideVariable);
        overridden != nullptr && *overridden != '\0') {
        return overridden;
    }
    std::error_code ec;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        const auto beside = self.parent_path().parent_path() / "libexec" / "reagent" / name;
        if (::access(beside.c_str(), X_OK) == 0) {
            return beside.string();
        }
    }
    if (::access(installedPath.c_str(), X_OK) == 0) {
        return installedPath;
    }
    return buildPath;
}

}  // namespace reagent
