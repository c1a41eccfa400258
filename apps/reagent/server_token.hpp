#pragma once
/// \file
/// \brief The bearer token `reagent mcp serve --http` and `reagent serve --a2a` require of their callers.

#include <optional>
#include <string>

#include "reagent/core/expected.hpp"

namespace reagent::cli {

/// \brief How a server command authenticates its callers (`--token-file`, `--no-auth`).
struct ServerAuthOptions {
    /// `--token-file`: a file whose content (trailing whitespace dropped) is the token. Empty: none.
    std::string tokenFile;
    /// `--no-auth`: serve every caller, without a token.
    bool noAuth = false;
};

/// \brief The token a server requires, and where it came from.
struct ServerToken {
    /// The token (a secret: printed only when generated, never in an error).
    std::string value;
    /// Where it came from, for the start message: `--token-file FILE`, `$NAME`, or empty when generated.
    std::string source;
    /// A warning to print, or empty: a token file other users can read.
    std::string warning;
};

/// \brief The token to require: from `--token-file`, else from the environment variable `envName` (when
/// set and not empty), else a new random one; nothing with `--no-auth`.
///
/// \par Errors
/// A sentence naming the file or the variable (never the token): the file cannot be read, is larger than
/// 4 KiB, or holds no usable token (empty, or characters a bearer token cannot have).
[[nodiscard]] expected<std::optional<ServerToken>, std::string> serverToken(const ServerAuthOptions& options,
                                                                            const std::string& envName);

/// \brief The stderr line that tells how clients authenticate: the header to send (with the token itself
/// when it was generated, so that the user can pass it on), or a warning that `--no-auth` lets any local
/// user in.
[[nodiscard]] std::string authLine(const std::optional<ServerToken>& token, const std::string& envName,
                                   const std::string& callers);

}  // namespace reagent::cli
