#pragma once
/// \file
/// \brief `WorkingMemory`: one agent's store of full tool results and notes, read back by key.

#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/memory/memory_error.hpp"

namespace reagent::memory {

/// \brief Limits of a `WorkingMemory`.
struct WorkingMemoryConfig {
    /// Total size of the stored values, in bytes (keys and bookkeeping are not counted).
    /// Default 8 MiB. Storing past it evicts the oldest entries; a single larger value is refused.
    std::size_t byteBudget = std::size_t{8} * 1024 * 1024;
};

/// \brief What `WorkingMemory::list` reports about one entry.
struct KeyInfo {
    std::string key;
    /// Size of the value in bytes.
    std::size_t bytes = 0;
    /// The tool whose result this is (`store`), or the source given to `put` (often empty).
    std::string sourceTool;
    /// Order of insertion: larger is more recent. Unique within one memory, never reused.
    std::uint64_t sequence = 0;
};

/// \brief One match of `WorkingMemory::search`.
struct SearchHit {
    std::string key;
    /// Text around the first match (about 40 characters each side), valid UTF-8, on one line; "…"
    /// marks a side that was cut.
    std::string snippet;
};

/// \brief A per-agent key/value store of strings: full tool results under `_tool_result_N`, plus notes.
///
/// Each agent (each run, if the caller wishes) owns its own instance; there is no global memory.
///
/// \par Keys
/// `store` allocates `_tool_result_1`, `_tool_result_2`, ... counting from 1 in each instance; a number
/// is never handed out twice, even after its entry was erased or evicted. A key given to `put` has 1 to
/// 128 characters of `[A-Za-z0-9_.:-]` and must not start with `_tool_result_` (reserved for `store`).
///
/// \par Budget and eviction
/// The values' total size stays within `WorkingMemoryConfig::byteBudget`. When a `store` or `put` would
/// exceed it, the least recently stored entries are evicted, oldest first, until the new value fits
/// (replacing a key with `put` first releases the old value's bytes and makes the entry the most recent
/// one). A single value larger than the whole budget is refused with `MemoryErrc::too_large` and
/// nothing changes: no eviction, no key number used.
///
/// \par Contents
/// Values are untrusted text (tool output or model notes), stored byte for byte and never evaluated.
///
/// \par Thread safety
/// None: one agent uses its memory from one strand. `find` and `read` return views into the stored
/// value, valid until the next call that changes the memory.
class WorkingMemory {
  public:
    /// The prefix of the keys allocated by `store`.
    static constexpr std::string_view kToolResultPrefix = "_tool_result_";
    /// The longest key `put` accepts, in characters.
    static constexpr std::size_t kMaxKeyLength = 128;

    /// \brief An empty memory with the given limits.
    explicit WorkingMemory(WorkingMemoryConfig config = {});

    /// \brief Stores a tool's full result under the next `_tool_result_N` key and returns that key.
    ///
    /// \par Errors
    /// `too_large` when `value` alone exceeds the byte budget (nothing changes, no number is used).
    [[nodiscard]] expected<std::string, MemoryError> store(std::string toolName, std::string value);

    /// \brief Stores (or replaces) a value under a caller-chosen key, such as a note written by the model.
    ///
    /// \par Errors
    /// `invalid_key` when the key breaks the rules above; `too_large` as for `store`.
    [[nodiscard]] expected<void, MemoryError> put(std::string key, std::string value,
                                                  std::string source = {});

    /// \brief Checks a key against the rules of `put`.
    ///
    /// \par Errors
    /// `invalid_key`, with a message that says which rule is broken.
    [[nodiscard]] static expected<void, MemoryError> validateKey(std::string_view key);

    /// \brief The value under `key`, or null when there is none.
    [[nodiscard]] const std::string* find(std::string_view key) const;

    /// \brief The value under `key`.
    ///
    /// \par Errors
    /// `not_found`, with a message that says whether a tool result was evicted or erased and names some
    /// of the stored keys.
    [[nodiscard]] expected<std::string_view, MemoryError> read(std::string_view key) const;

    /// \brief The tool (or `put` source) of the entry under `key`; empty when none or absent.
    [[nodiscard]] std::string source(std::string_view key) const;

    /// \brief Every entry, oldest first.
    [[nodiscard]] std::vector<KeyInfo> list() const;

    /// \brief Entries whose value contains `keyword` (ASCII case-insensitive), oldest first, at most
    /// `maxHits`. An empty keyword matches nothing.
    [[nodiscard]] std::vector<SearchHit> search(std::string_view keyword, std::size_t maxHits) const;

    /// \brief Removes the entry under `key`; false when there was none.
    bool erase(std::string_view key);

    /// \brief Removes every entry. Key numbers keep counting from where they were.
    void clear() noexcept;

    /// \brief Whether a value of `size` bytes could be stored at all (it is within the byte budget).
    [[nodiscard]] bool fits(std::size_t size) const noexcept { return size <= config_.byteBudget; }

    /// \brief The key the next successful `store` will return.
    [[nodiscard]] std::string nextKey() const;

    /// \brief Total size of the stored values, in bytes.
    [[nodiscard]] std::size_t bytes() const noexcept { return bytes_; }

    /// \brief Number of entries.
    [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }

    /// \brief Every entry, oldest first, and where `store`'s numbering stands, as JSON (`"format":
    /// "reagent.memory/1"`): to continue in another process.
    [[nodiscard]] nlohmann::json save() const;
    /// \brief The same with only the entries under `keys` (those a conversation's history names:
    /// `Conversation::save`).
    [[nodiscard]] nlohmann::json save(const std::vector<std::string>& keys) const;
    /// \brief Adds the entries of a saved memory in their order (evicting as `store` does). An entry whose
    /// key holds another value here keeps that value, and the saved one is stored under a new key: a tool
    /// result under the next `_tool_result_N`, a note under `<key>.restored` (then `.restored2`, ...).
    /// Returns those renamings (saved key to key now), for the texts that name them.
    ///
    /// \par Errors
    /// `invalid_data`, naming the field at fault, for a document `save` did not make; nothing changes then.
    [[nodiscard]] expected<std::map<std::string, std::string>, MemoryError> load(const nlohmann::json& saved);
    /// \brief The limits this memory was created with.
    [[nodiscard]] const WorkingMemoryConfig& config() const noexcept { return config_; }

  private:
    struct Entry {
        std::string value;
        std::string source;
        std::uint64_t sequence = 0;
    };

    [[nodiscard]] expected<void, MemoryError> checkSize(std::size_t size) const;
    // Inserts or replaces `key`, evicting the oldest other entries until the value fits.
    void insert(std::string key, std::string value, std::string source);
    void evictFor(std::size_t incoming);

    WorkingMemoryConfig config_;
    std::map<std::string, Entry, std::less<>> entries_;
    std::map<std::uint64_t, std::string> order_;  // sequence -> key, oldest first
    std::size_t bytes_ = 0;
    std::uint64_t nextSequence_ = 1;
    std::uint64_t nextResult_ = 1;
};

}  // namespace reagent::memory
