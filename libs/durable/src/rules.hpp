#pragma once
// The rules of durable runs (docs/durable-runs.md), with no I/O and no clock: what each operation may do to
// a run's record, given the time. Both engines apply them: the memory store to its table, the SQLite store
// to the rows it read in the operation's transaction.

#include <chrono>
#include <cstdint>
#include <string>

#include "reagent/core/expected.hpp"
#include "reagent/durable/durable_error.hpp"
#include "reagent/durable/journal.hpp"
#include "reagent/durable/run_store.hpp"

namespace reagent::durable::detail {

inline constexpr std::size_t kMaxIdLength = 128;
inline constexpr std::size_t kMaxStepLength = 200;

/// A new run id: 32 hex digits from the system's random source.
[[nodiscard]] std::string newRunId();

/// The checks of each request, before anything is read.
[[nodiscard]] expected<void, DurableError> checkSubmission(const Submission& submission);
[[nodiscard]] expected<void, DurableError> checkRunId(const std::string& runId);
[[nodiscard]] expected<void, DurableError> checkLeaseRequest(const std::string& worker,
                                                             std::chrono::milliseconds leaseFor);
[[nodiscard]] expected<void, DurableError> checkEntry(const JournalEntry& entry);
[[nodiscard]] expected<void, DurableError> checkFinish(const Finish& finish);
[[nodiscard]] expected<void, DurableError> checkInput(const RunInput& input);
[[nodiscard]] expected<void, DurableError> checkFilter(const RunFilter& filter);

[[nodiscard]] DurableError notFound(const std::string& runId);
/// A second submission of `existing`'s id: the run itself when its input is the same, else `conflict`.
[[nodiscard]] expected<Submitted, DurableError> resubmitted(RunRecord existing, const Submission& submission);
/// The record of a run submitted now.
[[nodiscard]] RunRecord submittedRun(const Submission& submission, std::string id, Millis now);

/// Whether a claim at `now` may take `run`: queued, or running with its lease expired.
[[nodiscard]] bool claimable(const RunRecord& run, Millis now) noexcept;
/// Leases `run` to `worker`: one more epoch and attempt, `running`.
[[nodiscard]] Lease claimInto(RunRecord& run, const std::string& worker, std::chrono::milliseconds leaseFor,
                              Millis now);

/// Whether `lease` may still write to `run`: `lease_lost` unless its epoch is the run's and the run runs.
[[nodiscard]] expected<void, DurableError> fenced(const RunRecord& run, const Lease& lease);
[[nodiscard]] Renewal renewInto(RunRecord& run, const Lease& lease, std::chrono::milliseconds leaseFor,
                                Millis now);
/// Ends or pauses `run`; `lastInput`: the run's newest input seq (0: none).
void finishInto(RunRecord& run, const Finish& finish, std::int64_t lastInput, Millis now);
/// What an input does to `run`; `conflict` for a run that has ended.
[[nodiscard]] expected<void, DurableError> inputInto(RunRecord& run, InputKind kind, Millis now);

}  // namespace reagent::durable::detail
