// 10 — Workflows: agents and functions composed in sequence, in parallel and behind a router, run as one
// task or handed to another agent as one tool.
//
// Part 1: a research workflow: two researchers at once (parallel fan-out), then a writer (sequential).
// Part 2: a support desk: a classifier agent picks the route (router).
// Part 3: the research workflow as a lead agent's tool; when the writer's provider is down, the lead reads
// a tool error naming the workflow and the step, whose root cause is the writer's own error.
// Every model is a ScriptedProvider, so the example runs offline.

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "example_support.hpp"
#include "reagent/reagent.hpp"

using namespace reagent;
using agent::Workflow;
using nlohmann::json;

// An agent whose model answers `answers` in order, one per run.
agent::Agent scripted(std::string name, std::vector<std::string> answers) {
    auto provider = std::make_shared<llm::ScriptedProvider>();
    for (auto& answer : answers) {
        provider->then(llm::ScriptedTurn::text(std::move(answer)));
    }
    auto made = agent::Agent::create().withName(std::move(name)).withProvider(provider).build();
    examples::check(made.has_value(), "a scripted agent builds");
    return *made;
}

// A plain function step: any coroutine from text to text (or a ToolError).
Task<agent::StepResult> shout(std::string input) {
    co_return input + "!";
}

llm::ProviderError down() {
    llm::ProviderError error;
    error.code = llm::ProviderErrc::server_error;
    error.message = "writer model unavailable";
    return error;
}

int main() {
    // 1. Parallel fan-out, then a writer: Workflow values nest as steps. Construction checks the shape
    //    (names, duplicates, empty lists) and reports every problem at once, as AgentBuilder::build does.
    auto gather = Workflow::parallel(
        "gather", {Workflow::Step::fromAgent("web", scripted("web", {"otters use tools"})),
                   Workflow::Step::fromAgent("papers", scripted("papers", {"otters hold hands"}))});
    examples::check(gather.has_value(), "the parallel workflow builds");
    auto writer = scripted("writer", {"Otters use tools and hold hands while they sleep."});
    auto research = Workflow::sequential(
        "research", {Workflow::Step::fromWorkflow({}, *gather), Workflow::Step::fromAgent("writer", writer),
                     Workflow::Step::fromFunction("emphasis", shout)});
    examples::check(research.has_value(), "the sequential workflow builds");

    const auto report = examples::runTask(research->run("What is remarkable about otters?"));
    examples::check(report.has_value(), "the research workflow succeeds");
    std::cout << "research: " << *report << "\n";
    // The writer's input was the gather step's output: a JSON array of {step, output}, in step order.
    examples::check(*report == "Otters use tools and hold hands while they sleep.!",
                    "outputs flow step to step");

    // 2. A router: the classifier's answer (untrusted text) is matched against the route names.
    auto desk =
        Workflow::router("support", Workflow::Route::byAgent(scripted("triage", {"Billing"})),
                         {Workflow::Step::fromAgent("billing", scripted("billing", {"Refund issued."})),
                          Workflow::Step::fromAgent("tech", scripted("tech", {"Try turning it off."}))});
    examples::check(desk.has_value(), "the router builds");
    const auto answer = examples::runTask(desk->run("I was charged twice"));
    examples::check(answer.has_value() && *answer == "Refund issued.", "the router picks the billing route");
    std::cout << "support: " << *answer << "\n";

    // 3. The workflow as a tool. This time the writer's model is down.
    auto failingWriterProvider = std::make_shared<llm::ScriptedProvider>();
    failingWriterProvider->then(llm::ScriptedTurn::error(down()));
    auto failingWriter =
        agent::Agent::create().withName("writer").withProvider(failingWriterProvider).build();
    auto fragile = Workflow::sequential(
        "research", {Workflow::Step::fromAgent("notes", scripted("notes", {"otters float"})),
                     Workflow::Step::fromAgent("writer", *failingWriter)});
    examples::check(fragile.has_value(), "the second workflow builds");

    auto leadProvider = std::make_shared<llm::ScriptedProvider>();
    leadProvider->then(llm::ScriptedTurn::toolCall("research", {{"message", "otters"}}))
        .then(llm::ScriptedTurn::text("The research workflow failed; I will answer from memory."));
    agent::ToolsConfig tools;
    tools.tools.push_back(fragile->asTool("Research a topic and write a short report"));
    auto lead = agent::Agent::create().withProvider(leadProvider).withTools(tools).build();
    examples::check(lead.has_value(), "the lead agent builds");

    const agent::RunResult result = examples::runTask(lead->run("Tell me about otters"));
    examples::check(result.success() && result.toolCalls.size() == 1,
                    "the lead ran and called the workflow once");
    const auto& call = result.toolCalls[0];
    examples::check(!call.succeeded(), "the workflow call failed");
    const tools::ToolError& error = call.outcome.error();
    std::cout << "tool error: " << error.describe() << "\n";
    for (const tools::ErrorCause* cause : error.causes()) {
        std::cout << "  caused by " << cause->describe() << "\n";
    }
    const tools::ErrorCause* root = error.rootCause();
    examples::check(root != nullptr && root->domain == "agent" && root->code == "provider_failed",
                    "the root cause is the writer's own error");
    std::cout << "lead: " << result.output << "\n";
    return 0;
}
