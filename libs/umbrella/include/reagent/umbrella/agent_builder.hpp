#pragma once
/// \file
/// \brief `reagent::Agent::create()`: the builder that knows every library: `withProvider("anthropic")`,
/// `withTools()` with the built-in tools, `withMCP`, `withRemoteAgent`.
///
/// The agent library knows none of the libraries above it; this builder fills an `agent::AgentBuilder` and
/// hands it what they provide, explicitly, at each build: `builtins::toolSource` for `withTools`,
/// `mcp::toolSource` (with `mcp::makeAnyTransport`, and sampling through the agent's provider) for each
/// `withMCP` server, `a2a::remoteAgentTool` for `withRemoteAgent`, `providers::fromEnvironment` for a
/// provider named by kind. The agent it builds is an `agent::Agent`.

#include <concepts>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reagent/a2a/remote_agent_tool.hpp"
#include "reagent/agent/agent.hpp"
#include "reagent/agent/agent_config.hpp"
#include "reagent/builtins/builtin_tools.hpp"
#include "reagent/documents/rag_ingest_tool.hpp"
#include "reagent/mcp/client.hpp"
#include "reagent/mcp/server_config.hpp"
#include "reagent/mcp/tool_source.hpp"
#include "reagent/skills/skill.hpp"

namespace reagent {

/// \brief `withTools(...)`: `agent::ToolsConfig` (the tools and how they run) and the built-in tools.
struct ToolsConfig : agent::ToolsConfig {
    /// The built-in tools to register, by name (see `builtins::builtinToolCatalog`). Unset (the default):
    /// `http-get`, `web-search`, `crypto-price` and `code-execute`, plus the workspace tools when
    /// `workspace` is set. An empty list: none.
    std::optional<std::vector<std::string>> include;
    /// The directory the file, shell and program tools are confined to. Empty (the default): those tools
    /// are not registered.
    std::string workspace;
    /// Leaves out the built-in tools that change the workspace (`file-write`, `file-edit`,
    /// `shell-execute`, `git-cli`, `gh-cli`, `gws-cli`). Default false.
    bool readOnly = false;
    /// Credential variables of this process (`*_API_KEY`, `*_TOKEN`, ...) that the commands of
    /// `shell-execute` and the program tools still inherit; the others are removed. Default: none.
    std::vector<std::string> passEnvironment;
};

/// \brief `agent::AgentBuilder` with the libraries above the agent: every method returns *this, and
/// `build()` reports all problems at once. Methods not described here are `agent::AgentBuilder`'s.
class AgentBuilder {
  public:
    AgentBuilder& withName(std::string name);
    AgentBuilder& withProvider(expected<std::shared_ptr<llm::Provider>, llm::ProviderError> provider);
    template <std::derived_from<llm::Provider> P>
    AgentBuilder& withProvider(std::shared_ptr<P> provider) {
        return withProvider(
            expected<std::shared_ptr<llm::Provider>, llm::ProviderError>(std::move(provider)));
    }
    /// \brief A provider of kind `kind` ("anthropic", "openai", "gemini", "ollama") configured from the
    /// environment when the agent is built (`providers::fromEnvironment`), so a key set after this call
    /// still counts; a missing API key or an unknown kind is reported by `build()`.
    AgentBuilder& withProvider(std::string_view kind);
    /// \brief Enables tools: `config.tools`, and the built-in tools `config.include` selects (by default
    /// the network tools and `code-execute`; with `config.workspace` the file, shell and program tools
    /// too). A tool of `config.tools` named like a built-in one replaces it. The built-in tools are
    /// registered whenever tools are enabled (also by `withTool`, `withRemoteAgent`, `withAgentTool`).
    AgentBuilder& withTools(ToolsConfig config = {});
    AgentBuilder& withTools(std::vector<tools::Tool> tools);
    AgentBuilder& withTool(expected<tools::Tool, tools::ToolError> tool);
    AgentBuilder& withToolSource(expected<std::shared_ptr<tools::ToolSource>, tools::ToolError> source);
    template <std::derived_from<tools::ToolSource> S>
    AgentBuilder& withToolSource(std::shared_ptr<S> source) {
        return withToolSource(
            expected<std::shared_ptr<tools::ToolSource>, tools::ToolError>(std::move(source)));
    }
    /// \brief Adds the remote A2A agent at `url` as a tool named `name` (input `{message}`, output its
    /// reply): `a2a::remoteAgentTool`, whose documentation gives the behaviour and errors.
    AgentBuilder& withRemoteAgent(std::string name, std::string url);
    /// \brief The same with headers (auth) and a timeout.
    AgentBuilder& withRemoteAgent(a2a::RemoteAgentSpec spec);
    AgentBuilder& withAgentTool(std::string name, agent::Agent agent, std::string description = {});
    /// \brief Agent Skills from `folders` (each a skill, or a folder of skills: subfolders with a
    /// `SKILL.md`), offered through the `skill` tool: their names and descriptions up front, their
    /// instructions and files when the model asks (`skills::skillTool`). Read at each build; a malformed
    /// `SKILL.md`, two skills with one name or a file over `limits` fail the build, naming the file.
    AgentBuilder& withSkills(std::vector<std::filesystem::path> folders, skills::SkillLimits limits = {});
    AgentBuilder& withReasoning();
    AgentBuilder& withMetaTools(agent::MetaTools tools);
    /// \brief Tools on demand (see `agent::AgentBuilder::withToolSearch`): `find` and the core tools up
    /// front, the others as the model finds them.
    AgentBuilder& withToolSearch();
    AgentBuilder& withToolSearch(agent::ToolSearch search);
    /// \brief A collection `find` searches (see `agent::AgentBuilder::withFindSource`).
    AgentBuilder& withFindSource(std::shared_ptr<agent::FindSource> source);
    /// \brief Documents the agent can search and add to (docs/documents.md): `find` searches their
    /// passages (kind "documents", cited by source and lines), and the `rag-ingest` tool adds files under
    /// `ingest.roots` or texts. A null `documents` fails the build.
    AgentBuilder& withDocuments(std::shared_ptr<documents::Documents> documents,
                                documents::RagIngestOptions ingest = {});
    AgentBuilder& withMemory(agent::MemoryConfig config = {});
    AgentBuilder& withSystemPrompt(std::string prompt);
    AgentBuilder& withMaxIterations(int iterations);
    AgentBuilder& withApprovalHandler(tools::ApprovalHandler handler);
    AgentBuilder& withDeferredApproval();
    AgentBuilder& withEventHandler(agent::EventHandler handler);
    AgentBuilder& withTemperature(double temperature);
    AgentBuilder& withMaxTokens(int tokens);
    /// \brief The answer must match `schema` (see `agent::AgentBuilder::withOutputSchema`).
    AgentBuilder& withOutputSchema(nlohmann::json schema);
    /// \brief The answer must be a `T`, a described struct (see `agent::AgentBuilder::withOutput`).
    template <class T>
    AgentBuilder& withOutput() {
        base_.withOutput<T>();
        return *this;
    }
    AgentBuilder& withMaxOutputRetries(int retries);
    /// \brief Saved runs and conversations keep large attachments in `store` by reference (see
    /// `agent::AgentBuilder::withAttachmentStore`).
    AgentBuilder& withAttachmentStore(std::shared_ptr<agent::AttachmentStore> store,
                                      std::size_t inlineBelow = 16 * 1024);
    /// \brief Prices the models' tokens (see `agent::AgentBuilder::withPrices`).
    AgentBuilder& withPrices(std::shared_ptr<const llm::PriceTable> prices);
    /// \brief Traces every run into `telemetry` (see `agent::AgentBuilder::withTelemetry`).
    AgentBuilder& withTelemetry(std::shared_ptr<telemetry::Telemetry> telemetry);
    /// \brief What each run may spend (see `agent::AgentBuilder::withBudget`).
    AgentBuilder& withBudget(agent::RunBudget budget);
    /// \brief The model's context window in tokens (see `agent::AgentBuilder::withContextWindow`).
    AgentBuilder& withContextWindow(std::int64_t tokens);
    /// \brief How a long history is compacted (see `agent::AgentBuilder::withCompaction`).
    AgentBuilder& withCompaction(agent::CompactionOptions options);
    /// \brief No compaction (see `agent::AgentBuilder::withoutCompaction`).
    AgentBuilder& withoutCompaction();
    /// \brief Tool sources (MCP servers) started at once by `buildAsync()`. Default 4.
    AgentBuilder& withMaxConcurrentOpens(std::size_t opens);
    /// \brief Uses an MCP server's tools, registered as `<server name>/<tool>`, over any transport
    /// (`mcp::toolSource` with `mcp::makeAnyTransport`); connected by `buildAsync()`. Servers' names must
    /// be unique; an invalid configuration is reported by `build()`.
    AgentBuilder& withMCP(mcp::ServerConfig server);
    AgentBuilder& withMCP(std::vector<mcp::ServerConfig> servers);
    /// \brief Roots offered to every MCP server (`roots/list`).
    AgentBuilder& withMCPRoots(std::vector<mcp::Root> roots);
    /// \brief Lets MCP servers ask the agent's provider for completions (`sampling/createMessage`), each
    /// request only when `allow(server, params)` returns true (`mcp::samplingWith`).
    AgentBuilder& withMCPSampling(mcp::SamplingPolicy allow);
    /// \brief Answers MCP servers' questions to the user (`elicitation/create`).
    AgentBuilder& withMCPElicitation(mcp::RequestHandler handler);

    /// \brief As `agent::AgentBuilder::build()`; MCP servers need `buildAsync()`.
    [[nodiscard]] expected<agent::Agent, agent::AgentError> build() const;
    /// \brief As `agent::AgentBuilder::buildAsync()`: connects the MCP servers.
    [[nodiscard]] Task<expected<agent::Agent, agent::AgentError>> buildAsync() const;
    /// \brief Builds (`buildAsync`), runs `prompt`, disposes the agent: for one-shot use.
    [[nodiscard]] Task<expected<agent::RunResult, agent::AgentError>> runOnce(std::string prompt) const;

    /// \brief The agent library's builder as the next build would use it: this one's settings with the
    /// provider made and fresh tool sources for the built-in tools and the MCP servers.
    [[nodiscard]] agent::AgentBuilder prepared() const;

  private:
    agent::AgentBuilder base_;
    std::string name_ = "agent";
    /// The provider given, for MCP sampling; or the kind to make one of at build.
    std::shared_ptr<llm::Provider> provider_;
    std::optional<std::string> providerKind_;
    bool toolsEnabled_ = false;
    builtins::BuiltinSelection builtins_;
    std::vector<mcp::ServerConfig> servers_;
    std::optional<std::vector<mcp::Root>> roots_;
    mcp::SamplingPolicy allowSampling_;
    mcp::RequestHandler elicitation_;
    std::vector<std::filesystem::path> skillFolders_;
    skills::SkillLimits skillLimits_;
};

/// \brief `reagent::Agent::create()`: the entry point of the umbrella header.
struct Agent {
    /// \brief Starts a builder: `Agent::create().withProvider("anthropic").withTools().build()`.
    [[nodiscard]] static AgentBuilder create() { return AgentBuilder{}; }
};

}  // namespace reagent
