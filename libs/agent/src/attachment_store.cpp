#include "reagent/agent/attachment_store.hpp"

#include <unistd.h>

#include <atomic>
#include <fstream>
#include <system_error>

namespace reagent::agent {

namespace {

AgentError badHash(const std::string& hash) {
    return {AgentErrc::invalid_state, "'" + hash.substr(0, 80) + "' is not a SHA-256 in lowercase hex"};
}

AgentError missing(const std::string& hash) {
    return {AgentErrc::invalid_state, "no attachment is kept under " + hash};
}

}  // namespace

bool isContentHash(std::string_view hash) noexcept {
    if (hash.size() != 64) {
        return false;
    }
    for (const char c : hash) {
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
            return false;
        }
    }
    return true;
}

expected<void, AgentError> MemoryAttachmentStore::put(const std::string& hash, std::string_view bytes) {
    if (!isContentHash(hash)) {
        return fail(badHash(hash));
    }
    const std::lock_guard lock(mutex_);
    if (blobs_.count(hash) == 0) {
        blobs_.emplace(hash, std::make_shared<const std::string>(bytes));
    }
    return {};
}

expected<std::shared_ptr<const std::string>, AgentError> MemoryAttachmentStore::get(
    const std::string& hash) const {
    if (!isContentHash(hash)) {
        return fail(badHash(hash));
    }
    const std::lock_guard lock(mutex_);
    const auto found = blobs_.find(hash);
    if (found == blobs_.end()) {
        return fail(missing(hash));
    }
    return found->second;
}

std::size_t MemoryAttachmentStore::size() const {
    const std::lock_guard lock(mutex_);
    return blobs_.size();
}

expected<std::shared_ptr<DirectoryAttachmentStore>, AgentError> DirectoryAttachmentStore::open(
    std::filesystem::path directory) {
    std::error_code error;
    std::filesystem::create_directories(directory, error);
    if (error || !std::filesystem::is_directory(directory, error)) {
        return fail(AgentError{AgentErrc::invalid_config, "cannot use '" + directory.string() +
                                                              "' as an attachment store: " +
                                                              (error ? error.message() : "not a directory")});
    }
    return std::shared_ptr<DirectoryAttachmentStore>(new DirectoryAttachmentStore(std::move(directory)));
}

expected<void, AgentError> DirectoryAttachmentStore::put(const std::string& hash, std::string_view bytes) {
    if (!isContentHash(hash)) {
        return fail(badHash(hash));
    }
    const auto target = directory_ / hash;
    std::error_code error;
    if (std::filesystem::exists(target, error)) {
        return {};
    }
    // A name of its own per writer: processes sharing the directory never write the same temporary file.
    static std::atomic<unsigned> counter{0};
    const auto temporary = directory_ / (hash + ".tmp-" + std::to_string(::getpid()) + "-" +
                                         std::to_string(counter.fetch_add(1)));
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        if (!out.flush()) {
            std::filesystem::remove(temporary, error);
            return fail(AgentError{AgentErrc::internal_error, "cannot write the attachment " + hash +
                                                                  " in '" + directory_.string() + "'"});
        }
    }
    std::filesystem::rename(temporary, target, error);
    if (error) {
        std::filesystem::remove(temporary, error);
        return fail(AgentError{AgentErrc::internal_error, "cannot keep the attachment " + hash + " in '" +
                                                              directory_.string() + "': " + error.message()});
    }
    return {};
}

expected<std::shared_ptr<const std::string>, AgentError> DirectoryAttachmentStore::get(
    const std::string& hash) const {
    if (!isContentHash(hash)) {
        return fail(badHash(hash));
    }
    std::ifstream in(directory_ / hash, std::ios::binary);
    if (!in) {
        return fail(missing(hash));
    }
    // Returned as read: whoever restores checks the hash (run_state_codec), once, for every store.
    return std::make_shared<const std::string>(
        std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));
}

}  // namespace reagent::agent
