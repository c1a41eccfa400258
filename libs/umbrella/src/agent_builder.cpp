#include "reagent/umbrella/agent_builder.hpp"

#include <utility>

#include "documents_source.hpp"
#include "reagent/mcp/remote_transports.hpp"
#include "reagent/providers/from_environment.hpp"

namespace reagent {

namespace {

// Free coroutines: their frames hold the prepared builder, which the agent library's coroutines refer to.
Task<expected<agent::Agent, agent::AgentError>> buildPrepared(agent::AgentBuilder builder) {
    auto building = builder.buildAsync();
    co_return co_await std::move(building);
}

Task<expected<agent::RunResult, agent::AgentError>> runPrepared(agent::AgentBuilder builder,
                                                                std::string prompt) {
    auto running = builder.runOnce(std::move(prompt));
    co_return co_await std::move(running);
}

}  // namespace

AgentBuilder& AgentBuilder::withName(std::string name) {
    name_ = name;
    base_.withName(std::move(name));
    return *this;
}

AgentBuilder& AgentBuilder::withProvider(
    expected<std::shared_ptr<llm::Provider>, llm::ProviderError> provider) {
    providerKind_.reset();
    provider_ = provider ? *provider : nullptr;
    base_.withProvider(std::move(provider));
    return *this;
}

AgentBuilder& AgentBuilder::withProvider(std::string_view kind) {
    provider_.reset();
    providerKind_ = std::string(kind);
    return *this;
}

AgentBuilder& AgentBuilder::withTools(ToolsConfig config) {
    toolsEnabled_ = true;
    builtins_.include = std::move(config.include);
    builtins_.workspace = std::move(config.workspace);
    builtins_.readOnly = config.readOnly;
    builtins_.passEnvironment = std::move(config.passEnvironment);
    base_.withTools(static_cast<agent::ToolsConfig&&>(config));
    return *this;
}

AgentBuilder& AgentBuilder::withTools(std::vector<tools::Tool> tools) {
    toolsEnabled_ = true;
    base_.withTools(std::move(tools));
    return *this;
}

AgentBuilder& AgentBuilder::withTool(expected<tools::Tool, tools::ToolError> tool) {
    toolsEnabled_ = true;
    base_.withTool(std::move(tool));
    return *this;
}

AgentBuilder& AgentBuilder::withToolSource(
    expected<std::shared_ptr<tools::ToolSource>, tools::ToolError> source) {
    base_.withToolSource(std::move(source));
    return *this;
}

AgentBuilder& AgentBuilder::withRemoteAgent(std::string name, std::string url) {
    a2a::RemoteAgentSpec spec;
    spec.name = std::move(name);
    spec.url = std::move(url);
    return withRemoteAgent(std::move(spec));
}

AgentBuilder& AgentBuilder::withRemoteAgent(a2a::RemoteAgentSpec spec) {
    return withTool(a2a::remoteAgentTool(spec));
}

AgentBuilder& AgentBuilder::withAgentTool(std::string name, agent::Agent agent, std::string description) {
    toolsEnabled_ = true;
    base_.withAgentTool(std::move(name), std::move(agent), std::move(description));
    return *this;
}

AgentBuilder& AgentBuilder::withSkills(std::vector<std::filesystem::path> folders,
                                       skills::SkillLimits limits) {
    skillFolders_.insert(skillFolders_.end(), std::make_move_iterator(folders.begin()),
                         std::make_move_iterator(folders.end()));
    skillLimits_ = limits;
    return *this;
}

AgentBuilder& AgentBuilder::withReasoning() {
    base_.withReasoning();
    return *this;
}

AgentBuilder& AgentBuilder::withMetaTools(agent::MetaTools tools) {
    base_.withMetaTools(tools);
    return *this;
}

AgentBuilder& AgentBuilder::withToolSearch() {
    base_.withToolSearch();
    return *this;
}

AgentBuilder& AgentBuilder::withToolSearch(agent::ToolSearch search) {
    base_.withToolSearch(std::move(search));
    return *this;
}

AgentBuilder& AgentBuilder::withFindSource(std::shared_ptr<agent::FindSource> source) {
    base_.withFindSource(std::move(source));
    return *this;
}

AgentBuilder& AgentBuilder::withDocuments(std::shared_ptr<documents::Documents> documents,
                                          documents::RagIngestOptions ingest) {
    if (!documents) {
        base_.withFindSource(nullptr);  // reported by build(), as a null source
        return *this;
    }
    base_.withFindSource(umbrella::documentsFindSource(documents));
    base_.withTool(documents::ragIngestTool(std::move(documents), std::move(ingest)));
    return *this;
}

AgentBuilder& AgentBuilder::withMemory(agent::MemoryConfig config) {
    base_.withMemory(std::move(config));
    return *this;
}

AgentBuilder& AgentBuilder::withSystemPrompt(std::string prompt) {
    base_.withSystemPrompt(std::move(prompt));
    return *this;
}

AgentBuilder& AgentBuilder::withMaxIterations(int iterations) {
    base_.withMaxIterations(iterations);
    return *this;
}

AgentBuilder& AgentBuilder::withApprovalHandler(tools::ApprovalHandler handler) {
    base_.withApprovalHandler(std::move(handler));
    return *this;
}

AgentBuilder& AgentBuilder::withDeferredApproval() {
    base_.withDeferredApproval();
    return *this;
}

AgentBuilder& AgentBuilder::withEventHandler(agent::EventHandler handler) {
    base_.withEventHandler(std::move(handler));
    return *this;
}

AgentBuilder& AgentBuilder::withTemperature(double temperature) {
    base_.withTemperature(temperature);
    return *this;
}

AgentBuilder& AgentBuilder::withMaxTokens(int tokens) {
    base_.withMaxTokens(tokens);
    return *this;
}

AgentBuilder& AgentBuilder::withOutputSchema(nlohmann::json schema) {
    base_.withOutputSchema(std::move(schema));
    return *this;
}

AgentBuilder& AgentBuilder::withMaxOutputRetries(int retries) {
    base_.withMaxOutputRetries(retries);
    return *this;
}

AgentBuilder& AgentBuilder::withAttachmentStore(std::shared_ptr<agent::AttachmentStore> store,
                                                std::size_t inlineBelow) {
    base_.withAttachmentStore(std::move(store), inlineBelow);
    return *this;
}

AgentBuilder& AgentBuilder::withPrices(std::shared_ptr<const llm::PriceTable> prices) {
    base_.withPrices(std::move(prices));
    return *this;
}

AgentBuilder& AgentBuilder::withTelemetry(std::shared_ptr<telemetry::Telemetry> telemetry) {
    base_.withTelemetry(std::move(telemetry));
    return *this;
}

AgentBuilder& AgentBuilder::withBudget(agent::RunBudget budget) {
    base_.withBudget(budget);
    return *this;
}

AgentBuilder& AgentBuilder::withContextWindow(std::int64_t tokens) {
    base_.withContextWindow(tokens);
    return *this;
}

AgentBuilder& AgentBuilder::withCompaction(agent::CompactionOptions options) {
    base_.withCompaction(std::move(options));
    return *this;
}

AgentBuilder& AgentBuilder::withoutCompaction() {
    base_.withoutCompaction();
    return *this;
}

AgentBuilder& AgentBuilder::withMaxConcurrentOpens(std::size_t opens) {
    base_.withMaxConcurrentOpens(opens);
    return *this;
}

AgentBuilder& AgentBuilder::withMCP(mcp::ServerConfig server) {
    servers_.push_back(std::move(server));
    return *this;
}

AgentBuilder& AgentBuilder::withMCP(std::vector<mcp::ServerConfig> servers) {
    for (mcp::ServerConfig& server : servers) {
        servers_.push_back(std::move(server));
    }
    return *this;
}

AgentBuilder& AgentBuilder::withMCPRoots(std::vector<mcp::Root> roots) {
    roots_ = std::move(roots);
    return *this;
}

AgentBuilder& AgentBuilder::withMCPSampling(mcp::SamplingPolicy allow) {
    allowSampling_ = std::move(allow);
    return *this;
}

AgentBuilder& AgentBuilder::withMCPElicitation(mcp::RequestHandler handler) {
    elicitation_ = std::move(handler);
    return *this;
}

agent::AgentBuilder AgentBuilder::prepared() const {
    agent::AgentBuilder builder = base_;
    std::shared_ptr<llm::Provider> provider = provider_;
    if (providerKind_) {
        auto made = providers::fromEnvironment(*providerKind_);
        if (made) {
            provider = *made;
        }
        builder.withProvider(std::move(made));
    }
    if (toolsEnabled_) {
        builder.withToolSource(builtins::toolSource(builtins_));
    }
    if (!skillFolders_.empty()) {
        auto found = skills::loadSkills(skillFolders_, skillLimits_);
        if (found) {
            builder.withTool(skills::skillTool(std::move(*found), skillLimits_));
        } else {
            builder.withTool(unexpected(tools::ToolError{tools::ToolErrc::invalid_definition,
                                                         "skills: " + found.error().describe()}));
        }
    }
    for (std::size_t i = 0; i < servers_.size(); ++i) {
        const mcp::ServerConfig& server = servers_[i];
        bool duplicate = false;
        for (std::size_t j = 0; j < i; ++j) {
            duplicate = duplicate || servers_[j].name == server.name;
        }
        if (duplicate) {
            builder.withToolSource(unexpected(
                tools::ToolError{tools::ToolErrc::invalid_definition,
                                 "two MCP servers are named '" + server.name + "'; names must be unique"}));
            continue;
        }
        mcp::ToolSourceOptions options;
        options.clientInfo = mcp::Implementation{"reagent", "0.1.0", name_};
        options.roots = roots_;
        options.elicitation = elicitation_;
        options.transport = &mcp::makeAnyTransport;
        if (allowSampling_) {
            options.sampling = mcp::samplingWith(provider, allowSampling_, server.name);
        }
        builder.withToolSource(mcp::toolSource(server, std::move(options)));
    }
    return builder;
}

expected<agent::Agent, agent::AgentError> AgentBuilder::build() const {
    return prepared().build();
}

Task<expected<agent::Agent, agent::AgentError>> AgentBuilder::buildAsync() const {
    return buildPrepared(prepared());
}

Task<expected<agent::RunResult, agent::AgentError>> AgentBuilder::runOnce(std::string prompt) const {
    return runPrepared(prepared(), std::move(prompt));
}

}  // namespace reagent
