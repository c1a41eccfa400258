#pragma once
/// \file
/// \brief `reagent worker`, `reagent submit` and `reagent runs`: durable runs in a store shared by processes
/// (docs/durable-runs.md).

#include <boost/asio/io_context.hpp>
#include <memory>
#include <optional>
#include <string>

#include "commands.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/durable/run_store.hpp"

namespace reagent::cli {

/// \brief The store `db` names (a file path or `sqlite://PATH`: SQLite; a `postgresql://` URL: PostgreSQL;
/// empty: `$REAGENT_DB`), opened; or what is wrong, said for a person (no database given, a file that cannot
/// be used, a database that cannot be reached: named without its password).
[[nodiscard]] Task<expected<std::shared_ptr<durable::RunStore>, std::string>> openRunStore(std::string db);

/// \brief `openRunStore` run to its end on `io` (Ctrl-C gives up), which is then ready for what runs next.
[[nodiscard]] expected<std::shared_ptr<durable::RunStore>, std::string> openRunStoreOn(
    boost::asio::io_context& io, const std::string& db);

/// \brief `reagent worker`.
struct WorkerCommandOptions {
    std::string db;
    /// The agent, built as `run` builds it; calls that need approval pause their run for `runs approve`
    /// unless `approveAll`.
    RunOptions agent;
    std::string name;
    int concurrency = 4;
    int leaseSeconds = 30;
    /// `--until-idle`: return once nothing is left to claim.
    bool untilIdle = false;
    /// `--drain-seconds`: after SIGTERM, how long the runs in progress may take; unset: as long as they take.
    std::optional<int> drainSeconds;
    std::string traceFile;
};

/// \brief `reagent submit PROMPT`.
struct SubmitOptions {
    std::string db;
    std::string prompt;
    std::string id;
    /// Print each step as it is journaled, then the answer, once the run has ended or waits.
    bool wait = false;
    bool json = false;
};

/// \brief `reagent runs list|show|cancel|approve`.
struct RunsOptions {
    std::string db;
    std::string action;
    std::string id;
    std::string callId;
    std::optional<std::string> status;
    int limit = 20;
    bool deny = false;
    std::string reason;
    bool json = false;
};

/// \brief Works on the store's runs until SIGTERM or SIGINT (a second one stops at once; the runs in progress
/// are then taken over by another worker when their leases expire), or `--until-idle`.
[[nodiscard]] int workerCommand(boost::asio::io_context& io, WorkerCommandOptions options);
[[nodiscard]] int submitCommand(boost::asio::io_context& io, const SubmitOptions& options);
[[nodiscard]] int runsCommand(boost::asio::io_context& io, const RunsOptions& options);

}  // namespace reagent::cli
