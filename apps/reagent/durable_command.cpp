#include "durable_command.hpp"

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <csignal>
#include <cstdlib>
#include <iostream>

#include "a2a_serve_command.hpp"
#include "cli_telemetry.hpp"
#include "output.hpp"
#include "reagent/core/settle.hpp"
#include "reagent/durable/postgres_run_store.hpp"
#include "reagent/durable/sqlite_run_store.hpp"
#include "reagent/durable/worker.hpp"
#include "reagent/umbrella/agent_builder.hpp"
#include "run_to_end.hpp"
#include "terminal_text.hpp"
#include "trace.hpp"

namespace reagent::cli {

namespace {

namespace asio = boost::asio;
using nlohmann::json;
using nlohmann::ordered_json;

// The exit status of a store's refusal: a usage error for what the caller asked wrong (an unknown run, a
// conflict, bad input), else a failure.
int usageOr(durable::DurableErrc code) {
    using durable::DurableErrc;
    const bool usage =
        code == DurableErrc::invalid_input || code == DurableErrc::conflict || code == DurableErrc::not_found;
    return usage ? kExitUsage : kExitRunFailed;
}

ordered_json runJson(const durable::RunRecord& run) {
    ordered_json out;
    out["id"] = run.id;
    out["status"] = durable::toString(run.status);
    out["input"] = run.input;
    out["attempts"] = run.attempts;
    out["epoch"] = run.epoch;
    out["owner"] = run.owner;
    out["leaseUntil"] = run.leaseUntil;
    out["cancelRequested"] = run.cancelRequested;
    out["outcome"] = run.outcome;
    out["created"] = run.created;
    out["updated"] = run.updated;
    return out;
}

// One line for a journaled step: its name and what it holds.
std::string stepLine(const durable::JournalEntry& entry) {
    std::string line = entry.step + " ";
    if (entry.kind == "model_reply") {
        if (const auto reply = entry.payload.find("reply"); reply != entry.payload.end()) {
            std::string calls;
            for (const json& call : reply->value("toolCalls", json::array())) {
                calls += (calls.empty() ? "" : ", ") + call.value("name", std::string());
            }
            line += calls.empty() ? "answered: " + oneLine(reply->value("text", std::string()), 80)
                                  : "asked for " + calls;
        } else {
            line += "model error: " + oneLine(entry.payload["error"].value("message", std::string()), 80);
        }
    } else if (entry.kind == "tool_call") {
        line += entry.payload.value("name", std::string()) +
                (entry.payload.contains("error")
                     ? " failed"
                     : ": " + oneLine(entry.payload.value("output", std::string()), 60));
    } else if (entry.kind == "tool_start") {
        line += entry.payload.value("tool", std::string()) + " started (not idempotent)";
    } else if (entry.kind == "compaction") {
        const json record = entry.payload.value("record", json::object());
        line += "history compacted (" + std::to_string(record.value("tokensBefore", std::int64_t{0})) +
                " -> " + std::to_string(record.value("tokensAfter", std::int64_t{0})) + " tokens)";
    } else {
        line += entry.kind;
    }
    return line;
}

// What a run ended with, for a person: its answer, or why it did not give one.
int reportEnd(const durable::RunRecord& run, bool json) {
    if (json) {
        std::cout << dumpJson(runJson(run), 2) << "\n";
    } else if (run.status == durable::RunStatus::completed) {
        std::cout << terminalSafe(run.outcome.value("output", std::string())) << "\n";
    } else if (run.status == durable::RunStatus::waiting) {
        std::cerr << "reagent: run " << run.id << " waits for approval: "
                  << dumpJson(ordered_json(run.outcome.value("pendingApprovals", json::array()))) << "\n";
    } else {
        std::cerr << "reagent: run " << run.id << " " << durable::toString(run.status) << ": "
                  << oneLine(run.outcome.value("error", run.outcome.dump()), 2000) << "\n";
    }
    return run.status == durable::RunStatus::completed ? kExitSuccess : kExitRunFailed;
}

Task<int> submitAndWait(std::shared_ptr<durable::RunStore> store, SubmitOptions options) {
    // Named, and no braced JSON: GCC 12 miscompiles both inside an awaited call's arguments.
    durable::Submission submission;
    submission.id = options.id;
    submission.input["prompt"] = options.prompt;
    auto submitted = co_await store->submit(std::move(submission));
    if (!submitted) {
        std::cerr << "reagent: " << submitted.error().describe() << "\n";
        co_return usageOr(submitted.error().code);
    }
    const std::string id = submitted->run.id;
    if (!options.wait) {
        if (options.json) {
            std::cout << dumpJson(runJson(submitted->run), 2) << "\n";
        } else {
            std::cout << id << "\n";
        }
        co_return kExitSuccess;
    }
    std::cerr << "reagent: run " << id << (submitted->created ? " submitted" : " (submitted before)") << "\n";
    std::size_t shown = 0;
    asio::steady_timer poll(co_await asio::this_coro::executor);
    for (;;) {
        auto journal = co_await store->journal(id);
        auto run = co_await store->run(id);
        if (!journal || !run) {
            std::cerr << "reagent: " << (!journal ? journal.error() : run.error()).describe() << "\n";
            co_return kExitRunFailed;
        }
        for (; shown < journal->size(); ++shown) {
            std::cerr << "  " << terminalSafe(stepLine((*journal)[shown]), false) << "\n";
        }
        if (durable::isTerminal(run->status) || run->status == durable::RunStatus::waiting) {
            co_return reportEnd(*run, options.json);
        }
        poll.expires_after(std::chrono::milliseconds(200));
        co_await poll.async_wait(asio::use_awaitable);
    }
}

Task<int> listRuns(std::shared_ptr<durable::RunStore> store, RunsOptions options) {
    durable::RunFilter filter;
    filter.limit = static_cast<std::size_t>(options.limit);
    if (options.status) {
        filter.status = durable::runStatusNamed(*options.status);
    }
    auto runs = co_await store->list(filter);
    if (!runs) {
        std::cerr << "reagent: " << runs.error().describe() << "\n";
        co_return kExitRunFailed;
    }
    if (options.json) {
        ordered_json all = ordered_json::array();
        for (const auto& run : *runs) {
            all.push_back(runJson(run));
        }
        std::cout << dumpJson(all, 2) << "\n";
        co_return kExitSuccess;
    }
    for (const auto& run : *runs) {
        std::cout << run.id << "  " << durable::toString(run.status) << "  attempts " << run.attempts << "  "
                  << oneLine(run.input.value("prompt", std::string()), 60) << "\n";
    }
    co_return kExitSuccess;
}

Task<int> showRun(std::shared_ptr<durable::RunStore> store, RunsOptions options) {
    auto run = co_await store->run(options.id);
    auto journal = co_await store->journal(options.id);
    auto inputs = co_await store->inputs(options.id);
    if (!run || !journal || !inputs) {
        const auto& error = !run ? run.error() : !journal ? journal.error() : inputs.error();
        std::cerr << "reagent: " << error.describe() << "\n";
        co_return usageOr(error.code);
    }
    if (options.json) {
        ordered_json out = runJson(*run);
        ordered_json steps = ordered_json::array();
        for (const auto& entry : *journal) {
            steps.push_back({{"seq", entry.seq},
                             {"step", entry.step},
                             {"kind", entry.kind},
                             {"epoch", entry.epoch},
                             {"created", entry.created},
                             {"payload", entry.payload}});
        }
        ordered_json given = ordered_json::array();
        for (const auto& input : *inputs) {
            given.push_back({{"seq", input.seq},
                             {"kind", durable::toString(input.kind)},
                             {"callId", input.callId},
                             {"payload", input.payload},
                             {"created", input.created}});
        }
        out["journal"] = std::move(steps);
        out["inputs"] = std::move(given);
        std::cout << dumpJson(out, 2) << "\n";
        co_return kExitSuccess;
    }
    std::cout << "run " << run->id << ": " << durable::toString(run->status) << ", " << run->attempts
              << " attempt(s), owner " << (run->owner.empty() ? "(none)" : run->owner) << "\n"
              << "prompt: " << terminalSafe(run->input.value("prompt", std::string()), false) << "\n";
    for (const auto& entry : *journal) {
        std::cout << "  " << terminalSafe(stepLine(entry), false) << "  (epoch " << entry.epoch << ")\n";
    }
    if (!run->outcome.is_null()) {
        std::cout << "outcome: " << terminalSafe(oneLine(run->outcome.dump(), 2000), false) << "\n";
    }
    co_return kExitSuccess;
}

Task<int> addInput(std::shared_ptr<durable::RunStore> store, RunsOptions options) {
    durable::RunInput input;
    if (options.action == "approve") {
        input.kind = durable::InputKind::decision;
        input.callId = options.callId;
        input.payload = json{{"approved", !options.deny}, {"reason", options.reason}};
    }
    auto added = co_await store->addInput(options.id, input);
    if (!added) {
        std::cerr << "reagent: " << added.error().describe() << "\n";
        co_return usageOr(added.error().code);
    }
    auto run = co_await store->run(options.id);
    std::cerr << "reagent: run " << options.id << " "
              << (run ? std::string(durable::toString(run->status)) : std::string("updated"))
              << (run && run->cancelRequested ? " (its worker stops it at its next renewal)" : "") << "\n";
    co_return kExitSuccess;
}

}  // namespace

Task<expected<std::shared_ptr<durable::RunStore>, std::string>> openRunStore(std::string db) {
    std::string where = db;
    if (where.empty()) {
        const char* fromEnvironment = std::getenv("REAGENT_DB");
        where = fromEnvironment != nullptr ? fromEnvironment : "";
    }
    if (where.empty()) {
        co_return fail(
            std::string("name the run store with --db FILE (or sqlite://FILE, or a postgresql:// URL), "
                        "or set REAGENT_DB"));
    }
    if (where.rfind("postgresql://", 0) == 0 || where.rfind("postgres://", 0) == 0) {
        auto store = co_await durable::PostgresRunStore::open(where);
        if (!store) {
            co_return fail(store.error().describe());
        }
        co_return std::shared_ptr<durable::RunStore>(std::move(*store));
    }
    if (where.rfind("sqlite://", 0) == 0) {
        where = where.substr(9);
    }
    auto store = durable::SqliteRunStore::open(where);
    if (!store) {
        co_return fail(store.error().describe());
    }
    co_return std::shared_ptr<durable::RunStore>(std::move(*store));
}

expected<std::shared_ptr<durable::RunStore>, std::string> openRunStoreOn(asio::io_context& io,
                                                                         const std::string& db) {
    using Opened = expected<std::shared_ptr<durable::RunStore>, std::string>;
    auto opened =
        runToEnd(io, openRunStore(db), Opened(fail(std::string("interrupted while opening the run store"))));
    io.restart();  // for what runs on `io` next
    return opened;
}

int workerCommand(asio::io_context& io, WorkerCommandOptions options) {
    auto store = openRunStoreOn(io, options.db);
    if (!store) {
        std::cerr << "reagent: " << store.error() << "\n";
        return kExitUsage;
    }
    return runTraced(io, options.traceFile, options.agent, "", [&]() -> int {
        options.agent.deferApprovals = true;  // a run that needs a person waits for `reagent runs approve`
        auto provider = chooseProvider(options.agent);
        if (!provider) {
            std::cerr << "reagent: " << provider.error() << "\n";
            return kExitUsage;
        }
        auto builder = agentBuilder(options.agent, std::move(*provider));
        if (!builder) {
            std::cerr << "reagent: " << builder.error() << "\n";
            return kExitUsage;
        }
        auto agent = builder->build();
        if (!agent) {
            std::cerr << "reagent: " << agent.error().describe() << "\n";
            return kExitUsage;
        }
        durable::WorkerOptions workerOptions;
        workerOptions.name = options.name;
        workerOptions.concurrency = static_cast<std::size_t>(options.concurrency);
        workerOptions.lease = std::chrono::seconds(options.leaseSeconds);
        workerOptions.stopWhenIdle = options.untilIdle;
        if (options.drainSeconds) {
            workerOptions.drainFor = std::chrono::seconds(*options.drainSeconds);
        }
        auto worker =
            durable::Worker::create(*store, workerOptions, durable::agentHandler(std::move(*agent)));
        if (!worker) {
            std::cerr << "reagent: " << worker.error().describe() << "\n";
            return kExitUsage;
        }
        std::cerr << "reagent: worker " << (*worker)->name() << " on "
                  << (options.db.empty() ? "$REAGENT_DB" : options.db) << ", " << options.concurrency
                  << " run(s) at once; SIGTERM drains"
                  << (options.drainSeconds ? " for up to " + std::to_string(*options.drainSeconds) + " s"
                                           : "")
                  << ", a second stops at once\n";
        asio::cancellation_signal kill;
        asio::signal_set signals(io, SIGINT, SIGTERM);
        int signalled = 0;
        std::function<void(const boost::system::error_code&, int)> onSignal =
            [&](const boost::system::error_code& ec, int) {
                if (ec) {
                    return;
                }
                if (++signalled == 1) {
                    std::cerr
                        << "reagent: draining (the runs in progress finish; signal again to stop at once)\n";
                    (*worker)->stop();
                    signals.async_wait(onSignal);
                } else {
                    kill.emit(asio::cancellation_type::terminal);
                }
            };
        signals.async_wait(onSignal);
        std::optional<durable::WorkerReport> report;
        asio::co_spawn(
            io, (*worker)->run(),
            asio::bind_cancellation_slot(kill.slot(), [&](std::exception_ptr, durable::WorkerReport value) {
                report = std::move(value);
                signals.cancel();
                hurryTelemetry(io, options.agent.telemetry);
            }));
        io.run();
        if (!report) {
            return kExitRunFailed;
        }
        for (const auto& problem : report->problems) {
            std::cerr << "reagent: " << oneLine(problem, 2000) << "\n";
        }
        std::cerr << "reagent: worker " << (*worker)->name() << " finished " << report->finished << " run(s)"
                  << (report->lost ? ", lost " + std::to_string(report->lost) : std::string())
                  << (report->cutOff ? ", left " + std::to_string(report->cutOff) + " unfinished"
                                     : std::string())
                  << "\n";
        return kExitSuccess;
    });
}

int submitCommand(asio::io_context& io, const SubmitOptions& options) {
    auto store = openRunStoreOn(io, options.db);
    if (!store) {
        std::cerr << "reagent: " << store.error() << "\n";
        return kExitUsage;
    }
    return runToEnd(io, submitAndWait(*store, options), int{kExitRunFailed});
}

int runsCommand(asio::io_context& io, const RunsOptions& options) {
    auto store = openRunStoreOn(io, options.db);
    if (!store) {
        std::cerr << "reagent: " << store.error() << "\n";
        return kExitUsage;
    }
    if (options.status && !durable::runStatusNamed(*options.status)) {
        std::cerr << "reagent: --status is queued, running, waiting, completed, failed or cancelled (got '"
                  << oneLine(*options.status) << "')\n";
        return kExitUsage;
    }
    if (options.action == "list") {
        return runToEnd(io, listRuns(*store, options), int{kExitRunFailed});
    }
    if (options.action == "show") {
        return runToEnd(io, showRun(*store, options), int{kExitRunFailed});
    }
    return runToEnd(io, addInput(*store, options), int{kExitRunFailed});
}

}  // namespace reagent::cli
