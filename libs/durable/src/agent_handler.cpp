// `agentHandler`: a durable run's input given to an agent, journaled; a paused run's decisions and results,
// given as the run's inputs, resume it.

#include <utility>

#include "reagent/core/json_fields.hpp"
#include "reagent/durable/worker.hpp"

namespace reagent::durable {

namespace {

using nlohmann::json;

json usageJson(const llm::Usage& usage) {
    return {{"inputTokens", usage.inputTokens},
            {"outputTokens", usage.outputTokens},
            {"cacheReadTokens", usage.cacheReadTokens},
            {"cacheWriteTokens", usage.cacheWriteTokens},
            {"reasoningTokens", usage.reasoningTokens}};
}

json callsJson(const std::vector<tools::ToolCallRequest>& calls) {
    json out = json::array();
    for (const auto& call : calls) {
        out.push_back({{"id", call.id}, {"name", call.name}, {"arguments", call.arguments}});
    }
    return out;
}

Finish finishOf(const agent::RunResult& result) {
    using agent::TerminatedBy;
    if (result.success()) {
        return {RunStatus::completed,
                {{"output", result.output},
                 {"iterations", result.iterations},
                 {"usage", usageJson(result.usage)}}};
    }
    if (result.terminatedBy == TerminatedBy::approval_required ||
        result.terminatedBy == TerminatedBy::external_tool_calls) {
        // Paused: the saved run waits for the decisions and results given as the run's inputs.
        return {RunStatus::waiting,
                {{"state", result.state},
                 {"pendingApprovals", callsJson(result.pendingApprovals)},
                 {"pendingToolCalls", callsJson(result.pendingToolCalls)},
                 {"usage", usageJson(result.usage)}}};
    }
    const RunStatus status =
        result.terminatedBy == TerminatedBy::cancelled ? RunStatus::cancelled : RunStatus::failed;
    return {status,
            {{"error", result.errorMessage},
             {"terminatedBy", agent::toString(result.terminatedBy)},
             {"usage", usageJson(result.usage)}}};
}

// The decisions and results given after the pause the run resumes from.
agent::ResumeInput resumeInputOf(const Claimed& claimed, std::int64_t after) {
    agent::ResumeInput input;
    for (const RunInput& given : claimed.inputs) {
        if (given.seq <= after) {
            continue;
        }
        if (given.kind == InputKind::decision) {
            input.decisions.push_back(agent::ApprovalDecision{
                given.callId, boolOr(given.payload, "approved", false), stringOr(given.payload, "reason")});
        } else if (given.kind == InputKind::result) {
            if (const auto error = given.payload.find("error"); error != given.payload.end()) {
                input.results.push_back(agent::ExternalResult{
                    given.callId, unexpected(tools::ToolError{
                                      tools::ToolErrc::failed,
                                      error->is_string() ? error->get<std::string>() : error->dump()})});
            } else {
                input.results.push_back(agent::ExternalResult{given.callId, stringOr(given.payload, "ok")});
            }
        }
    }
    return input;
}

Task<Finish> runAgent(agent::Agent agent, Claimed claimed, std::shared_ptr<agent::RunJournal> journal) {
    const json& input = claimed.run.input;
    const json& paused = claimed.run.outcome;
    if (paused.is_object() && paused.contains("state")) {
        agent::ResumeInput resume = resumeInputOf(claimed, paused.value("inputsSeen", std::int64_t{0}));
        resume.journal = std::move(journal);
        auto resumed = co_await agent.resumeWith(paused["state"], std::move(resume));
        if (!resumed) {
            co_return Finish{RunStatus::failed, {{"error", resumed.error().describe()}}};
        }
        co_return finishOf(*resumed);
    }
    const auto prompt = input.find("prompt");
    if (prompt == input.end() || !prompt->is_string()) {
        co_return Finish{
            RunStatus::failed,
            {{"error", "the run's input has no \"prompt\" (a string): nothing to ask the agent"}}};
    }
    agent::RunOptions options;
    options.journal = std::move(journal);
    if (const auto session = input.find("sessionState"); session != input.end() && session->is_object()) {
        options.sessionState = *session;
    }
    const agent::RunResult result = co_await agent.run(prompt->get<std::string>(), std::move(options));
    co_return finishOf(result);
}

}  // namespace

RunHandler agentHandler(agent::Agent agent) {
    return [agent = std::move(agent)](Claimed claimed, std::shared_ptr<agent::RunJournal> journal) {
        return runAgent(agent, std::move(claimed), std::move(journal));
    };
}

}  // namespace reagent::durable
