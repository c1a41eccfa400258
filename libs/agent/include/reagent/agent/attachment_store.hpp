#pragma once
/// \file
/// \brief `AttachmentStore`: where saved runs and conversations keep large attachments, by the SHA-256 of
/// their bytes, instead of inline in every saved state.

#include <cstddef>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "reagent/agent/agent_error.hpp"
#include "reagent/core/expected.hpp"

namespace reagent::agent {

/// \brief Keeps attachment bytes by content: `put` under the bytes' `llm::contentHash`, `get` back.
///
/// A saved run (`ReactLoop::save`, `RunResult::state`) or conversation (`Conversation::save`) then holds
/// `{"sha256": ..., "size": ...}` for an attachment at or above `AttachmentStorage::inlineBelow` bytes,
/// and a state saved on turn 500 does not repeat the image of turn 1. Restoring reads the bytes back and
/// checks their hash itself, whatever the store: bytes changed in the store fail the restore rather than
/// reach the model, and a store need not check them.
///
/// \par Thread safety
/// Implementations must allow `put` and `get` from several threads; the two here do.
class AttachmentStore {
  public:
    virtual ~AttachmentStore() = default;
    /// \brief Keeps `bytes` under `hash` (their SHA-256, lowercase hex); keeping them again is a no-op.
    [[nodiscard]] virtual expected<void, AgentError> put(const std::string& hash, std::string_view bytes) = 0;
    /// \brief The bytes kept under `hash`; `invalid_state` when none are.
    [[nodiscard]] virtual expected<std::shared_ptr<const std::string>, AgentError> get(
        const std::string& hash) const = 0;
};

/// \brief An `AttachmentStore` in memory, for one process (tests, a server that keeps its runs' states).
class MemoryAttachmentStore final : public AttachmentStore {
  public:
    [[nodiscard]] expected<void, AgentError> put(const std::string& hash, std::string_view bytes) override;
    [[nodiscard]] expected<std::shared_ptr<const std::string>, AgentError> get(
        const std::string& hash) const override;
    /// \brief How many distinct attachments it holds.
    [[nodiscard]] std::size_t size() const;

  private:
    mutable std::mutex mutex_;
    std::map<std::string, std::shared_ptr<const std::string>, std::less<>> blobs_;
};

/// \brief An `AttachmentStore` in a directory: one file per attachment, named by its hash, written to a
/// temporary name and renamed (a crash leaves no half-written attachment), so several processes can share it.
class DirectoryAttachmentStore final : public AttachmentStore {
  public:
    /// \brief The store in `directory` (created when missing); `invalid_config` when it cannot be.
    [[nodiscard]] static expected<std::shared_ptr<DirectoryAttachmentStore>, AgentError> open(
        std::filesystem::path directory);

    [[nodiscard]] expected<void, AgentError> put(const std::string& hash, std::string_view bytes) override;
    [[nodiscard]] expected<std::shared_ptr<const std::string>, AgentError> get(
        const std::string& hash) const override;

  private:
    explicit DirectoryAttachmentStore(std::filesystem::path directory) : directory_(std::move(directory)) {}
    std::filesystem::path directory_;
};

/// \brief How saved states hold attachments (`AgentConfig::attachments`,
/// `AgentBuilder::withAttachmentStore`).
struct AttachmentStorage {
    /// Where attachments at or above `inlineBelow` bytes are kept; null (the default): all inline, in base64.
    std::shared_ptr<AttachmentStore> store;
    /// Smaller attachments stay inline: a reference would cost about as much. Default 16 KiB.
    std::size_t inlineBelow = 16 * 1024;
};

/// \brief True when `hash` is a SHA-256 in lowercase hex (64 characters of 0-9a-f): what a store accepts as a
/// name, so a hash from a saved state cannot name a path.
[[nodiscard]] bool isContentHash(std::string_view hash) noexcept;

}  // namespace reagent::agent
