// mcp::Server's resources, resource templates, prompts, completions and batches, through a vector sink.

#include "reagent/mcp/server_catalog.hpp"

#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>
#include <stdexcept>

#include "reagent/mcp/server.hpp"
#include "reagent/tools/tool_builder.hpp"

namespace mcp = reagent::mcp;
namespace tools = reagent::tools;
using nlohmann::json;
using reagent::expected;
using reagent::Task;

namespace {

using Contents = expected<std::vector<mcp::ResourceContents>, mcp::RpcError>;

std::shared_ptr<tools::ToolRegistry> oneTool() {
    auto registry = std::make_shared<tools::ToolRegistry>();
    auto builder = tools::ToolBuilder::create("t");
    builder.description("a tool").handler(
        [](json, tools::ToolContext) -> Task<tools::ToolResult> { co_return std::string("ok"); });
    REQUIRE(registry->add(*builder.build()));
    return registry;
}

// A session whose frames land in `out`; `pump` runs what is ready (never waits for timers).
struct Harness {
    explicit Harness(mcp::ServerOptions options = {}) : server(oneTool(), std::move(options)) {
        session = server.connect(io.get_executor(), [this](mcp::OutgoingFrame frame) {
            out.push_back(json::parse(frame.frame));
            related.push_back(frame.relatedRequest);
        });
    }
    void pump() {
        io.restart();
        io.poll();
    }
    json send(const json& message) {
        out.clear();
        related.clear();
        session->receive(message.dump());
        pump();
        return out.empty() ? json() : out.back();
    }
    json initialize(const std::string& version = "2025-11-25", json capabilities = json::object()) {
        return send(json{{"jsonrpc", "2.0"},
                         {"id", 0},
                         {"method", "initialize"},
                         {"params",
                          {{"protocolVersion", version},
                           {"capabilities", std::move(capabilities)},
                           {"clientInfo", {{"name", "t"}, {"version", "1"}}}}}});
    }
    boost::asio::io_context io;
    mcp::Server server;
    std::shared_ptr<mcp::ServerSession> session;
    std::vector<json> out;
    std::vector<std::optional<mcp::RequestId>> related;
};

json request(int id, std::string method, json params = json::object()) {
    return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", std::move(method)}, {"params", std::move(params)}};
}

Task<Contents> textOf(std::string uri, std::string text) {
    std::vector<mcp::ResourceContents> out;
    out.push_back(mcp::ResourceContents{std::move(uri), "text/plain", std::move(text), {}});
    co_return out;
}

Task<Contents> refuse(std::string) {
    co_return reagent::fail(mcp::RpcError{-32001, "no access", nullptr});
}

Task<Contents> explode(std::string) {
    throw std::runtime_error("disk on fire");
    co_return Contents{};
}

Task<expected<mcp::PromptResult, mcp::RpcError>> greet(mcp::PromptArguments args) {
    std::vector<mcp::PromptMessage> messages;
    messages.push_back(mcp::PromptMessage{"user", json{{"type", "text"}, {"text", "hello " + args["who"]}}});
    co_return mcp::PromptResult{"a greeting", std::move(messages)};
}

void addCatalog(mcp::Server& server) {
    server.addResource(mcp::ResourceInfo{"test://a", "A", "first", "text/plain"},
                       [](std::string uri) { return textOf(std::move(uri), "alpha"); });
    server.addResource(mcp::ResourceInfo{"test://b", "B", "", ""},
                       [](std::string uri) { return textOf(std::move(uri), "beta"); });
    server.addResource(mcp::ResourceInfo{"test://refused", "R", "", ""}, refuse);
    server.addResource(mcp::ResourceInfo{"test://broken", "X", "", ""}, explode);
    REQUIRE(server.addResourceTemplate(
        mcp::ResourceTemplateInfo{"test://items/{id}/part/{part}", "Item", "an item", "text/plain"},
        [](std::string uri, mcp::TemplateVariables vars) {
            return textOf(std::move(uri), vars["id"] + ":" + vars["part"]);
        }));
    server.addPrompt(mcp::PromptInfo{"greet", "says hello", {mcp::PromptArgument{"who", "whom", true}}},
                     greet);
    server.addCompletion(mcp::CompletionRef{mcp::CompletionRef::Kind::prompt, "greet"}, "who",
                         [](const std::string& value, const json&) {
                             mcp::CompletionResult result;
                             for (int i = 0; i < 150; ++i) {
                                 result.values.push_back(value + std::to_string(i));
                             }
                             return result;
                         });
}

}  // namespace

TEST_CASE("URI templates: level 1 only, matched with decoding", "[mcp][server][catalog]") {
    CHECK(mcp::isValidUriTemplate("test://template/{id}/data"));
    CHECK(mcp::isValidUriTemplate("file:///plain"));
    CHECK_FALSE(mcp::isValidUriTemplate("a/{}"));
    CHECK_FALSE(mcp::isValidUriTemplate("a/{x}{y}"));
    CHECK_FALSE(mcp::isValidUriTemplate("a/{+x}"));
    CHECK_FALSE(mcp::isValidUriTemplate("a/{x"));
    CHECK_FALSE(mcp::isValidUriTemplate("a/x}"));

    const auto matched = mcp::matchUriTemplate("test://template/{id}/data", "test://template/12%203/data");
    REQUIRE(matched);
    CHECK(matched->at("id") == "12 3");
    CHECK_FALSE(mcp::matchUriTemplate("test://template/{id}/data", "test://template/1/2/data"));
    CHECK_FALSE(mcp::matchUriTemplate("test://template/{id}/data", "test://template//data"));
    CHECK_FALSE(mcp::matchUriTemplate("test://template/{id}/data", "test://template/1/datax"));
    CHECK(mcp::matchUriTemplate("x/{a}", "x/tail")->at("a") == "tail");

    Harness h;
    auto added = h.server.addResourceTemplate(
        mcp::ResourceTemplateInfo{"x/{a}{b}", "bad", "", ""},
        [](std::string uri, mcp::TemplateVariables) { return textOf(std::move(uri), ""); });
    REQUIRE_FALSE(added);
    CHECK(added.error().code == mcp::McpErrc::invalid_config);
}

TEST_CASE("server declares only the capabilities it has", "[mcp][server][catalog]") {
    Harness bare;
    const auto plain = bare.initialize()["result"]["capabilities"];
    CHECK(plain == json{{"tools", {{"listChanged", true}}}, {"logging", json::object()}});
    CHECK(bare.send(request(1, "resources/list"))["error"]["code"] == mcp::kMethodNotFound);
    CHECK(bare.send(request(2, "prompts/list"))["error"]["code"] == mcp::kMethodNotFound);
    CHECK(bare.send(request(3, "completion/complete"))["error"]["code"] == mcp::kMethodNotFound);

    Harness full;
    addCatalog(full.server);
    const auto caps = full.initialize()["result"]["capabilities"];
    CHECK(caps["resources"] == json{{"subscribe", true}, {"listChanged", true}});
    CHECK(caps["prompts"] == json{{"listChanged", true}});
    CHECK(caps["completions"] == json::object());
}

TEST_CASE("server lists and reads resources and templates", "[mcp][server][catalog]") {
    mcp::ServerOptions options;
    options.pageSize = 3;
    Harness h(options);
    addCatalog(h.server);
    h.initialize();

    const auto first = h.send(request(1, "resources/list"))["result"];
    REQUIRE(first["resources"].size() == 3);
    CHECK(first["resources"][0] ==
          json{{"uri", "test://a"}, {"name", "A"}, {"description", "first"}, {"mimeType", "text/plain"}});
    CHECK(first["resources"][1] == json{{"uri", "test://b"}, {"name", "B"}});
    const auto second = h.send(request(2, "resources/list", json{{"cursor", first["nextCursor"]}}))["result"];
    CHECK(second["resources"].size() == 1);
    CHECK_FALSE(second.contains("nextCursor"));
    CHECK(h.send(request(3, "resources/list", json{{"cursor", "tools@1"}}))["error"]["code"] ==
          mcp::kInvalidParams);
    CHECK(h.send(request(4, "resources/templates/list"))["result"]["resourceTemplates"][0]["uriTemplate"] ==
          "test://items/{id}/part/{part}");

    const auto read = h.send(request(5, "resources/read", json{{"uri", "test://a"}}));
    CHECK(read["result"]["contents"] ==
          json::array({{{"uri", "test://a"}, {"mimeType", "text/plain"}, {"text", "alpha"}}}));
    CHECK(*h.related.back() == mcp::RequestId(std::int64_t{5}));
    const auto templated = h.send(request(6, "resources/read", json{{"uri", "test://items/7/part/b"}}));
    CHECK(templated["result"]["contents"][0]["text"] == "7:b");

    const auto unknown = h.send(request(7, "resources/read", json{{"uri", "test://nope"}}));
    CHECK(unknown["error"]["code"] == mcp::kResourceNotFound);
    CHECK(unknown["error"]["message"] == "Resource not found");
    CHECK(unknown["error"]["data"]["uri"] == "test://nope");
    CHECK(h.send(request(8, "resources/read"))["error"]["code"] == mcp::kInvalidParams);
    CHECK(h.send(request(9, "resources/read", json{{"uri", "test://refused"}}))["error"] ==
          json{{"code", -32001}, {"message", "no access"}});
    const auto broken = h.send(request(10, "resources/read", json{{"uri", "test://broken"}}));
    CHECK(broken["error"]["code"] == mcp::kInternalError);
    CHECK(broken["error"]["message"].get<std::string>().find("disk on fire") != std::string::npos);
}

TEST_CASE("server subscriptions and list_changed", "[mcp][server][catalog]") {
    Harness h;
    addCatalog(h.server);
    h.initialize();
    CHECK(h.send(request(1, "resources/subscribe", json{{"uri", "test://a"}}))["result"] == json::object());
    CHECK(h.send(request(2, "resources/subscribe", json{{"uri", "test://nope"}}))["error"]["code"] ==
          mcp::kResourceNotFound);
    h.out.clear();
    h.server.resourceUpdated("test://a");
    h.server.resourceUpdated("test://b");  // not subscribed
    REQUIRE(h.out.size() == 1);
    CHECK(h.out[0] == json{{"jsonrpc", "2.0"},
                           {"method", "notifications/resources/updated"},
                           {"params", {{"uri", "test://a"}}}});
    CHECK(h.send(request(3, "resources/unsubscribe", json{{"uri", "test://a"}}))["result"] == json::object());
    h.out.clear();
    h.server.resourceUpdated("test://a");
    CHECK(h.out.empty());

    h.server.addResource(mcp::ResourceInfo{"test://c", "C", "", ""},
                         [](std::string uri) { return textOf(std::move(uri), "c"); });
    REQUIRE(h.out.size() == 1);
    CHECK(h.out[0]["method"] == "notifications/resources/list_changed");
    h.out.clear();
    CHECK(h.server.removePrompt("greet"));
    CHECK_FALSE(h.server.removePrompt("greet"));
    REQUIRE(h.out.size() == 1);
    CHECK(h.out[0]["method"] == "notifications/prompts/list_changed");
}

TEST_CASE("server prompts: list, get, unknown and missing arguments", "[mcp][server][catalog]") {
    Harness h;
    addCatalog(h.server);
    h.initialize();
    const auto listed = h.send(request(1, "prompts/list"))["result"]["prompts"];
    CHECK(listed ==
          json::array({{{"name", "greet"},
                        {"description", "says hello"},
                        {"arguments", {{{"name", "who"}, {"required", true}, {"description", "whom"}}}}}}));
    const auto got =
        h.send(request(2, "prompts/get", json{{"name", "greet"}, {"arguments", {{"who", "ada"}}}}));
    CHECK(got["result"] ==
          json{{"description", "a greeting"},
               {"messages", {{{"role", "user"}, {"content", {{"type", "text"}, {"text", "hello ada"}}}}}}});
    const auto unknown = h.send(request(3, "prompts/get", json{{"name", "nope"}}));
    CHECK(unknown["error"]["code"] == mcp::kInvalidParams);
    CHECK(unknown["error"]["message"] == "Unknown prompt: nope");
    const auto missing = h.send(request(4, "prompts/get", json{{"name", "greet"}}));
    CHECK(missing["error"]["code"] == mcp::kInvalidParams);
    CHECK(missing["error"]["message"] == "prompt greet needs argument who (required)");
    CHECK(h.send(request(5, "prompts/get",
                         json{{"name", "greet"}, {"arguments", {{"who", 3}}}}))["error"]["code"] ==
          mcp::kInvalidParams);
}

TEST_CASE("server completion/complete", "[mcp][server][catalog]") {
    Harness h;
    addCatalog(h.server);
    h.initialize();
    const auto done = h.send(request(1, "completion/complete",
                                     json{{"ref", {{"type", "ref/prompt"}, {"name", "greet"}}},
                                          {"argument", {{"name", "who"}, {"value", "a"}}}}));
    const auto completion = done["result"]["completion"];
    CHECK(completion["values"].size() == 100);
    CHECK(completion["values"][0] == "a0");
    CHECK(completion["hasMore"] == true);
    CHECK(completion["total"] == 150);
    const auto none =
        h.send(request(2, "completion/complete",
                       json{{"ref", {{"type", "ref/resource"}, {"uri", "test://items/{id}/part/{part}"}}},
                            {"argument", {{"name", "id"}, {"value", ""}}}}));
    CHECK(none["result"]["completion"] == json{{"values", json::array()}, {"hasMore", false}});
    const auto unknown = h.send(request(3, "completion/complete",
                                        json{{"ref", {{"type", "ref/prompt"}, {"name", "nope"}}},
                                             {"argument", {{"name", "who"}, {"value", ""}}}}));
    CHECK(unknown["error"]["code"] == mcp::kInvalidParams);
    CHECK(h.send(request(4, "completion/complete",
                         json{{"ref", {{"type", "ref/other"}}}}))["error"]["code"] == mcp::kInvalidParams);
}

TEST_CASE("server batches: served in 2025-03-26, refused otherwise", "[mcp][server][batch]") {
    Harness old;
    addCatalog(old.server);
    old.initialize("2025-03-26");
    const json batch = json::array({request(1, "ping"), request(2, "tools/call", json{{"name", "t"}}),
                                    request(3, "resources/read", json{{"uri", "test://b"}}),
                                    json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}});
    const auto answered = old.send(batch);
    REQUIRE(old.out.size() == 1);
    REQUIRE(answered.is_array());
    REQUIRE(answered.size() == 3);
    std::map<int, json> byId;
    for (const auto& response : answered) {
        byId[response["id"].get<int>()] = response;
    }
    CHECK(byId[1]["result"] == json::object());
    CHECK(byId[2]["result"]["content"][0]["text"] == "ok");
    CHECK(byId[3]["result"]["contents"][0]["text"] == "beta");
    CHECK(
        old.send(json::array({json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}})).is_null());

    Harness current;
    current.initialize("2025-06-18");
    const auto refused = current.send(json::array({request(1, "ping"), request(2, "ping")}));
    REQUIRE(current.out.size() == 1);
    CHECK(refused["id"].is_null());
    CHECK(refused["error"]["code"] == mcp::kInvalidRequest);
    CHECK(refused["error"]["message"].get<std::string>().find("2025-06-18") != std::string::npos);

    Harness fresh;
    CHECK(fresh.send(json::array({request(1, "ping")}))["error"]["code"] == mcp::kInvalidRequest);
}

TEST_CASE("server replaces and removes resources", "[mcp][server][catalog]") {
    Harness h;
    addCatalog(h.server);
    h.initialize();
    h.server.addResource(mcp::ResourceInfo{"test://a", "A2", "", ""},
                         [](std::string uri) { return textOf(std::move(uri), "alpha 2"); });
    const auto listed = h.send(request(1, "resources/list"))["result"]["resources"];
    CHECK(listed.size() == 4);
    CHECK(listed[0]["name"] == "A2");
    CHECK(h.send(request(2, "resources/read", json{{"uri", "test://a"}}))["result"]["contents"][0]["text"] ==
          "alpha 2");
    h.out.clear();
    CHECK(h.server.removeResource("test://a"));
    CHECK_FALSE(h.server.removeResource("test://a"));
    CHECK(h.out.size() == 1);  // one list_changed
    CHECK(h.send(request(3, "resources/read", json{{"uri", "test://a"}}))["error"]["code"] ==
          mcp::kResourceNotFound);
}
