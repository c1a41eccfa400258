#pragma once
/// \file
/// \brief Checks and option groups that several subcommands of the reagent CLI declare alike.

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "server_token.hpp"

namespace reagent::cli {

/// \brief A whole number in [1, max]; CLI11's own range checks print doubles ("0.000000 to 1797...").
[[nodiscard]] CLI::Validator wholeNumber(unsigned long long max);

/// \brief Seconds as a decimal number, > 0 and at most a day.
[[nodiscard]] CLI::Validator positiveSeconds();

/// \brief Refuses an empty value: "needs `what`, not ''".
[[nodiscard]] CLI::Validator nonEmpty(std::string what);

/// \brief `--token-file` and `--no-auth` of a server command (exclusive); `variable` is named in the help.
void addServerAuthOptions(CLI::App* command, ServerAuthOptions& auth, const char* variable);

/// \brief `--skills DIR` (repeatable): folders of Agent Skills for the agent (`AgentBuilder::withSkills`).
void addSkillsOption(CLI::App* command, std::vector<std::string>& folders);
/// `--tool-search auto|always|off` (`RunOptions::toolSearch`).
void addToolSearchOption(CLI::App* command, std::string& mode);
/// `--docs FILE` (`RunOptions::docsIndex`).
void addDocsOption(CLI::App* command, std::string& index);

}  // namespace reagent::cli
