#include "a2a_serve_command.hpp"

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/signal_set.hpp>
#include <csignal>
#include <iostream>

#include "a2a_runner.hpp"
#include "cli_telemetry.hpp"
#include "durable_command.hpp"
#include "output.hpp"
#include "reagent/a2a/server.hpp"
#include "reagent/durable/a2a_tasks.hpp"
#include "reagent/durable/worker.hpp"
#include "trace.hpp"

namespace reagent::cli {

namespace asio = boost::asio;

namespace {

// With the demo provider, whose script is one run long, each task gets an agent of its own.
Task<expected<std::string, std::string>> runDemoAgent(RunOptions options, std::string prompt,
                                                      a2a::TaskContext context) {
    auto builder = demoAgentBuilder(options);
    if (!builder) {
        co_return fail(builder.error());
    }
    auto built = co_await builder->buildAsync();
    if (!built) {
        co_return fail(built.error().describe());
    }
    auto running =
        runAgentTask(*built, std::move(prompt), std::move(context.progress), std::move(context.trace));
    auto result = co_await std::move(running);
    co_await built->dispose();
    co_return result;
}

a2a::AgentCard cardFor(const agent::Agent& agent, const RunOptions& options) {
    a2a::AgentCard card;
    card.name = agent.config().name;
    card.description = "A reagent agent (ReAct loop with tools); send it a task in plain text.";
    if (!options.workspace.empty()) {
        card.description += " It works in a workspace directory.";
    }
    for (const auto& tool : agent.toolDefinitions()) {
        card.skills.push_back(a2a::AgentSkill{tool.name, tool.name, tool.description, {tool.category}});
    }
    return card;
}

// With the demo provider, each run gets an agent of its own (as each task does without a store).
durable::RunHandler demoRunHandler(RunOptions options) {
    return [options](durable::Claimed claimed,
                     std::shared_ptr<agent::RunJournal> journal) -> Task<durable::Finish> {
        auto builder = demoAgentBuilder(options);
        if (!builder) {
            co_return durable::Finish{durable::RunStatus::failed, {{"error", builder.error()}}};
        }
        auto built = co_await builder->buildAsync();
        if (!built) {
            co_return durable::Finish{durable::RunStatus::failed, {{"error", built.error().describe()}}};
        }
        auto running = durable::agentHandler(*built)(std::move(claimed), std::move(journal));
        durable::Finish finish = co_await std::move(running);
        co_await built->dispose();
        co_return finish;
    };
}

// The server, and with a store the worker that runs its tasks, until both stop (a cancellation stops both:
// the server gracefully, the worker at once, its runs left to the next worker on the store).
Task<void> serveTasks(const a2a::Server& server, std::shared_ptr<durable::Worker> worker) {
    if (!worker) {
        co_await server.run();
        co_return;
    }
    using namespace asio::experimental::awaitable_operators;
    auto report = co_await (server.run() && worker->run());
    co_await asio::this_coro::reset_cancellation_state();  // stopped: the agent is disposed of next
    for (const auto& problem : report.problems) {
        std::cerr << "reagent: " << oneLine(problem, 2000) << "\n";
    }
}

Task<int> serve(reagent::AgentBuilder builder, bool demo, A2aServeOptions options,
                std::optional<ServerToken> token, std::shared_ptr<durable::RunStore> store) {
    auto built = co_await builder.buildAsync();
    if (!built) {
        std::cerr << "reagent: cannot build the agent: " << built.error().describe() << "\n";
        co_return kExitUsage;
    }
    agent::Agent agent = *built;
    a2a::ServerConfig config;
    config.host = options.host;
    config.port = options.port;
    config.telemetry = options.agent.telemetry;  // a span and a duration per request
    config.maxConcurrentTasks = options.maxTasks;
    if (token) {
        config.bearerToken = token->value;
    }
    a2a::TracedRunFunction run = sharedAgentRunner(agent);
    if (demo) {
        run = [agentOptions = options.agent](std::string prompt, a2a::TaskContext context) {
            return runDemoAgent(agentOptions, std::move(prompt), std::move(context));
        };
    }
    std::shared_ptr<durable::Worker> worker;
    if (store) {
        auto tasks = durable::A2aTasks::create(store);
        durable::WorkerOptions workerOptions;
        workerOptions.concurrency = options.maxTasks;
        workerOptions.lease = std::chrono::seconds(options.leaseSeconds);
        auto made = durable::Worker::create(
            store, workerOptions, demo ? demoRunHandler(options.agent) : durable::agentHandler(agent));
        if (!tasks || !made) {
            std::cerr << "reagent: " << (!tasks ? tasks.error() : made.error()).describe() << "\n";
            co_await agent.dispose();
            co_return kExitUsage;
        }
        config.directory = *tasks;
        run = (*tasks)->runFunction();
        worker = *made;
    }
    auto ex = co_await asio::this_coro::executor;
    auto server = a2a::Server::bind(ex, config, cardFor(agent, options.agent), std::move(run));
    if (!server) {
        std::cerr << "reagent: " << server.error() << "\n";
        co_await agent.dispose();
        co_return kExitUsage;
    }
    // The token line first: a client that waits for the address finds the token already written.
    if (token && !token->warning.empty()) {
        std::cerr << token->warning;
    }
    std::cerr << authLine(token, kA2aServeTokenVariable, "start tasks on this agent");
    std::cerr << "reagent: serving agent '" << server->card().name << "' over A2A at " << server->baseUrl()
              << " (card: " << server->baseUrl() << a2a::kAgentCardPath
              << ", JSON-RPC: " << server->card().interfaces.front().url << ")"
              << (worker ? ", tasks kept as durable runs by worker " + worker->name() : std::string())
              << "; Ctrl-C stops\n";
    co_await serveTasks(*server, worker);
    co_await agent.dispose();
    std::cerr << "reagent: server stopped\n";
    co_return kExitSuccess;
}

// Serves until stopped; the telemetry around it is a2aServeCommand's.
int serveA2a(asio::io_context& io, const A2aServeOptions& options);

}  // namespace

int a2aServeCommand(asio::io_context& io, const A2aServeOptions& given) {
    A2aServeOptions options = given;
    return runTraced(io, options.traceFile, options.agent, "", [&] { return serveA2a(io, options); });
}

namespace {

int serveA2a(asio::io_context& io, const A2aServeOptions& options) {
    auto token = serverToken(options.auth, kA2aServeTokenVariable);
    if (!token) {
        std::cerr << "reagent: " << token.error() << "\n";
        return kExitUsage;
    }
    std::shared_ptr<durable::RunStore> store;
    A2aServeOptions serving = options;
    if (!options.db.empty()) {
        auto opened = openRunStoreOn(io, options.db);
        if (!opened) {
            std::cerr << "reagent: " << opened.error() << "\n";
            return kExitUsage;
        }
        store = *opened;
        serving.agent.deferApprovals = true;  // a run that needs a person waits for `reagent runs approve`
    }
    bool demo = false;
    auto builder = serverAgentBuilder(serving.agent, &demo);
    if (!builder) {
        std::cerr << "reagent: " << builder.error() << "\n";
        return kExitUsage;
    }
    asio::cancellation_signal stop;
    asio::signal_set signals(io, SIGINT, SIGTERM);
    signals.async_wait([&](const boost::system::error_code& ec, int number) {
        if (!ec) {
            std::cerr << "\nreagent: " << ::strsignal(number) << " \u2014 stopping the server\n";
            stop.emit(asio::cancellation_type::terminal);
        }
    });
    int status = kExitRunFailed;
    asio::co_spawn(io, serve(std::move(*builder), demo, serving, std::move(*token), std::move(store)),
                   asio::bind_cancellation_slot(stop.slot(), [&](std::exception_ptr error, int value) {
                       status = error ? kExitRunFailed : value;
                       signals.cancel();
                       hurryTelemetry(io, options.agent.telemetry);
                   }));
    io.run();
    return status;
}

}  // namespace

}  // namespace reagent::cli
