// 06 — Timeouts and errors: failures are values the model can react to, and the combinators are yours too.
//
// Part 1: inside an agent, a hanging tool is cut off by its timeout and invalid arguments are rejected
// before the handler runs; both come back to the model as tool errors, and the model corrects itself.
// Part 2: settle, withTimeout and retry, the same combinators the runtime uses, applied to your own tasks.

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "example_support.hpp"
#include "reagent/reagent.hpp"

using namespace reagent;
using namespace std::chrono_literals;
using nlohmann::json;

Task<void> sleepFor(std::chrono::milliseconds duration) {
    boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor, duration);
    co_await timer.async_wait(boost::asio::use_awaitable);
}

// Never answers in time: stands for a stuck network call.
Task<tools::ToolResult> hang(json, tools::ToolContext) {
    co_await sleepFor(10s);
    co_return "too late";
}

Task<tools::ToolResult> square(json args, tools::ToolContext) {
    const auto n = args.at("n").get<long long>();
    co_return std::to_string(n * n);
}

// The model's second turn: it reads both errors and retries only the call it can fix.
expected<llm::ModelReply, llm::ProviderError> correctTheCall(const llm::ModelRequest& request) {
    for (const auto& message : request.messages) {
        if (message.role == llm::Role::tool) {
            std::cout << "  the model reads: " << message.toolName << " -> " << message.text << "\n";
        }
    }
    llm::ModelReply reply;
    reply.toolCalls.push_back({"retry", "square", json{{"n", 7}}});
    return reply;
}

void partOneAgent() {
    std::cout << "part 1: tool errors inside a run\n";
    auto stuck = tools::ToolBuilder::create("slow_lookup")
                     .description("Look something up in a slow service")
                     .timeout(100ms)  // the per-call limit: the handler is cancelled when it runs out
                     .handler(hang)
                     .build();
    auto squarer = tools::ToolBuilder::create("square")
                       .description("Square an integer")
                       .param("n", "integer", "The integer to square", {.required = true})
                       .handler(square)
                       .build();

    // Turn 1 asks for the stuck tool and passes a string where an integer is required.
    std::vector<llm::ToolCall> firstTry{{"a", "slow_lookup", json::object()},
                                        {"b", "square", json{{"n", "seven"}}}};
    auto provider = std::make_shared<llm::ScriptedProvider>();
    provider->then(llm::ScriptedTurn::toolCalls(firstTry));
    provider->then(llm::ScriptedTurn::respond(correctTheCall));
    provider->then(llm::ScriptedTurn::respond([](const llm::ModelRequest& request) {
        llm::ModelReply reply;
        reply.text = "7 squared is " + request.messages.back().text + ".";
        return expected<llm::ModelReply, llm::ProviderError>(reply);
    }));

    auto agent = agent::Agent::create()
                     .withProvider(provider)
                     .withTool(std::move(stuck))
                     .withTool(std::move(squarer))
                     .build();
    examples::check(agent.has_value(), "the agent builds");

    const agent::RunResult result = examples::runTask(agent->run("What is 7 squared? Also look up 'x'."));
    std::cout << "  answer: " << result.output << "\n";

    examples::check(result.success() && result.iterations == 3 && result.toolCalls.size() == 3,
                    "three calls");
    const auto& timedOut = result.toolCalls[0];
    const auto& invalid = result.toolCalls[1];
    examples::check(!timedOut.succeeded() && timedOut.outcome.error().code == tools::ToolErrc::timeout,
                    "the hanging tool timed out");
    examples::check(timedOut.duration < 2s, "the timeout cut the call short");
    examples::check(
        !invalid.succeeded() && invalid.outcome.error().code == tools::ToolErrc::invalid_arguments,
        "the string argument was rejected before the handler ran");
    examples::check(result.output == "7 squared is 49.", "the corrected call answered");
}

// A flaky operation: fails on its first two attempts. Errors here are plain strings.
Task<expected<std::string, std::string>> flakyFetch(int attempt) {
    if (attempt < 3) {
        co_return fail("attempt " + std::to_string(attempt) + ": service unavailable");
    }
    co_return "payload on attempt " + std::to_string(attempt);
}

// Code that throws: a library you call, say.
Task<int> parseThatThrows() {
    throw std::runtime_error("unexpected token at line 3");
    co_return 0;
}

Task<std::string> sleepThenAnswer(std::chrono::milliseconds duration) {
    co_await sleepFor(duration);
    co_return "answered";
}

Task<int> partTwoCombinators() {
    std::cout << "part 2: combinators\n";

    // settle delivers how a task ended as a value: its result, or `exception` / `cancelled` with a message.
    auto parsed = co_await settle(parseThatThrows());
    std::cout << "  settle(a task that throws):   "
              << (parsed ? std::to_string(*parsed)
                         : std::string(toString(parsed.error().code)) + ": " + parsed.error().message)
              << "\n";

    // withTimeout races the task against a timer; the loser is cancelled. The outcome is a value.
    auto slow = co_await withTimeout(sleepThenAnswer(2s), 50ms);
    std::cout << "  withTimeout(2 s task, 50 ms): " << (slow ? *slow : slow.error().message) << "\n";
    auto quick = co_await withTimeout(sleepThenAnswer(1ms), 1s);
    std::cout << "  withTimeout(1 ms task, 1 s):  " << (quick ? *quick : quick.error().message) << "\n";

    // retry calls the attempt again with exponential backoff while the predicate says so.
    auto policy = RetryPolicy{};
    policy.maxAttempts = 5;
    policy.initialDelay = 10ms;
    int attempts = 0;
    // Bound to a name first: a capturing lambda must not be created inside a co_await expression.
    auto attempt = [&attempts] { return flakyFetch(++attempts); };
    auto transient = [](const std::string& error, int) {
        return error.find("unavailable") != std::string::npos;
    };
    auto fetched = co_await retry(policy, attempt, transient);
    std::cout << "  retry: " << (fetched ? *fetched : fetched.error()) << " after " << attempts
              << " attempts\n";

    const bool ok = !parsed && parsed.error().code == EffectErrc::exception && !slow &&
                    slow.error().code == EffectErrc::timeout && quick && *quick == "answered" && fetched &&
                    attempts == 3;
    co_return ok ? 0 : 1;
}

int main() {
    partOneAgent();
    const int status = examples::runTask(partTwoCombinators());
    examples::check(status == 0, "the combinators behaved as described");
    return 0;
}
