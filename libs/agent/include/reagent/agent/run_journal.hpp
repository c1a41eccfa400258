#pragma once
/// \file
/// \brief `RunJournal`: the seam between a run and the journal that makes it durable. Each step the run
/// completes (a model reply, a tool call's record) is journaled as it completes; a run given a journal that
/// already holds steps (an earlier attempt's, cut short by a crash) takes them from it instead of doing them
/// again. `reagent::durable` journals into its stores; `MemoryRunJournal` keeps the steps in memory.

#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"

namespace reagent::agent {

/// \brief One journaled step: its name in the run (`model:1`, `tool:1:call_7`), what kind of step it is
/// (`model_reply`, `tool_call`), and what the run needs to take it again without doing it.
struct JournaledStep {
    std::string step;
    std::string kind;
    nlohmann::json payload;
};

/// \brief Where a run journals its steps (`RunOptions::journal`).
///
/// The run asks `recorded` before each step, and journals the step with `record` once it has completed and
/// before it goes on: a step journaled is never done again by a later attempt given the same journal; a step
/// in flight when the process died is done once more. Steps are named from the run's own counters, which
/// are the same in every attempt of a run given the same input.
class RunJournal {
  public:
    virtual ~RunJournal() = default;

    /// \brief The run's id: tools see `{runId}/{step}` as `ToolContext::idempotencyKey`.
    [[nodiscard]] virtual const std::string& runId() const noexcept = 0;
    /// \brief What an earlier attempt journaled for `step`; null when it has not completed.
    [[nodiscard]] virtual const nlohmann::json* recorded(const std::string& step) const = 0;
    /// \brief Journals a completed step. An error (the worker no longer holds the run, the database is
    /// gone) ends the run failed with `AgentErrc::internal_error` naming the step and the journal's reason;
    /// the step is done again by whoever holds the run next.
    [[nodiscard]] virtual Task<expected<void, std::string>> record(JournaledStep step) = 0;
};

/// \brief A journal in memory: for tests, and for a program that keeps a run's steps itself. Thread-safe.
class MemoryRunJournal final : public RunJournal {
  public:
    explicit MemoryRunJournal(std::string runId, std::vector<JournaledStep> earlier = {});

    [[nodiscard]] const std::string& runId() const noexcept override { return runId_; }
    [[nodiscard]] const nlohmann::json* recorded(const std::string& step) const override;
    [[nodiscard]] Task<expected<void, std::string>> record(JournaledStep step) override;

    /// \brief Every step journaled, the earlier ones first, in the order they were recorded.
    [[nodiscard]] std::vector<JournaledStep> steps() const;
    /// \brief `record` fails from the `count`-th call on (1: the next), as a journal whose worker lost its
    /// lease would; 0: never (the default).
    void failFrom(std::size_t count);

  private:
    std::string runId_;
    mutable std::mutex mutex_;
    std::deque<JournaledStep> steps_;  // a deque: `recorded` hands out pointers into it
    std::map<std::string, std::size_t, std::less<>> index_;
    std::size_t recordedCalls_ = 0;
    std::size_t failFrom_ = 0;
};

}  // namespace reagent::agent
