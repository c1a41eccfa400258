// The OAuth stores: in memory, and in a JSON file (mode 0600) for tokens that outlive the process.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>

#include "reagent/core/json_fields.hpp"
#include "reagent/core/untrusted_json.hpp"
#include "reagent/mcp/oauth.hpp"

namespace reagent::mcp {

namespace {

using nlohmann::json;

class MemoryOAuthStore : public OAuthStore {
  public:
    std::optional<OAuthTokens> tokens() const override {
        const std::scoped_lock lock(mutex_);
        return tokens_;
    }
    void saveTokens(const OAuthTokens& tokens) override {
        const std::scoped_lock lock(mutex_);
        tokens_ = tokens;
        changed();
    }
    void clearTokens() override {
        const std::scoped_lock lock(mutex_);
        tokens_.reset();
        changed();
    }
    std::optional<OAuthClient> client() const override {
        const std::scoped_lock lock(mutex_);
        return client_;
    }
    void saveClient(const OAuthClient& client) override {
        const std::scoped_lock lock(mutex_);
        client_ = client;
        changed();
    }

  protected:
    /// Called with the lock held after each change.
    virtual void changed() {}

    mutable std::mutex mutex_;
    std::optional<OAuthTokens> tokens_;
    std::optional<OAuthClient> client_;
};

class FileOAuthStore final : public MemoryOAuthStore {
  public:
    explicit FileOAuthStore(std::string path) : path_(std::move(path)) { load(); }

  private:
    void load() {
        std::ifstream in(path_);
        if (!in) {
            return;
        }
        std::stringstream buffer;
        buffer << in.rdbuf();
        const json document = parseUntrustedJson(buffer.str()).value_or(json());
        if (!document.is_object()) {
            return;
        }
        if (const auto t = document.find("tokens"); t != document.end() && t->is_object()) {
            OAuthTokens tokens{
                stringOr(*t, "access_token"), stringOr(*t, "refresh_token"), stringOr(*t, "scope"), {}};
            if (const auto at = t->find("expires_at"); at != t->end() && at->is_number_integer()) {
                tokens.expiresAt =
                    std::chrono::system_clock::time_point(std::chrono::seconds(at->get<long long>()));
            }
            if (!tokens.accessToken.empty()) {
                tokens_ = std::move(tokens);
            }
        }
        if (const auto c = document.find("client"); c != document.end() && c->is_object()) {
            OAuthClient client{stringOr(*c, "client_id"), stringOr(*c, "client_secret"),
                               stringOr(*c, "token_endpoint_auth_method"), stringOr(*c, "issuer")};
            if (!client.clientId.empty()) {
                client_ = std::move(client);
            }
        }
    }

    void changed() override {
        json document = json::object();
        if (tokens_) {
            json t = {{"access_token", tokens_->accessToken},
                      {"refresh_token", tokens_->refreshToken},
                      {"scope", tokens_->scope}};
            if (tokens_->expiresAt) {
                t["expires_at"] =
                    std::chrono::duration_cast<std::chrono::seconds>(tokens_->expiresAt->time_since_epoch())
                        .count();
            }
            document["tokens"] = std::move(t);
        }
        if (client_) {
            document["client"] = {{"client_id", client_->clientId},
                                  {"client_secret", client_->clientSecret},
                                  {"token_endpoint_auth_method", client_->tokenEndpointAuthMethod},
                                  {"issuer", client_->issuer}};
        }
        write(document.dump(2) + "\n");
    }

    // Best effort: the tokens stay in memory when the file cannot be written.
    void write(const std::string& content) const {
        namespace fs = std::filesystem;
        const fs::path path(path_);
        std::error_code ignored;
        if (path.has_parent_path() && !fs::exists(path.parent_path(), ignored)) {
            fs::create_directories(path.parent_path(), ignored);
            ::chmod(path.parent_path().c_str(), 0700);
        }
        const std::string temporary = path_ + ".tmp";
        const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0) {
            return;
        }
        std::size_t written = 0;
        while (written < content.size()) {
            const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
            if (n < 0 && errno == EINTR) {
                continue;
            }
            if (n <= 0) {
                break;
            }
            written += static_cast<std::size_t>(n);
        }
        const bool complete = written == content.size() && ::fsync(fd) == 0;
        ::close(fd);
        if (!complete || ::rename(temporary.c_str(), path_.c_str()) != 0) {
            ::unlink(temporary.c_str());
        }
    }

    std::string path_;
};

}  // namespace

std::shared_ptr<OAuthStore> makeMemoryOAuthStore() {
    return std::make_shared<MemoryOAuthStore>();
}

std::shared_ptr<OAuthStore> makeFileOAuthStore(std::string path) {
    return std::make_shared<FileOAuthStore>(std::move(path));
}

}  // namespace reagent::mcp
