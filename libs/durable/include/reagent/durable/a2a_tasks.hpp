#pragma once
/// \file
/// \brief `A2aTasks`: an A2A server's tasks kept as durable runs, so they survive a restart and the servers
/// behind a load balancer share them (`reagent serve --a2a --db`). See docs/durable-runs.md.

#include <chrono>
#include <memory>

#include "reagent/a2a/server.hpp"
#include "reagent/durable/run_store.hpp"

namespace reagent::durable {

/// \brief How the server that started a task follows its run.
struct A2aTaskOptions {
    /// The first pause between two looks at the run; it doubles up to `maxPoll`. At least 1 ms.
    std::chrono::milliseconds firstPoll{10};
    /// At least `firstPoll`.
    std::chrono::milliseconds maxPoll{250};
};

/// \brief A2A tasks as durable runs of a `RunStore`.
///
/// - `runFunction()`, given to `a2a::Server::bind`, submits each task as a run: its id the task's, its
///   input `{"prompt": text, "a2a": {"contextId": ..., "message": the user's message}}`. A `Worker` with
///   `agentHandler` (in this process or any other on the store) runs it. The function follows the run until
///   it ends, for the task's blocking send and stream; a run that waits for approval (`reagent runs
///   approve`) is followed on, its wait said once as progress.
/// - As the server's `ServerConfig::directory`, it answers `tasks/get` and `tasks/cancel` from the store,
///   whichever server started the task, before or after a restart: `queued` is `submitted` (`working` once
///   claimed), `running` `working`, `waiting` `input-required` (naming the calls that wait), `completed`
///   `completed` with the answer as artifact `answer`, `failed` `failed` with the error, `cancelled`
///   `canceled`. A cancel is the run's `cancel` input.
///
/// Errors of the store reach the caller as messages; nothing throws.
class A2aTasks final : public a2a::TaskDirectory, public std::enable_shared_from_this<A2aTasks> {
  public:
    /// \par Errors
    /// `invalid_input` for no store, or polls out of range.
    [[nodiscard]] static expected<std::shared_ptr<A2aTasks>, DurableError> create(
        std::shared_ptr<RunStore> store, A2aTaskOptions options = {});

    [[nodiscard]] Task<expected<std::optional<a2a::AgentTask>, std::string>> find(std::string id) override;
    [[nodiscard]] Task<expected<std::optional<a2a::AgentTask>, std::string>> cancel(std::string id) override;

    /// \brief The server's run function (see above).
    [[nodiscard]] a2a::TracedRunFunction runFunction();

    /// \brief The task a run stands for.
    [[nodiscard]] static a2a::AgentTask taskOf(const RunRecord& run);

  private:
    A2aTasks(std::shared_ptr<RunStore> store, A2aTaskOptions options)
        : store_(std::move(store)), options_(options) {}
    Task<expected<std::string, std::string>> follow(std::string prompt, a2a::TaskContext context);

    std::shared_ptr<RunStore> store_;
    A2aTaskOptions options_;
};

}  // namespace reagent::durable
