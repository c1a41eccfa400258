#pragma once
// Instrumented tools for the executor tests: they record when each call ran and how many overlapped.

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "reagent/tools/tool_builder.hpp"
#include "reagent/tools/tool_registry.hpp"
#include "run_coro.hpp"

namespace reagent::tools::test {

using Clock = std::chrono::steady_clock;

struct Span {
    Clock::time_point start;
    Clock::time_point end;
};

/// Shared by the tools of one test: counts calls, overlap and cancellations.
struct Probe {
    int calls = 0;
    int running = 0;
    int maxRunning = 0;
    int cancelled = 0;
    std::map<std::string, Span> spans;  // by call id
    std::vector<std::string> finished;  // call ids in completion order
};

// A free coroutine (parameters by value) so nothing it uses can die while it sleeps.
inline Task<ToolResult> sleepThenAnswer(std::shared_ptr<Probe> probe, std::chrono::milliseconds delay,
                                        ToolContext context) {
    ++probe->calls;
    probe->maxRunning = std::max(probe->maxRunning, ++probe->running);
    probe->spans[context.callId].start = Clock::now();
    bool aborted = false;
    try {
        co_await reagent::test::sleepFor(delay);
    } catch (...) {
        aborted = true;
    }
    --probe->running;
    probe->spans[context.callId].end = Clock::now();
    if (aborted) {
        ++probe->cancelled;
        co_return tl::make_unexpected(ToolError::failure("interrupted"));
    }
    probe->finished.push_back(context.callId);
    co_return "done " + context.callId;
}

/// A tool that sleeps `delay` (or args["ms"] when given) and answers "done <call id>".
inline Tool sleepingTool(std::string name, std::shared_ptr<Probe> probe, std::chrono::milliseconds delay,
                         bool sideEffect = false) {
    auto built = ToolBuilder::create(std::move(name))
                     .description("Sleeps, then answers.")
                     .param("ms", "integer", "How long to sleep, in milliseconds.")
                     .sideEffect(sideEffect)
                     .handler([probe, delay](nlohmann::json args, ToolContext context) {
                         const auto ms = std::chrono::milliseconds(args.value("ms", delay.count()));
                         return sleepThenAnswer(probe, ms, std::move(context));
                     })
                     .build();
    REQUIRE(built);
    return std::move(*built);
}

inline ToolCallRequest call(std::string id, std::string name,
                            nlohmann::json args = nlohmann::json::object()) {
    return ToolCallRequest{std::move(id), std::move(name), std::move(args)};
}

inline long long ms(Clock::duration d) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
}

}  // namespace reagent::tools::test
