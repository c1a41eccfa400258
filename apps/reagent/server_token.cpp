// The bearer token of `reagent mcp serve --http` and `reagent serve --a2a`: chosen, read or generated.

#include "server_token.hpp"

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>

#include "reagent/http/server_rules.hpp"

namespace reagent::cli {

namespace {

/// A token file larger than this is not a token file.
constexpr std::size_t kMaxTokenFileBytes = 4096;

[[nodiscard]] std::string withoutTrailingSpace(std::string text) {
    while (!text.empty() &&
           (text.back() == '\n' || text.back() == '\r' || text.back() == ' ' || text.back() == '\t')) {
        text.pop_back();
    }
    return text;
}

[[nodiscard]] expected<std::string, std::string> readTokenFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return fail("--token-file " + path + ": cannot read it");
    }
    std::string text;
    text.resize(kMaxTokenFileBytes + 1);
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxTokenFileBytes) {
        return fail("--token-file " + path + ": larger than " + std::to_string(kMaxTokenFileBytes) +
                    " bytes; it must hold the token alone");
    }
    return withoutTrailingSpace(std::move(text));
}

}  // namespace

expected<std::optional<ServerToken>, std::string> serverToken(const ServerAuthOptions& options,
                                                              const std::string& envName) {
    if (options.noAuth) {
        return std::optional<ServerToken>();
    }
    ServerToken token;
    if (!options.tokenFile.empty()) {
        auto read = readTokenFile(options.tokenFile);
        if (!read) {
            return fail(read.error());
        }
        token.value = std::move(*read);
        token.source = "--token-file " + options.tokenFile;
        struct stat info {};
        if (::stat(options.tokenFile.c_str(), &info) == 0 && (info.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
            token.warning = "reagent: warning: --token-file " + options.tokenFile +
                            " can be read by other users, who can then call this server (chmod 600 it)\n";
        }
    } else if (const char* fromEnv = std::getenv(envName.c_str()); fromEnv != nullptr && *fromEnv != '\0') {
        token.value = withoutTrailingSpace(fromEnv);
        token.source = "$" + envName;
    } else {
        token.value = http::newBearerToken();
        return std::optional<ServerToken>(std::move(token));
    }
    if (const auto why = http::invalidBearerToken(token.value)) {
        return fail(token.source + ": " + *why);
    }
    return std::optional<ServerToken>(std::move(token));
}

std::string authLine(const std::optional<ServerToken>& token, const std::string& envName,
                     const std::string& callers) {
    if (!token) {
        return "reagent: warning: --no-auth: any local user, and any program on this machine, can " +
               callers + " without a token\n";
    }
    if (token->source.empty()) {
        return "reagent: clients must send the header 'Authorization: Bearer " + token->value +
               "' (a token generated for this run; choose one with --token-file or $" + envName +
               ", or serve without one with --no-auth)\n";
    }
    return "reagent: clients must send the header 'Authorization: Bearer <the token of " + token->source +
           ">'\n";
}

}  // namespace reagent::cli
