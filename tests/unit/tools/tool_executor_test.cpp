#include "reagent/tools/tool_executor.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "reagent/tools/tool_builder.hpp"
#include "run_coro.hpp"
#include "tool_probe.hpp"

using namespace reagent;
using namespace reagent::tools;
using namespace reagent::tools::test;
using namespace std::chrono_literals;
using nlohmann::json;
using reagent::test::runCoro;

namespace {

Task<ToolResult> answer(std::shared_ptr<int> counter, json args) {
    ++*counter;
    co_return "found " + args.value("query", std::string("?")) + " limit " +
        std::to_string(args.value("limit", 0));
}

Task<ToolResult> refuse() {
    co_return tl::make_unexpected(ToolError::failure("file not found: a.txt"));
}

Task<ToolResult> throwAfterSuspending() {
    co_await reagent::test::sleepFor(1ms);
    throw std::runtime_error("disk on fire");
}

Task<bool> decide(std::shared_ptr<json> seen, bool verdict, ToolCallRequest request) {
    *seen = request.arguments;
    co_return verdict;
}

Task<bool> brokenApprover() {
    co_await reagent::test::sleepFor(1ms);
    throw std::runtime_error("approval service down");
}

/// search(query: string required, limit: integer default 5), counting its calls.
Tool searchTool(std::shared_ptr<int> counter) {
    auto built = ToolBuilder::create("search")
                     .description("Search the catalog.")
                     .param("query", "string", "What to look for.", {.required = true})
                     .param("limit", "integer", "Maximum results.", {.defaultValue = 5})
                     .action([](const json& args) {
                         return "Searching for \"" + args.at("query").get<std::string>() + "\"";
                     })
                     .handler([counter](json args, ToolContext) { return answer(counter, std::move(args)); })
                     .build();
    REQUIRE(built);
    return std::move(*built);
}

Tool toolWith(std::string name, ToolHandler handler, std::chrono::milliseconds timeout = 30s) {
    auto built = ToolBuilder::create(std::move(name))
                     .description("A test tool.")
                     .timeout(timeout)
                     .handler(std::move(handler))
                     .build();
    REQUIRE(built);
    return std::move(*built);
}

}  // namespace

TEST_CASE("a successful call is fully recorded", "[tools][executor]") {
    auto counter = std::make_shared<int>(0);
    ToolRegistry registry;
    REQUIRE(registry.add(searchTool(counter)));
    ToolExecutor executor(registry);

    const auto before = std::chrono::system_clock::now();
    const ToolCallRecord record =
        runCoro(executor.executeOne(call("c1", "search", json{{"query", "cats"}}), 2));
    REQUIRE(record.succeeded());
    CHECK(*record.outcome == "found cats limit 5");
    CHECK(record.id == "c1");
    CHECK(record.tripIndex == 2);
    CHECK(record.name == "search");
    CHECK(record.input == json{{"query", "cats"}, {"limit", 5}});
    CHECK(record.mode == ToolMode::feedback);
    CHECK(record.startedAt >= before);
    CHECK(record.endedAt >= record.startedAt);
    CHECK(record.duration.count() >= 0);
    CHECK(*counter == 1);
}

TEST_CASE("invalid arguments never reach the handler", "[tools][executor]") {
    auto counter = std::make_shared<int>(0);
    ToolRegistry registry;
    REQUIRE(registry.add(searchTool(counter)));
    ToolExecutor executor(registry);

    const json raw{{"limit", "ten"}};
    const ToolCallRecord record = runCoro(executor.executeOne(call("c1", "search", raw), 0));
    REQUIRE_FALSE(record.succeeded());
    CHECK(record.outcome.error().code == ToolErrc::invalid_arguments);
    CHECK_THAT(record.outcome.error().message, Catch::Contains("at /limit: Value type not permitted"));
    CHECK_THAT(record.outcome.error().message, Catch::Contains("Missing required property 'query'"));
    CHECK(record.input == raw);
    CHECK(*counter == 0);
}

TEST_CASE("an unknown tool is reported with the available names", "[tools][executor]") {
    auto counter = std::make_shared<int>(0);
    ToolRegistry registry;
    REQUIRE(registry.add(searchTool(counter)));
    REQUIRE(registry.add(toolWith("fetch", [](json, ToolContext) { return refuse(); })));
    ToolExecutor executor(registry);

    const ToolCallRecord record = runCoro(executor.executeOne(call("c1", "serach", json{{"q", 1}}), 0));
    REQUIRE_FALSE(record.succeeded());
    CHECK(record.outcome.error().code == ToolErrc::unknown_tool);
    CHECK(record.outcome.error().message == "unknown tool 'serach'; available tools: search, fetch");
    CHECK(record.input == json{{"q", 1}});

    ToolRegistry empty;
    ToolExecutor bare(empty);
    const ToolCallRecord none = runCoro(bare.executeOne(call("c2", "x"), 0));
    CHECK(none.outcome.error().message == "unknown tool 'x'; no tools are registered");
}

TEST_CASE("a hanging tool times out", "[tools][executor][timeout]") {
    auto probe = std::make_shared<Probe>();
    ToolRegistry registry;
    REQUIRE(registry.add(toolWith(
        "hang",
        [probe](json, ToolContext context) { return sleepThenAnswer(probe, 10s, std::move(context)); },
        100ms)));
    ToolExecutor executor(registry);

    const auto start = Clock::now();
    const ToolCallRecord record = runCoro(executor.executeOne(call("c1", "hang"), 0));
    const auto elapsed = ms(Clock::now() - start);
    REQUIRE_FALSE(record.succeeded());
    CHECK(record.outcome.error().code == ToolErrc::timeout);
    CHECK(record.outcome.error().message == "tool hang timed out after 100 ms");
    CHECK(elapsed >= 95);
    CHECK(elapsed < 1000);
    CHECK(probe->cancelled == 1);  // the handler was cancelled, not left running
}

TEST_CASE("handler failures are contained", "[tools][executor]") {
    ToolRegistry registry;
    REQUIRE(registry.add(toolWith("refuse", [](json, ToolContext) { return refuse(); })));
    REQUIRE(registry.add(toolWith("boom", [](json, ToolContext) { return throwAfterSuspending(); })));
    REQUIRE(registry.add(toolWith("eager", [](json, ToolContext) -> Task<ToolResult> {
        throw std::logic_error("thrown before any task existed");
    })));
    ToolExecutor executor(registry);

    const ToolCallRecord refused = runCoro(executor.executeOne(call("c1", "refuse"), 0));
    CHECK(refused.outcome.error().code == ToolErrc::failed);
    CHECK(refused.outcome.error().message == "file not found: a.txt");

    const ToolCallRecord thrown = runCoro(executor.executeOne(call("c2", "boom"), 0));
    CHECK(thrown.outcome.error().code == ToolErrc::exception);
    CHECK(thrown.outcome.error().message == "tool boom threw: disk on fire");

    const ToolCallRecord eager = runCoro(executor.executeOne(call("c3", "eager"), 0));
    CHECK(eager.outcome.error().code == ToolErrc::exception);
    CHECK_THAT(eager.outcome.error().message, Catch::Contains("thrown before any task existed"));
}

TEST_CASE("the approval gate", "[tools][executor][approval]") {
    auto counter = std::make_shared<int>(0);
    Tool tool = searchTool(counter);
    tool.definition.requiresApproval = true;
    ToolRegistry registry;
    REQUIRE(registry.add(std::move(tool)));
    ToolExecutor executor(registry);
    auto seen = std::make_shared<json>();

    SECTION("no approval handler: refused, the handler never runs") {
        const ToolCallRecord record =
            runCoro(executor.executeOne(call("c1", "search", json{{"query", "x"}}), 0));
        CHECK(record.outcome.error().code == ToolErrc::approval_unavailable);
        CHECK(record.outcome.error().message ==
              "refused: tool search requires approval and no approval handler is set");
        CHECK(*counter == 0);
    }
    SECTION("approved: runs, and the approver saw the validated arguments") {
        executor.setApprovalHandler([seen](ToolCallRequest request, ToolDefinition) {
            return decide(seen, true, std::move(request));
        });
        const ToolCallRecord record =
            runCoro(executor.executeOne(call("c1", "search", json{{"query", "x"}}), 0));
        CHECK(record.succeeded());
        CHECK(*counter == 1);
        CHECK(*seen == json{{"query", "x"}, {"limit", 5}});
    }
    SECTION("denied") {
        executor.setApprovalHandler([seen](ToolCallRequest request, ToolDefinition) {
            return decide(seen, false, std::move(request));
        });
        const ToolCallRecord record =
            runCoro(executor.executeOne(call("c1", "search", json{{"query", "x"}}), 0));
        CHECK(record.outcome.error().code == ToolErrc::approval_denied);
        CHECK(record.outcome.error().message == "refused: the call to tool search was not approved");
        CHECK(*counter == 0);
    }
    SECTION("an approver that throws denies") {
        executor.setApprovalHandler([](ToolCallRequest, ToolDefinition) { return brokenApprover(); });
        const ToolCallRecord record =
            runCoro(executor.executeOne(call("c1", "search", json{{"query", "x"}}), 0));
        CHECK(record.outcome.error().code == ToolErrc::approval_denied);
        CHECK_THAT(record.outcome.error().message, Catch::Contains("approval service down"));
        CHECK(*counter == 0);
    }
    SECTION("tools without the flag are not gated") {
        auto other = std::make_shared<int>(0);
        Tool plain = searchTool(other);
        plain.definition.name = "plain_search";
        REQUIRE(registry.add(std::move(plain)));
        CHECK(runCoro(executor.executeOne(call("c1", "plain_search", json{{"query", "x"}}), 0)).succeeded());
    }
    SECTION("an approval rule asks only for the calls it names, and one that throws asks") {
        auto ruled = std::make_shared<int>(0);
        Tool gated = searchTool(ruled);
        gated.definition.name = "ruled_search";
        gated.definition.requiresApproval = true;
        gated.definition.approvalRule = [](const json& args) {
            if (args.at("query") == "boom") {
                throw std::runtime_error("rule broken");
            }
            return args.at("query") != "harmless";
        };
        REQUIRE(registry.add(std::move(gated)));
        const ToolCallRecord harmless =
            runCoro(executor.executeOne(call("c1", "ruled_search", json{{"query", "harmless"}}), 0));
        CHECK(harmless.succeeded());
        const ToolCallRecord other =
            runCoro(executor.executeOne(call("c2", "ruled_search", json{{"query", "other"}}), 0));
        REQUIRE_FALSE(other.succeeded());
        CHECK(other.outcome.error().code == ToolErrc::approval_unavailable);
        const ToolCallRecord broken =
            runCoro(executor.executeOne(call("c3", "ruled_search", json{{"query", "boom"}}), 0));
        REQUIRE_FALSE(broken.succeeded());
        CHECK(broken.outcome.error().code == ToolErrc::approval_unavailable);
        CHECK(*ruled == 1);
    }
}

TEST_CASE("a declaration-only tool is not executable", "[tools][executor]") {
    auto built =
        ToolBuilder::create("lookup_customer").description("Find a customer.").declarationOnly().build();
    REQUIRE(built);
    ToolRegistry registry;
    REQUIRE(registry.add(std::move(*built)));
    ToolExecutor executor(registry);
    const ToolCallRecord record = runCoro(executor.executeOne(call("c1", "lookup_customer"), 0));
    CHECK(record.outcome.error().code == ToolErrc::not_executable);
    CHECK(record.outcome.error().message ==
          "tool lookup_customer is declaration-only: its caller executes it");
}

namespace {

// Uses the caller's channel: one request, one notification, a content block and a structured value.
Task<ToolResult> useChannel(ToolContext context) {
    if (!context.request || !context.notify) {
        co_return std::string("no channel");
    }
    context.notify("note", json{{"n", 1}});
    auto asked = context.request("ask", json{{"q", 2}});
    auto answered = co_await std::move(asked);
    if (!answered) {
        co_return tl::make_unexpected(answered.error());
    }
    context.content->push_back(json{{"type", "image"}});
    *context.structured = *answered;
    co_return std::string("asked");
}

Task<expected<json, ToolError>> echoRequest(std::string method, json params) {
    co_return json{{"method", method}, {"params", params}};
}

}  // namespace

TEST_CASE("a call's channel reaches its handler, and its rich results the record", "[tools][executor]") {
    ToolRegistry registry;
    REQUIRE(registry.add(
        toolWith("chan", [](json, ToolContext context) { return useChannel(std::move(context)); })));
    ToolExecutor executor(registry);

    const auto plain = runCoro(executor.executeOne(call("c1", "chan", json::object()), 0));
    CHECK(*plain.outcome == "no channel");  // an agent's calls have none
    CHECK(plain.content.empty());
    CHECK(plain.structured.is_null());

    auto notes = std::make_shared<std::vector<std::string>>();
    auto channel = std::make_shared<CallChannel>();
    channel->request = echoRequest;
    channel->notify = [notes](std::string method, json) { notes->push_back(method); };
    auto request = call("c2", "chan", json::object());
    request.channel = channel;
    const auto record = runCoro(executor.executeOne(std::move(request), 0));
    CHECK(*record.outcome == "asked");
    CHECK(*notes == std::vector<std::string>{"note"});
    CHECK(record.content == std::vector<json>{json{{"type", "image"}}});
    CHECK(record.structured == json{{"method", "ask"}, {"params", {{"q", 2}}}});
}
