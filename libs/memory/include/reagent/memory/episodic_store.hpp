#pragma once
/// \file
/// \brief `EpisodicStore`: a durable log of what agents did (tool calls and their results) in SQLite.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/memory/memory_error.hpp"

namespace reagent::memory {

/// \brief One remembered step of an agent.
struct Episode {
    /// Row id assigned by the store (0 until recorded); larger is more recent within one file.
    std::int64_t id = 0;
    /// What the agent did, e.g. `"tool_call"` or a short description.
    std::string action;
    /// The tool called, or empty.
    std::string tool;
    /// The tool's input as JSON text (untrusted; stored as text, never evaluated).
    std::string input;
    /// The result (untrusted; stored byte for byte).
    std::string result;
    /// When it happened; millisecond precision is kept. A default (epoch) value means "now" on `record`.
    std::chrono::system_clock::time_point timestamp{};
};

/// \brief `when` as ISO 8601 UTC to the second, e.g. `2026-11-22T04:23:47Z` (how episodes are shown).
[[nodiscard]] std::string formatTimestamp(std::chrono::system_clock::time_point when);

/// \brief One match of `EpisodicStore::search`.
struct EpisodeHit {
    Episode episode;
    /// Text around the first match in tool, input or result (about 40 characters each side), valid
    /// UTF-8, on one line; "…" marks a side that was cut.
    std::string snippet;
};

/// \brief Episodic memory in one SQLite file, shared across runs and processes.
///
/// \par Storage
/// `open` creates the file and its schema when missing, switches it to WAL journaling (commits with
/// `synchronous=NORMAL`: durable across process crashes, not always across power loss) and waits up to
/// 5 s for a lock held by another connection (another store object, thread or process) before failing.
/// Every statement is prepared with bound parameters.
///
/// \par Errors
/// Every failure is `MemoryErrc::storage_error` with a message naming the file and SQLite's reason.
///
/// \par Thread safety
/// A store owns one connection guarded by a mutex: one object may be shared by several agents in a
/// process, and several objects (in several threads or processes) may open the same file.
class EpisodicStore {
  public:
    /// \brief Opens (creating when missing) the store at `path`.
    [[nodiscard]] static expected<EpisodicStore, MemoryError> open(const std::string& path);

    EpisodicStore(EpisodicStore&&) noexcept;
    EpisodicStore& operator=(EpisodicStore&&) noexcept;
    ~EpisodicStore();

    /// \brief Appends `episode` and returns its id.
    [[nodiscard]] expected<std::int64_t, MemoryError> record(const Episode& episode);

    /// \brief Episodes whose tool, input or result contains `keyword` (ASCII case-insensitive, taken
    /// literally: `%` and `_` are not wildcards), newest first, at most `limit`. An empty keyword matches
    /// nothing.
    [[nodiscard]] expected<std::vector<EpisodeHit>, MemoryError> search(const std::string& keyword,
                                                                        std::size_t limit) const;

    /// \brief The `limit` newest episodes, newest first.
    [[nodiscard]] expected<std::vector<Episode>, MemoryError> recent(std::size_t limit) const;

    /// \brief The episode with id `id`.
    ///
    /// \par Errors
    /// `not_found` when there is none; `storage_error` as everywhere.
    [[nodiscard]] expected<Episode, MemoryError> find(std::int64_t id) const;

    /// \brief Number of stored episodes.
    [[nodiscard]] expected<std::size_t, MemoryError> count() const;

    /// \brief The file this store was opened on.
    [[nodiscard]] const std::string& path() const noexcept;

  private:
    struct Impl;
    explicit EpisodicStore(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace reagent::memory
