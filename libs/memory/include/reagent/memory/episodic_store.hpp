#pragma once
/// \file
/// \brief `EpisodicStore`: a durable log of what agents did (tool calls and their results) in SQLite.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/llm/attachment.hpp"
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
    /// Images and documents the result carried, in order. Their bytes are stored once per content
    /// (`llm::contentHash`), however many episodes carry them. Filled by `find` and `recent`; a search
    /// hit has none (find the episode for them).
    std::vector<llm::Attachment> attachments;
    /// When it happened; millisecond precision is kept. A default (epoch) value means "now" on `record`.
    std::chrono::system_clock::time_point timestamp{};
    /// Set on a read episode whose stored timestamp is not a time `record` could have written (not an
    /// integer, zero or negative, or after the year 9999): the stored value as text (untrusted, may be
    /// invalid UTF-8), and `timestamp` is then the epoch. Ignored by `record`.
    std::optional<std::string> invalidTimestamp;
};

/// \brief `when` as ISO 8601 UTC to the second, e.g. `2026-11-22T04:23:47Z` (how episodes are shown).
/// A time outside the years 1970 to 9999 gives `invalid timestamp (<milliseconds>)`.
[[nodiscard]] std::string formatTimestamp(std::chrono::system_clock::time_point when);

/// \brief The episode's time as shown: `formatTimestamp(timestamp)`, or `invalid timestamp (<stored value>)`
/// when the stored value was invalid (see `Episode::invalidTimestamp`).
[[nodiscard]] std::string formatTimestamp(const Episode& episode);

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
/// `open` creates the file and its schema when missing, marks it as a reagent store
/// (`PRAGMA application_id` = `kApplicationId`, `user_version` = `kSchemaVersion`), switches it to WAL
/// journaling (commits with `synchronous=NORMAL`: durable across process crashes, not always across power
/// loss) and waits up to `kBusyTimeout` for each lock held by another connection (another store object,
/// thread or process) before failing. Any number of processes and threads may open the same new file at
/// once: the schema is created in one `BEGIN IMMEDIATE` transaction, and every opener succeeds.
/// `openReadOnly` never creates, writes or converts anything. Every statement is prepared with bound
/// parameters.
///
/// \par Errors
/// `not_a_store` when the file is not a reagent store (it is then left untouched); `busy` when a lock was
/// held longer than the caller's wait; `storage_error` otherwise. Each message names the file and the
/// reason (SQLite's, when it has one).
///
/// \par Thread safety
/// A store owns one connection guarded by a mutex: one object may be shared by several agents in a
/// process, and several objects (in several threads or processes) may open the same file.
class EpisodicStore {
  public:
    /// `PRAGMA application_id` of a reagent store ("RgEp").
    static constexpr std::int32_t kApplicationId = 0x52674570;
    /// `PRAGMA user_version` of the schema this version writes; a store with a larger one is refused, a
    /// store of version 1 (no attachments) is upgraded when opened for writing.
    static constexpr std::int32_t kSchemaVersion = 2;
    /// How long one statement waits for a lock held by another connection before giving up.
    static constexpr std::chrono::milliseconds kBusyTimeout{5000};

    /// \brief Opens the store at `path` for reading and writing, creating the file and its schema when
    /// missing (an empty file is taken as new).
    ///
    /// \par Errors
    /// `not_a_store` for a file that is not SQLite, another application's database (tables of its own or a
    /// foreign `application_id`) or a newer reagent's store; `storage_error` for a missing directory, a
    /// symbolic link whose target does not exist (its target is never created), a file or directory that
    /// cannot be written, or a lock held for longer than `kBusyTimeout`. A store written before stores
    /// were marked (the `episodes` table alone, no `application_id`) is accepted and marked.
    [[nodiscard]] static expected<EpisodicStore, MemoryError> open(const std::string& path);

    /// \brief Opens the existing store at `path` for reading only: the file is never created, written
    /// or switched to WAL (SQLite may create its `-shm` side file next to a WAL store). `record` then
    /// fails with `storage_error`.
    ///
    /// \par Errors
    /// `storage_error` for a missing file or a dangling symbolic link; `not_a_store` for an empty file,
    /// a file that is not SQLite, another application's database or a newer reagent's store.
    [[nodiscard]] static expected<EpisodicStore, MemoryError> openReadOnly(const std::string& path);

    EpisodicStore(EpisodicStore&&) noexcept;
    EpisodicStore& operator=(EpisodicStore&&) noexcept;
    ~EpisodicStore();

    /// \brief Appends `episode` and returns its id, waiting up to `kBusyTimeout` for the write lock. An
    /// episode with attachments is written in one transaction with them.
    [[nodiscard]] expected<std::int64_t, MemoryError> record(const Episode& episode);

    /// \brief Appends `episode`, waiting at most `lockWait` for the write lock (zero: try once, never
    /// block). This is the form for an event loop: it retries after an asynchronous sleep, so the thread is
    /// never blocked by another connection's lock and a cancelled caller simply stops retrying.
    ///
    /// \par Errors
    /// `busy` when the file was still locked after `lockWait` (nothing was written); `storage_error` for
    /// any other failure (read-only store, disk full, corrupt file).
    [[nodiscard]] expected<std::int64_t, MemoryError> record(const Episode& episode,
                                                             std::chrono::milliseconds lockWait);

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
