#pragma once
// Private to libs/agent: the MCP servers of one agent, their clients, and their tools in its registry.

#include <memory>
#include <string>
#include <vector>

#include "reagent/agent/agent.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/core/task_group.hpp"
#include "reagent/mcp/client.hpp"
#include "reagent/tools/tool.hpp"

namespace reagent::agent {

/// Connects the configured servers, registers their tools as `server/tool`, keeps the registry in step
/// with `notifications/tools/list_changed`, and closes the sessions on dispose. Lives inside the agent's
/// State (the raw pointer to it never dangles); callbacks from clients hold a weak pointer to this.
class McpTools : public std::enable_shared_from_this<McpTools> {
  public:
    McpTools(Agent::State& state, const Executor& executor);
    McpTools(const McpTools&) = delete;
    McpTools& operator=(const McpTools&) = delete;
    ~McpTools();

    /// Connects the servers, `McpSettings::maxConcurrentStarts` at a time, and registers their tools; on
    /// failure, names each server that failed (and closes those that connected).
    [[nodiscard]] Task<expected<void, std::string>> connectAll();

    /// Closes every session. Idempotent.
    [[nodiscard]] Task<void> closeAll();

  private:
    struct Server {
        mcp::ServerConfig config;
        std::shared_ptr<mcp::Client> client;
        /// Names registered in the agent's registry for this server.
        std::vector<std::string> registered;
        bool refreshing = false;
        bool refreshAgain = false;
    };

    [[nodiscard]] Task<expected<void, std::string>> connect(std::size_t index);
    [[nodiscard]] Task<void> refresh(std::size_t index);
    [[nodiscard]] Task<expected<void, std::string>> registerTools(std::size_t index);
    [[nodiscard]] mcp::ClientOptions clientOptions(std::size_t index);
    void log(const std::string& server, std::string level, nlohmann::json data) const;

    Agent::State& state_;
    std::vector<Server> servers_;
    TaskGroup refreshes_;
    bool closed_ = false;
};

/// Answers a server's `sampling/createMessage` with the agent's provider.
[[nodiscard]] Task<expected<nlohmann::json, mcp::RpcError>> sampleWithProvider(
    std::shared_ptr<llm::Provider> provider, nlohmann::json params);

}  // namespace reagent::agent
