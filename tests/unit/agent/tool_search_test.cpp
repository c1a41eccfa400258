// Tools on demand and the find meta-tool: above the threshold (or with withToolSearch) the model is offered
// find and the core tools, and each tool it finds or calls is offered from the next request on; find also
// searches working memory, episodes and find sources; a paused run keeps the tools it found.

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <memory>
#include <reagent/reagent.hpp>
#include <string>
#include <vector>

#include "run_coro.hpp"

using nlohmann::json;
using reagent::Task;
using reagent::agent::Agent;
using reagent::agent::FindHit;
using reagent::agent::FindSource;
using reagent::agent::RunResult;
using reagent::agent::ToolSearch;
using reagent::llm::ScriptedProvider;
using reagent::llm::ScriptedTurn;
using reagent::test::runCoro;

namespace {

// "weather-forecast", "mail-send", ...: a catalogue of services and verbs, each tool with a parameter.
std::vector<reagent::tools::Tool> catalogue(std::size_t count) {
    const std::vector<std::string> services = {"weather", "mail",  "calendar", "billing", "crm",
                                               "storage", "issue", "deploy",   "chat",    "maps"};
    const std::vector<std::string> verbs = {"forecast", "send",   "list",    "create", "delete",
                                            "update",   "search", "archive", "export", "import"};
    std::vector<reagent::tools::Tool> tools;
    for (std::size_t i = 0; i < count; ++i) {
        const std::string service = services[i % services.size()];
        const std::string verb = verbs[(i / services.size()) % verbs.size()];
        const std::string name = service + "-" + verb + (i >= 100 ? "-" + std::to_string(i) : "");
        auto tool =
            reagent::tools::ToolBuilder::create(name)
                .description("Does " + verb + " on " + service + " records")
                .param("target", "string", "which " + service + " record", {})
                .handler([name](json args, reagent::tools::ToolContext) -> Task<reagent::tools::ToolResult> {
                    co_return name + " done for " + args.value("target", std::string());
                })
                .build();
        tools.push_back(std::move(*tool));
    }
    return tools;
}

std::vector<std::string> offered(const reagent::llm::ModelRequest& request) {
    std::vector<std::string> names;
    for (const auto& spec : request.tools) {
        names.push_back(spec.name);
    }
    return names;
}

bool offers(const reagent::llm::ModelRequest& request, const std::string& name) {
    const auto names = offered(request);
    return std::find(names.begin(), names.end(), name) != names.end();
}

// An agent with the catalogue's first `count` tools.
reagent::expected<Agent, reagent::agent::AgentError> agentWith(
    const std::shared_ptr<ScriptedProvider>& provider, std::size_t count) {
    return Agent::create().withProvider(provider).withTools(catalogue(count)).build();
}

// A find source in memory: passages that contain the query's first word.
class Passages final : public FindSource {
  public:
    explicit Passages(std::vector<FindHit> hits, bool broken = false)
        : hits_(std::move(hits)), broken_(broken) {}
    [[nodiscard]] std::string kind() const override { return kind_; }
    Task<reagent::expected<std::vector<FindHit>, reagent::tools::ToolError>> find(
        std::string query, std::size_t limit) override {
        if (broken_) {
            co_return reagent::fail(reagent::tools::ToolError::failure("the index is locked"));
        }
        std::vector<FindHit> out;
        const std::string word = query.substr(0, query.find(' '));
        for (const FindHit& hit : hits_) {
            if (hit.text.find(word) != std::string::npos && out.size() < limit) {
                out.push_back(hit);
            }
        }
        co_return out;
    }
    std::string kind_ = "documents";

  private:
    std::vector<FindHit> hits_;
    bool broken_;
};

}  // namespace

TEST_CASE("above the threshold the model gets find and finds the tools it needs", "[agent][find]") {
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall("find", {{"query", "weather forecast"}}))
        .then(ScriptedTurn::toolCall("weather-forecast", {{"target", "Paris"}}))
        .then(ScriptedTurn::text("sunny"));
    auto agent = agentWith(provider, 100);
    REQUIRE(agent);
    const RunResult result = runCoro(agent->run("What is the weather in Paris?"));
    REQUIRE(result.success());
    CHECK(result.output == "sunny");
    const auto& requests = provider->requests();
    REQUIRE(requests.size() == 3);
    // The first request: the meta-tools only.
    CHECK(offered(requests[0]) == std::vector<std::string>{"recall", "find"});
    // find's hit is offered from the next request on, after the core set, and stays.
    CHECK(offers(requests[1], "weather-forecast"));
    CHECK(offered(requests[1]).front() == "recall");
    CHECK(offers(requests[2], "weather-forecast"));
    CHECK(requests[1].tools.size() <= 2 + 5);
    // What find told the model: the tool, its parameters, and that it can call it.
    const auto& found = result.toolCalls.at(0);
    REQUIRE(found.succeeded());
    INFO(*found.outcome);
    CHECK(found.outcome->find("- weather-forecast: Does forecast on weather records. Parameters: target.") !=
          std::string::npos);
    CHECK(found.structured.at("tools").at(0).at("name") == "weather-forecast");
    CHECK(result.toolCalls.at(1).outcome.value() == "weather-forecast done for Paris");
    // The agent's own list is unchanged: every tool is registered.
    CHECK(agent->toolDefinitions().size() == 102);
    CHECK_FALSE(agent->unregisterTool("find"));
}

TEST_CASE("below the threshold every tool is offered and find is not", "[agent][find]") {
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::text("ok"));
    auto agent = agentWith(provider, 20);
    REQUIRE(agent);
    REQUIRE(runCoro(agent->run("hi")).success());
    CHECK(provider->requests().at(0).tools.size() == 21);
    CHECK_FALSE(offers(provider->requests().at(0), "find"));

    SECTION("registering past the threshold starts the search") {
        auto more = catalogue(120);
        for (std::size_t i = 20; i < more.size(); ++i) {  // the first 20 are registered already
            REQUIRE(agent->registerTool(std::move(more[i])));
        }
        provider->then(ScriptedTurn::text("ok"));
        REQUIRE(runCoro(agent->run("hi")).success());
        CHECK(offered(provider->requests().at(1)) == std::vector<std::string>{"recall", "find"});
    }
}

TEST_CASE("withToolSearch keeps the core tools offered and off turns it off", "[agent][find]") {
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::text("ok"));
    SECTION("always, with a core tool and reasoning") {
        ToolSearch search;
        search.mode = ToolSearch::Mode::always;
        search.core = {"mail-forecast", "not-a-tool"};
        auto agent = Agent::create()
                         .withProvider(provider)
                         .withTools(reagent::agent::ToolsConfig{})
                         .withTools(catalogue(5))
                         .withReasoning()
                         .withToolSearch(search)
                         .build();
        REQUIRE(agent);
        REQUIRE(runCoro(agent->run("hi")).success());
        CHECK(offered(provider->requests().at(0)) == std::vector<std::string>{"final-answer", "task-complete",
                                                                              "context-status", "recall",
                                                                              "mail-forecast", "find"});
    }
    SECTION("off, with 200 tools") {
        ToolSearch search;
        search.mode = ToolSearch::Mode::off;
        auto agent = Agent::create()
                         .withProvider(provider)
                         .withTools(reagent::agent::ToolsConfig{})
                         .withTools(catalogue(200))
                         .withToolSearch(search)
                         .build();
        REQUIRE(agent);
        REQUIRE(runCoro(agent->run("hi")).success());
        CHECK(provider->requests().at(0).tools.size() == 201);
        CHECK_FALSE(offers(provider->requests().at(0), "find"));
    }
}

TEST_CASE("a tool called by name without find is offered afterwards", "[agent][find]") {
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall("maps-list", {{"target", "x"}}))
        .then(ScriptedTurn::toolCall("crm-forecast", {{"target", "y"}}))
        .then(ScriptedTurn::text("done"));
    auto agent = agentWith(provider, 100);
    REQUIRE(agent);
    const RunResult result = runCoro(agent->run("go"));
    REQUIRE(result.success());
    CHECK(result.toolCalls.at(0).outcome.value() == "maps-list done for x");
    CHECK(offered(provider->requests().at(1)) == std::vector<std::string>{"recall", "find", "maps-list"});
    CHECK(offered(provider->requests().at(2)) ==
          std::vector<std::string>{"recall", "find", "maps-list", "crm-forecast"});

    SECTION("and at once in the next turn of the conversation") {
        provider->then(ScriptedTurn::text("again"));
        REQUIRE(runCoro(agent->run(result.messages, "and now?")).success());
        CHECK(offered(provider->requests().at(3)) ==
              std::vector<std::string>{"recall", "find", "maps-list", "crm-forecast"});
    }
}

TEST_CASE("find ranks by name, words of a camelCase query, and parameters", "[agent][find]") {
    auto provider = std::make_shared<ScriptedProvider>();
    provider
        ->then(ScriptedTurn::toolCall("find", {{"query", "issueCreate"}, {"limit", 2}, {"kinds", {"tools"}}}))
        .then(ScriptedTurn::toolCall("find", {{"query", "the of and"}}))
        .then(ScriptedTurn::toolCall("find", {{"query", "deploy"}, {"kinds", {"documents"}}}))
        .then(ScriptedTurn::toolCall("find", {{"query", "zzzz"}}))
        .then(ScriptedTurn::text("done"));
    auto agent = agentWith(provider, 100);
    REQUIRE(agent);
    const RunResult result = runCoro(agent->run("go"));
    REQUIRE(result.success());
    const auto& ranked = result.toolCalls.at(0);
    REQUIRE(ranked.succeeded());
    REQUIRE(ranked.structured.at("tools").size() == 2);
    CHECK(ranked.structured.at("tools").at(0).at("name") == "issue-create");
    CHECK_FALSE(ranked.structured.contains("memory"));  // kinds: tools only
    // Only stop words: the model is told what a query needs.
    REQUIRE_FALSE(result.toolCalls.at(1).succeeded());
    CHECK(result.toolCalls.at(1).outcome.error().code == reagent::tools::ToolErrc::invalid_arguments);
    // A kind the agent does not have is refused by the schema's enumeration.
    REQUIRE_FALSE(result.toolCalls.at(2).succeeded());
    CHECK(result.toolCalls.at(2).outcome.error().code == reagent::tools::ToolErrc::invalid_arguments);
    // Nothing matches: said so, per kind.
    REQUIRE(result.toolCalls.at(3).succeeded());
    CHECK(result.toolCalls.at(3).outcome->find("Tools: none match.") != std::string::npos);
    CHECK(result.toolCalls.at(3).outcome->find("Working memory: nothing matches.") != std::string::npos);
}

TEST_CASE("find searches working memory, episodes and find sources", "[agent][find]") {
    const auto dir = std::filesystem::temp_directory_path() / ("reagent-find-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall("storage-list", {{"target", "invoices of march"}}))
        .then(ScriptedTurn::toolCall("find", {{"query", "march invoices"}}))
        .then(ScriptedTurn::text("done"));
    auto passages = std::make_shared<Passages>(std::vector<FindHit>{
        {"docs/billing.md:10-24 (Invoices)", "march invoices are sent on the 5th", 2.5, json{{"chunk", 7}}},
        {"docs/other.md:1-3", "unrelated", 1.0, nullptr}});
    reagent::agent::MemoryConfig memory;
    memory.path = (dir / "episodes.db").string();
    auto agent = Agent::create()
                     .withProvider(provider)
                     .withTools(reagent::agent::ToolsConfig{})
                     .withTools(catalogue(100))
                     .withMemory(memory)
                     .withFindSource(passages)
                     .build();
    REQUIRE(agent);
    REQUIRE(agent->workingMemory().put("plan", "pay the march invoices first", {}));
    const RunResult result = runCoro(agent->run("go"));
    REQUIRE(result.success());
    const auto& found = result.toolCalls.at(1);
    REQUIRE(found.succeeded());
    CHECK(found.structured.at("memory").at(0).at("key") == "plan");
    REQUIRE(found.structured.at("episodes").size() == 1);
    CHECK(found.structured.at("episodes").at(0).at("tool") == "storage-list");
    REQUIRE(found.structured.at("documents").size() == 1);
    CHECK(found.structured.at("documents").at(0).at("detail").at("chunk") == 7);
    CHECK(found.outcome->find("[1] docs/billing.md:10-24 (Invoices)\nmarch invoices are sent on the 5th") !=
          std::string::npos);
    // The schema names the source's kind; the description says what find reaches.
    const auto definitions = agent->toolDefinitions();
    const auto find =
        std::find_if(definitions.begin(), definitions.end(), [](const auto& d) { return d.name == "find"; });
    REQUIRE(find != definitions.end());
    CHECK(find->inputSchema.at("properties").at("kinds").at("items").at("enum").back() == "documents");
    CHECK(find->description.find("documents (passages with their source, to cite)") != std::string::npos);
    std::filesystem::remove_all(dir);
}

TEST_CASE("a find source's failure is the call's error, and bad sources are refused", "[agent][find]") {
    SECTION("a failing source") {
        auto provider = std::make_shared<ScriptedProvider>();
        provider->then(ScriptedTurn::toolCall("find", {{"query", "anything"}}))
            .then(ScriptedTurn::text("ok"));
        auto agent = Agent::create()
                         .withProvider(provider)
                         .withTools(reagent::agent::ToolsConfig{})
                         .withFindSource(std::make_shared<Passages>(std::vector<FindHit>{}, true))
                         .build();
        REQUIRE(agent);
        // With a find source, find is offered though the search for tools is off (2 tools).
        const RunResult result = runCoro(agent->run("go"));
        CHECK(offered(provider->requests().at(0)) == std::vector<std::string>{"recall", "find"});
        REQUIRE_FALSE(result.toolCalls.at(0).succeeded());
        CHECK(result.toolCalls.at(0).outcome.error().message == "documents: the index is locked");
    }
    SECTION("null, badly named, or a kind twice") {
        auto bad = std::make_shared<Passages>(std::vector<FindHit>{});
        bad->kind_ = "my docs";
        auto memoryKind = std::make_shared<Passages>(std::vector<FindHit>{});
        memoryKind->kind_ = "memory";
        auto built = Agent::create()
                         .withProvider(std::make_shared<ScriptedProvider>())
                         .withTools(reagent::agent::ToolsConfig{})
                         .withFindSource(nullptr)
                         .withFindSource(bad)
                         .withFindSource(memoryKind)
                         .build();
        REQUIRE_FALSE(built);
        CHECK(built.error().message.find("withFindSource was given no source") != std::string::npos);
        CHECK(built.error().message.find("kind 'my docs' is not letters, digits and '-'") !=
              std::string::npos);
        CHECK(built.error().message.find("share the kind 'memory'") != std::string::npos);
    }
    SECTION("a user's tool named find") {
        auto own = reagent::tools::ToolBuilder::create("find")
                       .description("Find files")
                       .handler([](json, reagent::tools::ToolContext) -> Task<reagent::tools::ToolResult> {
                           co_return std::string("a.txt");
                       })
                       .build();
        auto built = Agent::create()
                         .withProvider(std::make_shared<ScriptedProvider>())
                         .withTools(reagent::agent::ToolsConfig{})
                         .withTool(std::move(own))
                         .withToolSearch()
                         .build();
        REQUIRE_FALSE(built);
        CHECK(built.error().message.find("a tool is named find") != std::string::npos);
    }
}

TEST_CASE("a paused run keeps the tools it found when it resumes", "[agent][find][state]") {
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall("find", {{"query", "calendar create"}}))
        .then(ScriptedTurn::toolCall("approve-budget", {{"amount", 3}}))
        .then(ScriptedTurn::text("booked"));
    auto external = reagent::tools::ToolBuilder::create("approve-budget")
                        .description("A person approves a budget")
                        .param("amount", "integer", "how much", {})
                        .declarationOnly()
                        .build();
    ToolSearch search;
    search.core = {"approve-budget"};
    const auto build = [&] {
        return Agent::create()
            .withProvider(provider)
            .withTools(reagent::agent::ToolsConfig{})
            .withTools(catalogue(100))
            .withTool(*external)
            .withToolSearch(search)
            .build();
    };
    auto first = build();
    REQUIRE(first);
    const RunResult paused = runCoro(first->run("book a meeting"));
    REQUIRE(paused.terminatedBy == reagent::agent::TerminatedBy::external_tool_calls);
    const std::string saved = paused.state.dump();
    auto second = build();
    REQUIRE(second);
    const auto resumed = runCoro(second->resume(
        json::parse(saved),
        {reagent::agent::ExternalResult{paused.pendingToolCalls.at(0).id, std::string("ok")}}));
    REQUIRE(resumed);
    CHECK(resumed->output == "booked");
    CHECK(offers(provider->requests().at(2), "calendar-create"));
    CHECK(offers(provider->requests().at(2), "approve-budget"));
}
