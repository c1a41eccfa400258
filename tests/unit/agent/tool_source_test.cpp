// The tool-source seam from the agent library's side: a source scripted by the test gives ready tools,
// opens (adding and removing tools through its sink), fails, rolls back and closes; the agent's rules on
// each (build vs buildAsync, the replace rule, unique names, problems reported at once, dispose order,
// a sink outliving its agent).
#include "reagent/tools/tool_source.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "reagent/agent/agent.hpp"
#include "reagent/llm/scripted_provider.hpp"
#include "reagent/tools/tool_builder.hpp"
#include "run_coro.hpp"

using nlohmann::json;
using reagent::expected;
using reagent::Task;
using reagent::agent::Agent;
using reagent::agent::AgentErrc;
using reagent::agent::AgentError;
using reagent::test::runCoro;
namespace tools = reagent::tools;

namespace {

using Log = std::vector<std::string>;

Task<tools::ToolResult> answerWith(std::string output) {
    co_return output;
}

tools::Tool sourceTool(const std::string& name, const std::string& description) {
    auto made = tools::ToolBuilder::create(name)
                    .description(description)
                    .handler([output = name](json, tools::ToolContext) { return answerWith(output); })
                    .build();
    REQUIRE(made);
    return std::move(*made);
}

Task<expected<std::string, tools::ToolError>> restoreTo(std::string id) {
    co_return "restored " + id;
}

// A source whose every answer the test sets, recording what the agent asked of it.
class ScriptedSource final : public tools::ToolSource {
  public:
    ScriptedSource(std::string name, std::shared_ptr<Log> log)
        : name_(std::move(name)), log_(std::move(log)) {}

    std::vector<tools::Tool> ready;
    std::optional<tools::ToolError> readyError;
    bool opensLater = false;
    std::vector<tools::Tool> onOpen;
    std::optional<tools::ToolError> openError;
    tools::CheckpointRollback restore;
    /// The sink the agent gave `open`.
    std::shared_ptr<tools::ToolSink> sink;

    [[nodiscard]] std::string name() const override { return name_; }
    [[nodiscard]] expected<std::vector<tools::Tool>, tools::ToolError> tools() override {
        log_->push_back("tools:" + name_);
        if (readyError) {
            return reagent::fail(*readyError);
        }
        return ready;
    }
    [[nodiscard]] bool opens() const noexcept override { return opensLater; }
    [[nodiscard]] Task<expected<void, tools::ToolError>> open(
        std::shared_ptr<tools::ToolSink> given) override {
        log_->push_back("open:" + name_);
        if (openError) {
            co_return reagent::unexpected(*openError);
        }
        sink = std::move(given);
        for (const tools::Tool& tool : onOpen) {
            auto added = sink->add(tool);
            REQUIRE(added);
        }
        co_return expected<void, tools::ToolError>{};
    }
    [[nodiscard]] Task<void> close() override {
        log_->push_back("close:" + name_);
        co_return;
    }
    [[nodiscard]] tools::CheckpointRollback rollback() const override { return restore; }

  private:
    std::string name_;
    std::shared_ptr<Log> log_;
};

std::vector<std::string> offered(const Agent& agent) {
    std::vector<std::string> names;
    for (const auto& spec : agent.toolSpecs()) {
        names.push_back(spec.name);
    }
    return names;
}

std::shared_ptr<reagent::llm::ScriptedProvider> model() {
    return std::make_shared<reagent::llm::ScriptedProvider>();
}

// Wrapped in an optional: runCoro needs a result it can default-construct.
Task<std::optional<expected<Agent, AgentError>>> building(reagent::agent::AgentBuilder builder) {
    auto built = builder.buildAsync();
    co_return co_await std::move(built);
}

expected<Agent, AgentError> buildAsync(reagent::agent::AgentBuilder builder) {
    return *runCoro(building(std::move(builder)));
}

Task<void> dispose(Agent agent) {
    co_await agent.dispose();
}

}  // namespace

TEST_CASE(
    "a source's ready tools are registered and offered, and a builder tool of the same name replaces one",
    "[agent][tool-source]") {
    auto log = std::make_shared<Log>();
    auto source = std::make_shared<ScriptedSource>("kit", log);
    source->ready = {sourceTool("kit-a", "from the source"), sourceTool("kit-b", "from the source")};
    auto agent = Agent::create()
                     .withProvider(model())
                     .withToolSource(source)
                     .withTool(sourceTool("kit-b", "the builder's own"))
                     .build();
    REQUIRE(agent);
    // A source with ready tools enables tools: `recall` comes with them.
    CHECK(offered(*agent) == std::vector<std::string>{"recall", "kit-a", "kit-b"});
    for (const auto& definition : agent->toolDefinitions()) {
        if (definition.name == "kit-b") {
            CHECK(definition.description == "the builder's own");
        }
    }
    CHECK(*log == Log{"tools:kit"});
}

TEST_CASE(
    "build refuses a source that opens, buildAsync opens it, its sink adds and removes tools, and "
    "dispose closes every source in reverse order",
    "[agent][tool-source]") {
    auto log = std::make_shared<Log>();
    auto first = std::make_shared<ScriptedSource>("one", log);
    first->ready = {sourceTool("one-ready", "ready")};
    auto second = std::make_shared<ScriptedSource>("two", log);
    second->opensLater = true;
    second->onOpen = {sourceTool("two-later", "added at open")};
    auto builder = Agent::create().withProvider(model()).withToolSource(first).withToolSource(second);

    auto refused = builder.build();
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == AgentErrc::invalid_config);
    CHECK_THAT(refused.error().message, Catch::Contains("'two'") && Catch::Contains("buildAsync"));

    log->clear();
    auto agent = buildAsync(builder);
    REQUIRE(agent);
    CHECK(*log == Log{"tools:one", "tools:two", "open:two"});
    CHECK(offered(*agent) == std::vector<std::string>{"recall", "one-ready", "two-later"});

    std::vector<reagent::agent::ServerLogged> logged;
    agent->subscribe([&logged](const reagent::agent::AgentEvent& event) {
        if (const auto* line = std::get_if<reagent::agent::ServerLogged>(&event)) {
            logged.push_back(*line);
        }
    });
    REQUIRE(second->sink);
    CHECK(second->sink->remove("two-later"));
    CHECK_FALSE(second->sink->remove("two-later"));
    REQUIRE(second->sink->add(sourceTool("two-newer", "added later")));
    CHECK(offered(*agent) == std::vector<std::string>{"recall", "one-ready", "two-newer"});
    // A name taken is refused with the registry's error, and the agent is left as it was.
    auto taken = second->sink->add(sourceTool("one-ready", "a clash"));
    REQUIRE_FALSE(taken);
    CHECK(offered(*agent) == std::vector<std::string>{"recall", "one-ready", "two-newer"});
    second->sink->log("warning", "remote", json("the list changed"));
    REQUIRE(logged.size() == 1);
    CHECK(logged[0].server == "two");
    CHECK(logged[0].level == "warning");
    CHECK(logged[0].data == json("the list changed"));

    log->clear();
    runCoro(dispose(*agent));
    CHECK(*log == Log{"close:two", "close:one"});
}

TEST_CASE("a source that fails to open fails buildAsync with its message, and every source is closed",
          "[agent][tool-source]") {
    auto log = std::make_shared<Log>();
    auto good = std::make_shared<ScriptedSource>("good", log);
    good->opensLater = true;
    good->onOpen = {sourceTool("good-tool", "fine")};
    auto bad = std::make_shared<ScriptedSource>("bad", log);
    bad->opensLater = true;
    bad->openError = tools::ToolError{tools::ToolErrc::init_failed, "server 'bad' refused to start"};
    auto built = buildAsync(Agent::create().withProvider(model()).withToolSource(good).withToolSource(bad));
    REQUIRE_FALSE(built);
    CHECK(built.error().code == AgentErrc::invalid_config);
    CHECK_THAT(built.error().message, Catch::Contains("did not all open") &&
                                          Catch::Contains("server 'bad' refused to start") &&
                                          !Catch::Contains("good"));
    CHECK(std::count(log->begin(), log->end(), "close:good") == 1);
    CHECK(std::count(log->begin(), log->end(), "close:bad") == 1);
}

TEST_CASE(
    "every problem with sources is reported at once: a failed one, a null one, two of one name, a "
    "selection it cannot serve",
    "[agent][tool-source]") {
    auto log = std::make_shared<Log>();
    auto same1 = std::make_shared<ScriptedSource>("same", log);
    auto same2 = std::make_shared<ScriptedSource>("same", log);
    auto broken = std::make_shared<ScriptedSource>("broken", log);
    broken->readyError = tools::ToolError{tools::ToolErrc::invalid_definition, "no such tool 'teleport'"};
    const std::shared_ptr<ScriptedSource> none;
    auto built = Agent::create()
                     .withProvider(model())
                     .withToolSource(reagent::unexpected(tools::ToolError{tools::ToolErrc::invalid_definition,
                                                                          "the configuration is invalid"}))
                     .withToolSource(none)
                     .withToolSource(same1)
                     .withToolSource(same2)
                     .withToolSource(broken)
                     .build();
    REQUIRE_FALSE(built);
    const std::string& message = built.error().message;
    CHECK_THAT(message, Catch::Contains("4 problems"));
    CHECK_THAT(message, Catch::Contains("a tool source failed to build: the configuration is invalid"));
    CHECK_THAT(message, Catch::Contains("a null tool source"));
    CHECK_THAT(message, Catch::Contains("two tool sources are named 'same'"));
    CHECK_THAT(message, Catch::Contains("tool source 'broken': no such tool 'teleport'"));
}

TEST_CASE("a sink that outlives its agent accepts nothing", "[agent][tool-source]") {
    auto log = std::make_shared<Log>();
    auto source = std::make_shared<ScriptedSource>("late", log);
    source->opensLater = true;
    std::shared_ptr<tools::ToolSink> sink;
    {
        auto agent = buildAsync(Agent::create().withProvider(model()).withToolSource(source));
        REQUIRE(agent);
        sink = source->sink;
    }
    source.reset();
    REQUIRE(sink);
    auto added = sink->add(sourceTool("late-tool", "too late"));
    REQUIRE_FALSE(added);
    CHECK(added.error().code == tools::ToolErrc::cancelled);
    CHECK_FALSE(sink->remove("late-tool"));
    sink->log("info", "remote", json("nobody listens"));  // reaches nobody, harmlessly
}

TEST_CASE("rollback reaches the first source that has one, without one it is invalid_config",
          "[agent][tool-source]") {
    auto log = std::make_shared<Log>();
    auto plain = std::make_shared<ScriptedSource>("plain", log);
    auto workspace = std::make_shared<ScriptedSource>("workspace", log);
    workspace->restore = [](std::string id) { return restoreTo(std::move(id)); };
    auto agent =
        Agent::create().withProvider(model()).withToolSource(plain).withToolSource(workspace).build();
    REQUIRE(agent);
    auto restored = runCoro(agent->rollback("c1"));
    REQUIRE(restored);
    CHECK(*restored == "restored c1");

    auto without = Agent::create().withProvider(model()).withToolSource(plain).build();
    REQUIRE(without);
    auto refused = runCoro(without->rollback("c1"));
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == AgentErrc::invalid_config);
}
