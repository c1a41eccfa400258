#include "cli_options.hpp"

#include <charconv>
#include <cmath>
#include <system_error>

namespace reagent::cli {

CLI::Validator wholeNumber(unsigned long long max) {
    return CLI::Validator(
        [max](std::string& text) -> std::string {
            unsigned long long value = 0;
            const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
            if (error == std::errc::result_out_of_range || (error == std::errc() && value > max)) {
                return "'" + text + "' is too large (at most " + std::to_string(max) + ")";
            }
            if (error != std::errc() || end != text.data() + text.size() || value == 0) {
                return "'" + text + "' is not a whole number from 1 to " + std::to_string(max);
            }
            return {};
        },
        "INTEGER 1.." + std::to_string(max));
}

CLI::Validator positiveSeconds() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            double value = 0;
            const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
            if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value) ||
                value <= 0 || value > 86400) {
                return "'" + text + "' is not a number of seconds above 0 and at most 86400";
            }
            return {};
        },
        "SECONDS");
}

CLI::Validator nonEmpty(std::string what) {
    return CLI::Validator(
        [what](std::string& text) -> std::string { return text.empty() ? "needs " + what + ", not ''" : ""; },
        "");
}

void addServerAuthOptions(CLI::App* command, ServerAuthOptions& auth, const char* variable) {
    auto* file =
        command
            ->add_option("--token-file", auth.tokenFile,
                         std::string("Require the bearer token in this file (default: $") + variable +
                             " when set, else a token generated at start and printed on stderr)")
            ->check(nonEmpty("a file path"));
    command
        ->add_flag("--no-auth", auth.noAuth,
                   "Serve every caller without a token (any local user can then use the server)")
        ->excludes(file);
}

void addSkillsOption(CLI::App* command, std::vector<std::string>& folders) {
    command
        ->add_option(
            "--skills", folders,
            "A folder of Agent Skills (subfolders holding a SKILL.md), or one skill's folder: the agent "
            "sees their names and descriptions and loads one through the `skill` tool. Repeatable")
        ->check(CLI::ExistingDirectory)
        ->type_name("DIR")
        ->allow_extra_args(false);  // one value per occurrence: the words after it stay the prompt
}

void addToolSearchOption(CLI::App* command, std::string& mode) {
    command
        ->add_option(
            "--tool-search", mode,
            "auto: above 64 tools the model is offered `find` and the meta-tools, and finds the others "
            "as it needs them; always: so whatever the number; off: every tool on every request")
        ->check(CLI::IsMember({"auto", "always", "off"}))
        ->default_str("auto");
}

void addDocsOption(CLI::App* command, std::string& index) {
    command
        ->add_option(
            "--docs", index,
            "A document index (made by `reagent docs ingest`): `find` searches its passages, and with "
            "--workspace the `rag-ingest` tool adds the workspace's files to it")
        ->check(CLI::ExistingFile)
        ->type_name("FILE");
}

}  // namespace reagent::cli
