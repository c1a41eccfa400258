#pragma once
/// \file
/// \brief `PostgresRunStore`: durable runs in PostgreSQL, the engine for many machines: workers and CLIs on
/// any of them share one database. libpq, asynchronous on the caller's executor, in pipeline mode.

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "reagent/durable/run_store.hpp"

namespace reagent::durable {

/// \brief Connecting to a PostgreSQL run store.
struct PostgresOptions {
    /// The PostgreSQL schema that holds the store's tables: one database may hold several stores. A
    /// lower-case SQL identifier (`[a-z_][a-z0-9_]*`, at most 63 characters).
    std::string schema = "reagent";
    /// Connections the store opens at most; operations beyond wait for one. At least 1.
    std::size_t connections = 4;
    /// How long a connection attempt may take.
    std::chrono::milliseconds connectTimeout{10'000};
    /// How long an operation waits for a run another connection holds locked before it fails `busy`
    /// (the server's `lock_timeout`).
    std::chrono::milliseconds lockWait{5000};
    /// What leases are measured against; empty (the default): the database server's clock, the one clock
    /// every machine of a deployment shares. Tests set it to move time on.
    std::function<Millis()> clock;
};

/// \brief Keeps runs in a PostgreSQL database (version 12 or later).
///
/// The schema is versioned (`kSchemaVersion`, in the table `{schema}.store`): it is created on first
/// use, migrated in one transaction (under an advisory lock, so that processes starting together migrate
/// once), and refused (`schema_too_new`) when a newer reagent made it. A run is claimed with
/// `FOR UPDATE SKIP LOCKED`, so workers never wait on each other's claims; every operation is one
/// transaction that locks the run's row, and takes one or two round trips.
///
/// A connection lost is opened again by the next operation. An operation that was under way when it was
/// lost is tried once more on a new connection when doing it twice cannot change the outcome (reads,
/// `submit`, `renew`, `append`, `finish`); `claim` and `addInput` fail `storage_error` instead, saying
/// what may have happened (a run claimed then is taken again when its lease expires).
///
/// `waitForWork` listens (`LISTEN`) on a channel of its own connection that `submit`, `addInput` and
/// `finish` notify when they make a run claimable.
///
/// \par Thread safety
/// One store may be used from several coroutines at once, on one executor.
class PostgresRunStore final : public RunStore {
  public:
    static constexpr int kSchemaVersion = 1;

    /// \brief Connects to the database at `conninfo` (a `postgresql://` URL, or libpq's `key=value`
    /// pairs), creating or migrating the store's schema.
    ///
    /// \par Errors
    /// `invalid_input` for options out of range; `storage_error` when the database cannot be reached or
    /// refuses (the message names it without its password and says why); `not_a_store` when the schema
    /// holds tables of another application; `schema_too_new` for a store of a newer reagent (left
    /// unchanged); `cancelled`.
    [[nodiscard]] static Task<expected<std::shared_ptr<PostgresRunStore>, DurableError>> open(
        std::string conninfo, PostgresOptions options);
    /// \brief `open(conninfo, PostgresOptions{})`. (An overload, not a default argument: GCC 12 mishandles
    /// a class-type default argument of a coroutine awaited at once.)
    [[nodiscard]] static Task<expected<std::shared_ptr<PostgresRunStore>, DurableError>> open(
        std::string conninfo);
    ~PostgresRunStore() override;

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
    [[nodiscard]] Task<void> waitForWork(std::chrono::milliseconds upTo) override;

    struct Pool;

  private:
    explicit PostgresRunStore(std::shared_ptr<Pool> pool);
    std::shared_ptr<Pool> pool_;
};

}  // namespace reagent::durable
