// Which environment variables are credentials, and the environment without them.

#include "workspace/secret_environment.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace reagent::builtins::detail {

namespace {

constexpr std::array<std::string_view, 20> kSecretWords = {
    "KEY",     "KEYS",     "APIKEY",    "APIKEYS", "TOKEN",      "TOKENS",     "SECRET",
    "SECRETS", "PASSWORD", "PASSWORDS", "PASSWD",  "PASSPHRASE", "CREDENTIAL", "CREDENTIALS",
    "CREDS",   "AUTH",     "COOKIE",    "COOKIES", "PAT",        "PRIVATEKEY"};

}  // namespace

bool isSecretVariable(std::string_view name) {
    std::string word;
    for (std::size_t i = 0; i <= name.size(); ++i) {
        if (i == name.size() || name[i] == '_') {
            if (std::find(kSecretWords.begin(), kSecretWords.end(), word) != kSecretWords.end()) {
                return true;
            }
            word.clear();
        } else {
            word += static_cast<char>(std::toupper(static_cast<unsigned char>(name[i])));
        }
    }
    return false;
}

std::vector<std::string> withoutSecrets(std::vector<std::string> environment,
                                        const std::vector<std::string>& keep) {
    std::erase_if(environment, [&keep](const std::string& entry) {
        const std::string_view name = std::string_view(entry).substr(0, entry.find('='));
        return isSecretVariable(name) && std::find(keep.begin(), keep.end(), name) == keep.end();
    });
    return environment;
}

}  // namespace reagent::builtins::detail
