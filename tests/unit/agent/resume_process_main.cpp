// A separate program for the cross-process resume test (resume_process_test.cpp), see
// resume_process_scenario.hpp for the run:
//   resume_process start STATE             runs the scenario until it stops for the declaration-only
//                                          call, saves RunResult::state in STATE, prints the pending calls
//   resume_process resume STATE [ID=TEXT]  builds the same agent (its model holding only the replies after
//                                          the pause), resumes the saved run with the results given and
//                                          prints the RunResult's summary as JSON
// Exit status: 0 done; 2 usage or setup; 3 Agent::resume refused the state or the results (the error is
// printed as JSON {"error": {"code", "message"}, "modelCalls"}); 4 the state file is not JSON; 5 the run
// did not stop, or end, as the scenario says.
#include <unistd.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <exception>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "resume_process_scenario.hpp"

namespace {

using nlohmann::json;
namespace scenario = reagent::test::resume_scenario;
using reagent::agent::AgentError;
using reagent::agent::ExternalResult;
using reagent::agent::RunResult;
using reagent::agent::TerminatedBy;

template <class T>
std::optional<T> runTask(reagent::Task<T> task) {
    boost::asio::io_context io;
    std::optional<T> value;
    boost::asio::co_spawn(io, std::move(task), [&](std::exception_ptr error, T result) {
        if (!error) {
            value.emplace(std::move(result));
        }
    });
    io.run();
    return value;
}

int start(const std::string& path) {
    auto agent = scenario::buildAgent(scenario::provider(true));
    if (!agent) {
        std::cerr << agent.error().describe() << "\n";
        return 2;
    }
    const auto result = runTask(agent->run(scenario::kPrompt));
    if (!result || result->terminatedBy != TerminatedBy::external_tool_calls || !result->state.is_object()) {
        std::cerr << "the run did not stop for the declaration-only call\n";
        return 5;
    }
    std::ofstream(path) << result->state.dump(2) << "\n";
    json pending = json::array();
    for (const auto& call : result->pendingToolCalls) {
        pending.push_back({{"id", call.id}, {"name", call.name}, {"arguments", call.arguments}});
    }
    std::cout << json{{"pending", pending}, {"iterations", result->iterations}}.dump() << "\n";
    return 0;
}

// ID=TEXT: the call ID succeeded with TEXT; ID!TEXT: it failed with TEXT.
std::optional<ExternalResult> parseResult(const std::string& arg) {
    const auto at = arg.find_first_of("=!");
    if (at == std::string::npos || at == 0) {
        return std::nullopt;
    }
    ExternalResult made{arg.substr(0, at), std::string()};
    if (arg[at] == '=') {
        made.outcome = arg.substr(at + 1);
    } else {
        made.outcome = reagent::unexpected(
            reagent::tools::ToolError{reagent::tools::ToolErrc::failed, arg.substr(at + 1)});
    }
    return made;
}

int resume(const std::string& path, std::vector<ExternalResult> results) {
    std::ifstream in(path);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    json state = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (state.is_discarded()) {
        std::cout << json{{"error", {{"code", "not_json"}, {"message", path + " is not JSON"}}}}.dump()
                  << "\n";
        return 4;
    }
    // The first model call is in the state: this process's model holds only the replies after it.
    auto model = scenario::provider(false);
    auto agent = scenario::buildAgent(model);
    if (!agent) {
        std::cerr << agent.error().describe() << "\n";
        return 2;
    }
    const auto resumed = runTask(agent->resume(std::move(state), std::move(results)));
    if (!resumed) {
        std::cerr << "Agent::resume threw\n";
        return 5;
    }
    const json modelCalls = model->requests().size();
    if (!*resumed) {
        const AgentError& error = resumed->error();
        std::cout << json{{"error",
                           {{"code", std::string(reagent::agent::toString(error.code))},
                            {"message", error.message}}},
                          {"modelCalls", modelCalls}}
                         .dump()
                  << "\n";
        return 3;
    }
    json out = scenario::summary(**resumed);
    out["modelCalls"] = modelCalls;
    out["scriptLeft"] = model->remaining();
    std::cout << out.dump() << "\n";
    return (*resumed)->success() ? 0 : 5;
}

}  // namespace

int main(int argc, char** argv) {
    // Bounded whatever happens: a run that hangs is killed by SIGALRM and fails the test.
    ::alarm(30);
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (args.size() == 2 && args[0] == "start") {
        return start(args[1]);
    }
    if (args.size() >= 2 && args[0] == "resume") {
        std::vector<ExternalResult> results;
        for (std::size_t i = 2; i < args.size(); ++i) {
            auto result = parseResult(args[i]);
            if (!result) {
                std::cerr << "a result is ID=TEXT or ID!ERROR, not '" << args[i] << "'\n";
                return 2;
            }
            results.push_back(std::move(*result));
        }
        return resume(args[1], std::move(results));
    }
    std::cerr << "usage: resume_process start STATE | resume STATE [ID=TEXT|ID!ERROR]...\n";
    return 2;
}
