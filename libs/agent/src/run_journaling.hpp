#pragma once
// A journaled run's steps (internal to reagent::agent): each model call's outcome and each tool call's record
// journaled as it completes, and taken back from the journal by a later attempt of the run instead of being
// done again (RunOptions::journal, docs/durable-runs.md). The driver (run_driver.cpp) calls these only when
// the run has a journal.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compaction_run.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/llm/model_request.hpp"
#include "reagent/llm/provider_error.hpp"
#include "reagent/tools/tool_call.hpp"
#include "run_driver.hpp"

namespace reagent::agent::detail {

/// The outcome an earlier attempt journaled for the model call of `iteration`; none when it has not (or
/// when what it journaled cannot be read: a warning of the run then, and the call is made again).
[[nodiscard]] std::optional<expected<llm::ModelReply, llm::ProviderError>> replayedReply(RunContext& run,
                                                                                         int iteration);

/// Journals the model call of `iteration`; false when the journal refused it (`run.journalFailure` says why).
/// A cancelled call is not journaled: the next attempt makes it.
[[nodiscard]] Task<bool> journalReply(RunContext& run, int iteration,
                                      const expected<llm::ModelReply, llm::ProviderError>& reply);

/// The compaction an earlier attempt journaled as the run's `index`-th (0-based), with what each of its
/// summary calls spent; none when it has not (or when it cannot be read: a warning, and it is done again).
[[nodiscard]] std::optional<std::pair<CompactionOutcome, std::vector<llm::Usage>>> replayedCompaction(
    RunContext& run, std::size_t index);

/// Journals the run's `index`-th compaction and its summary calls' usage; false when the journal refused it.
[[nodiscard]] Task<bool> journalCompaction(RunContext& run, std::size_t index,
                                           const CompactionOutcome& outcome,
                                           const std::vector<llm::Usage>& calls);

/// Gives each call of the batch of `tripIndex` its journal: the record an earlier attempt journaled, or how
/// to journal it, and its idempotency key.
void attachJournal(RunContext& run, std::vector<tools::ToolCallRequest>& calls, int tripIndex);

}  // namespace reagent::agent::detail
