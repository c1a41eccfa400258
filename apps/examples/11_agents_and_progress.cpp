// 11 — Agents as tools, and tools that report progress.
//
// A parent agent can delegate part of its task to another agent in the same process: withAgentTool makes
// the sub-agent a tool (input {message}, output its answer), and each call is one whole run of it, with
// its own model, tools and iteration budget. A long tool can tell the caller how far it has got with
// ToolContext::reportProgress; each report is a tools::ToolProgressed event for the agent's subscribers
// (the reagent CLI prints them as "progress" lines; an A2A server streams them to its client).

#include <algorithm>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <iostream>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "example_support.hpp"
#include "reagent/reagent.hpp"

using namespace reagent;
using nlohmann::json;

// 1. A tool that takes a while and says so: one report per step, `progress` of `total`, with a message.
//    reportProgress does nothing when nobody listens, so a tool can always call it.
Task<tools::ToolResult> downloadReports(json args, tools::ToolContext context) {
    const int count = args.value("count", 3);
    std::vector<std::string> names;
    for (int i = 1; i <= count; ++i) {
        boost::asio::steady_timer step(context.executor, std::chrono::milliseconds(20));  // the "download"
        co_await step.async_wait(boost::asio::use_awaitable);
        names.push_back("report-" + std::to_string(i));
        context.reportProgress(tools::ToolProgress{static_cast<double>(i), static_cast<double>(count),
                                                   "downloaded " + names.back()});
    }
    co_return json(names).dump();
}

// The models' replies read their requests, as real models would: each quotes the last tool result.
std::string lastMessage(const llm::ModelRequest& request) {
    return request.messages.back().text;
}

expected<llm::ModelReply, llm::ProviderError> delegateSummary(const llm::ModelRequest& request) {
    llm::ModelReply reply;
    reply.toolCalls.push_back(
        {"s1", "summarizer", json{{"message", "Summarise these reports: " + lastMessage(request)}}});
    return reply;
}

expected<llm::ModelReply, llm::ProviderError> summarise(const llm::ModelRequest& request) {
    llm::ModelReply reply;
    const std::string task = lastMessage(request);
    reply.text =
        "All " + std::to_string(std::count(task.begin(), task.end(), ',') + 1) + " reports are green.";
    return reply;
}

expected<llm::ModelReply, llm::ProviderError> answer(const llm::ModelRequest& request) {
    llm::ModelReply reply;
    reply.text = "The summarizer says: " + lastMessage(request);
    return reply;
}

int main() {
    // 2. The sub-agent: its own model (here scripted) and no tools of its own.
    auto subModel = std::make_shared<llm::ScriptedProvider>();
    subModel->then(llm::ScriptedTurn::respond(summarise));
    auto summarizer = agent::Agent::create().withName("summarizer").withProvider(subModel).build();
    examples::check(summarizer.has_value(), "the sub-agent builds");

    // 3. The parent: the download tool, and the sub-agent as the tool "summarizer". Its model downloads,
    //    delegates the summary, then answers from the sub-agent's reply.
    auto download = tools::ToolBuilder::create("download_reports")
                        .description("Download the latest reports; returns their names as a JSON array")
                        .param("count", "integer", "How many reports", {.required = true})
                        .action("Downloading the reports")
                        .handler(downloadReports)
                        .build();
    auto parentModel = std::make_shared<llm::ScriptedProvider>();
    parentModel->then(llm::ScriptedTurn::toolCall("download_reports", json{{"count", 3}}, "d1"));
    parentModel->then(llm::ScriptedTurn::respond(delegateSummary));
    parentModel->then(llm::ScriptedTurn::respond(answer));
    auto parent = agent::Agent::create()
                      .withName("parent")
                      .withProvider(parentModel)
                      .withTool(std::move(download))
                      .withAgentTool("summarizer", *summarizer, "Summarises reports; give it their names")
                      .build();
    examples::check(parent.has_value(), "the parent builds");

    // 4. Subscribe to the parent's events: tool calls starting and ending, and the progress reports.
    //    The sub-agent's events come nested under the call that delegated to it (SubAgentEvent).
    std::vector<tools::ToolProgress> reports;
    int nested = 0;
    const auto subscription = parent->subscribe([&reports, &nested](const agent::AgentEvent& event) {
        if (const auto* calling = std::get_if<tools::ToolCalling>(&event)) {
            std::cout << "  -> " << calling->tool << ": " << calling->action << "\n";
        } else if (const auto* progressed = std::get_if<tools::ToolProgressed>(&event)) {
            const tools::ToolProgress& progress = progressed->progress;
            std::cout << "  progress " << progressed->tool << ": " << progress.progress << "/"
                      << progress.total.value_or(0) << " " << progress.message << "\n";
            reports.push_back(progress);
        } else if (const auto* called = std::get_if<tools::ToolCalled>(&event)) {
            std::cout << "  <- " << called->record.name << ": " << called->record.outcome.value_or("")
                      << "\n";
        } else if (const auto* sub = std::get_if<agent::SubAgentEvent>(&event)) {
            ++nested;
            if (std::holds_alternative<agent::RunStarted>(sub->inner->event)) {
                std::cout << "     " << sub->tool << " (call " << sub->callId
                          << ") starts a run of its own\n";
            } else if (const auto* finished = std::get_if<agent::RunFinished>(&sub->inner->event)) {
                std::cout << "     " << sub->tool << " finished: " << agent::toString(finished->terminatedBy)
                          << "\n";
            }
        }
    });

    const agent::RunResult result = examples::runTask(parent->run("How are the latest reports?"));
    parent->unsubscribe(subscription);
    std::cout << "answer: " << result.output << "\n";

    examples::check(result.success(), "the parent answered");
    examples::check(result.output == "The summarizer says: All 3 reports are green.",
                    "the answer comes from the sub-agent");
    examples::check(reports.size() == 3 && reports.back().progress == 3 && reports.back().total == 3.0,
                    "three progress reports, the last one 3/3");
    examples::check(result.toolCalls.size() == 2 && result.toolCalls[1].name == "summarizer" &&
                        result.toolCalls[1].succeeded(),
                    "the delegation is an ordinary tool call");
    examples::check(subModel->requests().size() == 1, "the sub-agent ran once, with its own model");
    examples::check(nested >= 3, "the sub-agent's run showed nested under the delegating call");
    return 0;
}
