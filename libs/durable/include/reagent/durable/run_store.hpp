#pragma once
/// \file
/// \brief `RunStore`: the seam between durable runs and the database that keeps them. Three engines
/// implement it (`SqliteRunStore`, `PostgresRunStore`, and in memory `MemoryRunStore`); every one keeps the
/// rules of docs/durable-runs.md, which `tests/unit/durable` checks against each.

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/durable/durable_error.hpp"
#include "reagent/durable/journal.hpp"

namespace reagent::durable {

/// \brief What `submit` did.
struct Submitted {
    RunRecord run;
    /// False when the id was there already, with the same input: nothing was written.
    bool created = true;
};

/// \brief A run a worker just claimed, with everything it needs to go on: the steps journaled by earlier
/// workers and the inputs given so far.
struct Claimed {
    Lease lease;
    RunRecord run;
    std::vector<JournalEntry> journal;
    std::vector<RunInput> inputs;
};

/// \brief How a worker leaves a run it holds.
struct Finish {
    /// `completed`, `failed` or `cancelled` (the run ends), or `waiting` (it pauses for inputs).
    RunStatus status = RunStatus::completed;
    /// What the application records of it (the answer, the error, what it waits for).
    nlohmann::json outcome = nlohmann::json::object();
    /// For `waiting`: the last input seq the worker read. Inputs that arrived after it make the run `queued`
    /// at once rather than `waiting`, so that none is missed.
    std::int64_t inputsSeen = 0;
};

/// \brief Which runs `list` returns.
struct RunFilter {
    /// Only runs in this status; none: all.
    std::optional<RunStatus> status;
    /// At most this many, the newest first. At least 1.
    std::size_t limit = 100;
};

/// \brief Where durable runs are kept: their records, journals and inputs.
///
/// \par Rules (docs/durable-runs.md)
/// - `submit` is idempotent by id.
/// - `claim` takes the oldest run that is `queued`, or `running` with its lease expired, raising its epoch:
///   the worker that held it before can no longer write (`lease_lost`).
/// - `append`, `renew` and `finish` are fenced: refused unless the lease's epoch is the run's and the run is
///   `running`. An append of a step already journaled returns that entry and writes nothing.
/// - `addInput` may be called by anyone, on a run that has not ended.
///
/// Every operation is atomic: it happens whole, or fails and changes nothing. No exception escapes.
class RunStore {
  public:
    virtual ~RunStore() = default;

    [[nodiscard]] virtual Task<expected<Submitted, DurableError>> submit(Submission submission) = 0;
    /// \brief The oldest claimable run, leased to `worker` for `leaseFor`; none when no run is claimable.
    [[nodiscard]] virtual Task<expected<std::optional<Claimed>, DurableError>> claim(
        std::string worker, std::chrono::milliseconds leaseFor) = 0;
    /// \brief Extends the lease to `leaseFor` from now, and says whether a cancellation was asked for.
    [[nodiscard]] virtual Task<expected<Renewal, DurableError>> renew(Lease lease,
                                                                      std::chrono::milliseconds leaseFor) = 0;
    /// \brief Journals a completed step (its `step`, `kind` and `payload`); returns it as stored.
    [[nodiscard]] virtual Task<expected<JournalEntry, DurableError>> append(Lease lease,
                                                                            JournalEntry entry) = 0;
    /// \brief Ends the run, or pauses it; the lease is given up.
    [[nodiscard]] virtual Task<expected<RunRecord, DurableError>> finish(Lease lease, Finish finish) = 0;
    /// \brief Adds an input to a run that has not ended (see `InputKind` for what each does).
    [[nodiscard]] virtual Task<expected<RunInput, DurableError>> addInput(std::string runId,
                                                                          RunInput input) = 0;

    [[nodiscard]] virtual Task<expected<RunRecord, DurableError>> run(std::string runId) = 0;
    [[nodiscard]] virtual Task<expected<std::vector<JournalEntry>, DurableError>> journal(
        std::string runId) = 0;
    [[nodiscard]] virtual Task<expected<std::vector<RunInput>, DurableError>> inputs(std::string runId) = 0;
    [[nodiscard]] virtual Task<expected<std::vector<RunRecord>, DurableError>> list(RunFilter filter) = 0;

    /// \brief Gives the run up without finishing it: its lease ends now, so another worker may claim it at
    /// once (a worker that stops before its runs end, rather than leaving them until their leases run out).
    /// Fenced as `renew` is. The default renews the lease for 1 ms.
    [[nodiscard]] virtual Task<expected<void, DurableError>> release(Lease lease);

    /// \brief Returns when a run may have become claimable (submitted, or given an input), or after
    /// `upTo`, or when cancelled: how an idle worker waits. The default waits `upTo`: the caller polls.
    /// An engine that can be told (PostgreSQL's `LISTEN`) returns early.
    [[nodiscard]] virtual Task<void> waitForWork(std::chrono::milliseconds upTo);
};

}  // namespace reagent::durable
