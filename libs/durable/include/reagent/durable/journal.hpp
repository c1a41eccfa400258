#pragma once
/// \file
/// \brief What a durable-run store keeps: runs (`RunRecord`), the append-only journal of each run's
/// completed steps (`JournalEntry`), the inputs anyone may add to a run (`RunInput`: a cancellation, an
/// approval decision, a tool's result given from outside), and the lease a worker holds (`Lease`).
/// See docs/durable-runs.md.

#include <boost/describe/enum.hpp>
#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace reagent::durable {

/// \brief Milliseconds since the Unix epoch: times that mean the same on every machine of a deployment.
using Millis = std::int64_t;

/// \brief Now, as `Millis`.
[[nodiscard]] Millis nowMillis() noexcept;

/// \brief Where a run stands.
enum class RunStatus {
    /// Submitted, or given back (a worker's lease expired, an input arrived for a waiting run): the next
    /// claim may take it.
    queued,
    /// A worker holds its lease and works on it.
    running,
    /// Paused for inputs from outside (approval decisions, results of declaration-only tools); an input
    /// makes it `queued` again.
    waiting,
    /// Ended with an answer.
    completed,
    /// Ended with an error.
    failed,
    /// Ended by a cancellation.
    cancelled,
};
BOOST_DESCRIBE_ENUM(RunStatus, queued, running, waiting, completed, failed, cancelled)

[[nodiscard]] std::string_view toString(RunStatus status) noexcept;
/// \brief The status named `name`; none for any other text.
[[nodiscard]] std::optional<RunStatus> runStatusNamed(std::string_view name) noexcept;
/// \brief `completed`, `failed` or `cancelled`: nothing changes the run any more.
[[nodiscard]] bool isTerminal(RunStatus status) noexcept;

/// \brief A run to start.
struct Submission {
    /// Empty: the store makes one (32 hex digits). Else at most 128 characters; submitting the same id
    /// again with the same input returns the run already there (starting is idempotent by id).
    std::string id;
    /// What the run does (the prompt, its options), as the application that runs it reads it. An object.
    nlohmann::json input = nlohmann::json::object();
};

/// \brief A run as stored.
struct RunRecord {
    std::string id;
    nlohmann::json input;
    RunStatus status = RunStatus::queued;
    /// The fencing token: one more at each claim. Writes carrying an older epoch are refused.
    std::int64_t epoch = 0;
    /// The worker holding (or that last held) the lease; empty before the first claim.
    std::string owner;
    /// When the lease ends; 0 when no worker holds it.
    Millis leaseUntil = 0;
    /// How many times the run was claimed.
    std::int64_t attempts = 0;
    /// A cancellation was asked for while a worker held the run; the worker learns it when it renews.
    bool cancelRequested = false;
    /// A finished run's outcome, as its worker recorded it; null before.
    nlohmann::json outcome;
    Millis created = 0;
    Millis updated = 0;
};

/// \brief One completed step of a run, appended by the worker that holds its lease.
struct JournalEntry {
    /// 1, 2, 3, ... in the order the steps completed; set by the store.
    std::int64_t seq = 0;
    /// The step's name, unique in its run (`model:3`, `tool:3:call_1`, `approval:call_1`): appending a step
    /// already journaled returns the entry there and writes nothing, so a write retried after a lost answer
    /// is harmless. At most 200 characters.
    std::string step;
    /// What kind of step (`model_reply`, `tool_result`, ...), for the reader.
    std::string kind;
    nlohmann::json payload;
    /// The epoch of the lease it was written under; set by the store.
    std::int64_t epoch = 0;
    Millis created = 0;
};

/// \brief The kinds of inputs from outside.
enum class InputKind {
    /// Stop the run: a queued or waiting run ends `cancelled` at once; a running one when its worker
    /// renews its lease and stops.
    cancel,
    /// A person's decision on a call that waits for approval (`callId`; payload `{"approved": bool,
    /// "reason": text}`).
    decision,
    /// The result of a call of a declaration-only tool (`callId`; payload `{"ok": text}` or `{"error":
    /// {"code": ..., "message": ...}}`).
    result,
};
BOOST_DESCRIBE_ENUM(InputKind, cancel, decision, result)

[[nodiscard]] std::string_view toString(InputKind kind) noexcept;
[[nodiscard]] std::optional<InputKind> inputKindNamed(std::string_view name) noexcept;

/// \brief An input given to a run from outside, by anyone (a person at the CLI, a web service).
struct RunInput {
    /// 1, 2, 3, ... per run; set by the store.
    std::int64_t seq = 0;
    InputKind kind = InputKind::cancel;
    /// The call it answers (`decision`, `result`); empty for `cancel`.
    std::string callId;
    nlohmann::json payload = nlohmann::json::object();
    Millis created = 0;
};

/// \brief What a worker holds while it works on a run: the right to write, for as long as `epoch` is the
/// run's.
struct Lease {
    std::string runId;
    std::string worker;
    std::int64_t epoch = 0;
    /// When the lease ends unless renewed.
    Millis until = 0;
};

/// \brief What a renewal tells the worker.
struct Renewal {
    Lease lease;
    /// Someone asked for the run to stop: finish it `cancelled`.
    bool cancelRequested = false;
};

}  // namespace reagent::durable
