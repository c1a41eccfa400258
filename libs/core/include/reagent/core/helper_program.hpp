#pragma once
/// \file
/// \brief `helperProgramPath`: where one of reagent's helper programs (`reagent-jq`, `reagent-sandbox`)
/// is, in a build tree, an installed tree or a tree moved after installation.

#include <string>

namespace reagent {

/// \brief The helper `name`: the path in the environment variable `overrideVariable` when it is set;
/// else `<directory of the running program>/../libexec/reagent/<name>` when it is executable (an
/// installed tree, wherever it was moved); else `installedPath` when it is executable; else `buildPath`
/// (programs and tests run from the build tree).
[[nodiscard]] std::string helperProgramPath(const std::string& name, const char* overrideVariable,
                                            const std::string& installedPath, const std::string& buildPath);

}  // namespace reagent
