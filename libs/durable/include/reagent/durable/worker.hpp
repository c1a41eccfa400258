#pragma once
/// \file
/// \brief `Worker`: claims runs from a `RunStore` and runs each, journaled, under a lease it renews, several
/// at once; `agentHandler` runs an agent on a run's input. See docs/durable-runs.md.

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "reagent/agent/agent.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/durable/durable_error.hpp"
#include "reagent/durable/run_store.hpp"

namespace reagent::durable {

/// \brief How a worker works.
struct WorkerOptions {
    /// Its name in the store (the owner of its leases); empty: `{host}-{pid}-{8 hex digits}`. At most 128
    /// characters.
    std::string name;
    /// Runs at once. At least 1.
    std::size_t concurrency = 4;
    /// How long a claim holds a run; the worker renews it every third of it. A run whose worker died is
    /// taken over by another once this has passed. At least 30 ms.
    std::chrono::milliseconds lease{30'000};
    /// How long a worker with room for more runs waits before it looks for them again (when none of its
    /// runs ends first). At least 1 ms.
    std::chrono::milliseconds idlePoll{500};
    /// Return once no run is left to claim and none is in progress (a batch job, a test); else work until
    /// stopped.
    bool stopWhenIdle = false;
    /// After `stop()`, how long the runs in progress may take to end; those still running then are cut off
    /// and released (`RunStore::release`) for another worker. Unset (the default): as long as they take.
    std::optional<std::chrono::milliseconds> drainFor;
};

/// \brief Runs one claimed run to its end, journaling into `journal`; returns how the run ends (`completed`,
/// `failed`, `cancelled`) or pauses (`waiting`). Cancelled when the run's cancellation is asked for, or the
/// worker is cancelled. An exception it throws fails the run.
using RunHandler = std::function<Task<Finish>(Claimed claimed, std::shared_ptr<agent::RunJournal> journal)>;

/// \brief What a worker did.
struct WorkerReport {
    /// Runs it finished (or paused).
    std::size_t finished = 0;
    /// Runs taken over by another worker while this one worked on them (its lease had expired): it stopped
    /// them without finishing them.
    std::size_t lost = 0;
    /// Runs in progress when the worker was cancelled: left to the worker that claims them next.
    std::size_t cutOff = 0;
    /// The store's errors it met (claims, renewals, finishes), described, oldest first (at most 100).
    std::vector<std::string> problems;
};

/// \brief Claims runs and runs them.
///
/// Each run is journaled through a `StoreJournal` under the claim's lease, which the worker renews every
/// third of `WorkerOptions::lease` while the run goes on. A renewal that learns the run's cancellation was
/// asked for cancels the handler and finishes the run `cancelled`; one refused `lease_lost` stops the run
/// without finishing it (another worker has it).
///
/// \par Stopping
/// `stop()` drains: no more claims, and `run` returns once the runs in progress have ended (or, after
/// `drainFor`, cuts off those left). Cancelling `run` stops at once: the runs in progress are cut off,
/// unfinished, and released (each given at most a second for it), so another worker takes them over from
/// their journals at once; a worker that dies leaves its runs until their leases expire.
///
/// \par Thread safety
/// `run` once; `stop` on the executor `run` runs on.
class Worker {
  public:
    /// \par Errors
    /// `invalid_input` for a concurrency of 0, a lease under 30 ms, an idle poll under 1 ms, a name over 128
    /// characters, or no store or handler.
    [[nodiscard]] static expected<std::shared_ptr<Worker>, DurableError> create(
        std::shared_ptr<RunStore> store, WorkerOptions options, RunHandler handler);

    /// \brief Works until stopped, cancelled, or (`stopWhenIdle`) idle. Never throws.
    [[nodiscard]] Task<WorkerReport> run();
    /// \brief Claims no more runs; `run` returns once those in progress have ended.
    void stop();
    [[nodiscard]] const std::string& name() const noexcept { return options_.name; }

    struct Loop;

  private:
    Worker(std::shared_ptr<RunStore> store, WorkerOptions options, RunHandler handler);
    std::shared_ptr<RunStore> store_;
    WorkerOptions options_;
    RunHandler handler_;
    bool stopping_ = false;
    Loop* loop_ = nullptr;  // while `run` runs
};

/// \brief A handler that runs `agent` on a run's input, `{"prompt": text}` (and `"sessionState"`, an
/// object, when given): the run `completed` with `{"output": ..., "iterations": n, "usage": {...}}`, or
/// `failed` with `{"error": ..., "terminatedBy": ...}`, or `cancelled`. An input without a prompt fails the
/// run, saying so.
[[nodiscard]] RunHandler agentHandler(agent::Agent agent);

}  // namespace reagent::durable
