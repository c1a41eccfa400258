#pragma once
/// \file
/// \brief `SqliteRunStore`: durable runs in an SQLite file (WAL), the embedded engine for one machine: the
/// processes of that machine (workers, the CLI) share the file.

#include <functional>
#include <memory>
#include <string>

#include "reagent/durable/run_store.hpp"

namespace reagent::durable {

/// \brief Opening an SQLite run store.
struct SqliteOptions {
    /// How long an operation waits, in total, for the locks of other connections before it fails `busy`.
    /// It waits on timers of the caller's executor, never blocking its thread.
    std::chrono::milliseconds lockWait{5000};
    /// What leases are measured against (tests move it on to expire a lease).
    std::function<Millis()> clock = nowMillis;
    /// Each commit waits for the disk (`PRAGMA synchronous=FULL`): a commit survives a power loss. Off (the
    /// default, `NORMAL` in WAL mode), a commit survives the crash of any process, and a power loss may undo
    /// the last ones.
    bool syncEveryCommit = false;
};

/// \brief Keeps runs in an SQLite database file, in WAL mode.
///
/// The schema is versioned (`kSchemaVersion`, in the file's `user_version`, the file marked with
/// `kApplicationId`): a new file is created with it, an older one migrated in one transaction on open, and
/// a newer one refused (`schema_too_new`) unchanged. Every operation is one transaction.
///
/// \par Thread safety
/// One store may be used from several threads; its operations are serialised on its connection.
class SqliteRunStore final : public RunStore {
  public:
    static constexpr int kApplicationId = 0x52674472;  // "RgDr"
    static constexpr int kSchemaVersion = 1;

    /// \brief Opens (creating it if needed) the store in the file at `path`.
    ///
    /// \par Errors
    /// `storage_error` when the file cannot be opened or created (the message names it and says why);
    /// `not_a_store` for a file that is not an SQLite database or belongs to another application;
    /// `schema_too_new` for a store of a newer reagent; `busy` when another connection held the file
    /// locked for longer than `options.lockWait`. A file refused is left unchanged.
    [[nodiscard]] static expected<std::shared_ptr<SqliteRunStore>, DurableError> open(
        const std::string& path, SqliteOptions options = {});
    ~SqliteRunStore() override;

    [[nodiscard]] Task<expected<Submitted, DurableError>> submit(Submission submission) override;
    [[nodiscard]] Task<expected<std::optional<Claimed>, DurableError>> claim(
        std::string worker, std::chrono::milliseconds leaseFor) override;
    [[nodiscard]] Task<expected<Renewal, DurableError>> renew(Lease lease,
                                                              std::chrono::milliseconds leaseFor) override;
    [[nodiscard]] Task<expected<JournalEntry, DurableError>> append(Lease lease, JournalEntry entry) override;
    [[nodiscard]] Task<expected<RunRecord, DurableError>> finish(Lease lease, Finish finish) override;
    [[nodiscard]] Task<expected<RunInput, DurableError>> addInput(std::string runId, RunInput input) override;
    [[nodiscard]] Task<expected<RunRecord, DurableError>> run(std::string runId) override;
    [[nodiscard]] Task<expected<std::vector<JournalEntry>, DurableError>> journal(std::string runId) override;
    [[nodiscard]] Task<expected<std::vector<RunInput>, DurableError>> inputs(std::string runId) override;
    [[nodiscard]] Task<expected<std::vector<RunRecord>, DurableError>> list(RunFilter filter) override;

    struct Db;

  private:
    explicit SqliteRunStore(std::shared_ptr<Db> db);
    std::shared_ptr<Db> db_;
};

}  // namespace reagent::durable
