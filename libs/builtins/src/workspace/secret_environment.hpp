#pragma once
// The variables of this process's environment that commands started by tools do not inherit: credentials
// such as `*_API_KEY`, `*_TOKEN`, `*_SECRET`, `*_PASSWORD` and the AWS keys. Their output reaches the
// model, the trace and `--json`.

#include <string>
#include <string_view>
#include <vector>

namespace reagent::builtins::detail {

/// \brief True when a variable's name looks like it holds a credential: one of its `_`-separated words
/// (any case) is KEY, APIKEY, TOKEN, SECRET, PASSWORD, PASSWD, PASSPHRASE, CREDENTIAL(S), AUTH, COOKIE or
/// PAT (plural forms too).
[[nodiscard]] bool isSecretVariable(std::string_view name);

/// \brief `environment` (`NAME=value` entries) without the secret variables, except those named in `keep`.
[[nodiscard]] std::vector<std::string> withoutSecrets(std::vector<std::string> environment,
                                                      const std::vector<std::string>& keep);

}  // namespace reagent::builtins::detail
