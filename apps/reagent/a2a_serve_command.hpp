#pragma once
/// \file
/// \brief `reagent serve --a2a`: the agent `reagent run` would build, served over A2A.

#include <boost/asio/io_context.hpp>
#include <cstdint>
#include <string>

#include "commands.hpp"
#include "reagent/agent/agent.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/umbrella/agent_builder.hpp"
#include "server_token.hpp"

namespace reagent::cli {

/// \brief What `reagent serve` was asked to do.
struct A2aServeOptions {
    /// The agent, configured as for `run` (provider, model, workspace, MCP servers, ...); `prompt` unused.
    RunOptions agent;
    /// `--host`: the address to listen on. Default 127.0.0.1 (this machine only).
    std::string host = "127.0.0.1";
    /// `--port`: the port; 0 picks a free one (printed on stderr). Default 0.
    std::uint16_t port = 0;
    /// `--max-tasks`: tasks running at once. Default 64.
    std::size_t maxTasks = 64;
    /// The bearer token callers must send (`--token-file`, `$REAGENT_A2A_SERVE_TOKEN`, else generated and
    /// printed), or `--no-auth`.
    ServerAuthOptions auth;
    /// `--trace-file`: where the tasks' spans are appended (OTLP/JSON lines); empty: none.
    std::string traceFile;
    /// `--db`: keep the tasks as durable runs in this store (a file, `sqlite://` or `postgresql://` URL) and
    /// run them with a worker of this server; empty: tasks in memory.
    std::string db;
    /// `--lease-seconds`: with `--db`, how long (seconds) the worker's claim on a run lasts unrenewed: a run
    /// whose server died is taken over after it.
    int leaseSeconds = 30;
};

/// \brief The environment variable `reagent serve --a2a` reads its bearer token from.
inline constexpr const char* kA2aServeTokenVariable = "REAGENT_A2A_SERVE_TOKEN";

/// \brief The builder `run` uses (provider from the options or the environment, else the demo), with
/// tool calls that need approval denied unless `--yes` (a server has no terminal to ask). `demo`, when
/// given, is set when the offline demo provider was chosen.
[[nodiscard]] expected<reagent::AgentBuilder, std::string> serverAgentBuilder(const RunOptions& options,
                                                                              bool* demo = nullptr);
/// \brief The same with a fresh offline demo provider (it plays two scripted turns: one run's worth).
[[nodiscard]] expected<reagent::AgentBuilder, std::string> demoAgentBuilder(const RunOptions& options);

/// \brief Serves the agent over A2A until SIGINT or SIGTERM, then stops gracefully (running tasks end
/// canceled). Logs on stderr. Returns `kExitUsage` when the agent cannot be built or the port bound.
[[nodiscard]] int a2aServeCommand(boost::asio::io_context& io, const A2aServeOptions& options);

}  // namespace reagent::cli
