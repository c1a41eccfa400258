#include <catch2/catch.hpp>

#include "reagent/a2a/agent_card.hpp"
#include "reagent/a2a/agent_task.hpp"

using namespace reagent::a2a;
using nlohmann::json;

TEST_CASE("a message round-trips through both shapes", "[a2a][types]") {
    Message message = Message::userText("hello");
    message.parts.push_back(Part{Part::Kind::data, "", json{{"k", 1}}, "", "", "", ""});
    for (const auto version : {ProtocolVersion::v0_3, ProtocolVersion::v1_0}) {
        const json j = toJson(message, version);
        if (version == ProtocolVersion::v0_3) {
            CHECK(j["kind"] == "message");
            CHECK(j["role"] == "user");
            CHECK(j["parts"][0]["kind"] == "text");
        } else {
            CHECK_FALSE(j.contains("kind"));
            CHECK(j["role"] == "ROLE_USER");
            CHECK(j["parts"][0] == json{{"text", "hello"}});
        }
        auto back = parseMessage(j);
        REQUIRE(back);
        CHECK(back->messageId == message.messageId);
        CHECK(back->text() == "hello");
        REQUIRE(back->parts.size() == 2);
        CHECK(back->parts[1].data == json{{"k", 1}});
    }
}

TEST_CASE("file parts in both shapes", "[a2a][types]") {
    auto legacy =
        parsePart(json{{"kind", "file"}, {"file", {{"uri", "http://x/y"}, {"mimeType", "text/plain"}}}});
    REQUIRE(legacy);
    CHECK(legacy->kind == Part::Kind::file);
    CHECK(legacy->fileUri == "http://x/y");
    CHECK(legacy->mediaType == "text/plain");
    auto current = parsePart(json{{"raw", "aGk="}, {"filename", "a.txt"}});
    REQUIRE(current);
    CHECK(current->fileBytes == "aGk=");
    CHECK(current->filename == "a.txt");
    CHECK(toJson(*current, ProtocolVersion::v0_3)["file"]["bytes"] == "aGk=");
}

TEST_CASE("malformed messages and parts are protocol errors naming the field", "[a2a][types]") {
    CHECK(parseMessage(json::array()).error().code == A2aErrc::protocol_error);
    auto noRole = parseMessage(json{{"messageId", "1"}, {"parts", json::array()}});
    REQUIRE_FALSE(noRole);
    CHECK(noRole.error().message.find("role") != std::string::npos);
    auto badRole = parseMessage(json{{"messageId", "1"}, {"role", "boss"}, {"parts", json::array()}});
    CHECK(badRole.error().message.find("boss") != std::string::npos);
    CHECK_FALSE(parsePart(json{{"kind", "text"}, {"text", 3}}));
    CHECK_FALSE(parsePart(json::object()));
}

TEST_CASE("task states in both spellings", "[a2a][types]") {
    CHECK(parseTaskState("input-required").value() == TaskState::input_required);
    CHECK(parseTaskState("TASK_STATE_INPUT_REQUIRED").value() == TaskState::input_required);
    CHECK(parseTaskState("TASK_STATE_CANCELED").value() == TaskState::canceled);
    CHECK_FALSE(parseTaskState("done"));
    CHECK(isTerminal(TaskState::rejected));
    CHECK_FALSE(isTerminal(TaskState::working));
}

TEST_CASE("a task and stream events round-trip in both shapes", "[a2a][types]") {
    AgentTask task;
    task.id = "t1";
    task.contextId = "c1";
    task.status.state = TaskState::completed;
    task.artifacts.push_back(Artifact{"a1", "answer", {Part::fromText("42")}});
    for (const auto version : {ProtocolVersion::v0_3, ProtocolVersion::v1_0}) {
        auto sent = parseSendResult(toJson(SendResult(task), version));
        REQUIRE(sent);
        CHECK(std::get<AgentTask>(*sent).text() == "42");
        StatusUpdate status{"t1", "c1", task.status, true};
        auto event = parseStreamEvent(toJson(StreamEvent(status), version));
        REQUIRE(event);
        CHECK(std::get<StatusUpdate>(*event).status.state == TaskState::completed);
        ArtifactUpdate artifact{"t1", "c1", task.artifacts[0], false, true};
        auto event2 = parseStreamEvent(toJson(StreamEvent(artifact), version));
        REQUIRE(event2);
        CHECK(std::get<ArtifactUpdate>(*event2).artifact.parts[0].text == "42");
    }
    CHECK(toJson(task, ProtocolVersion::v1_0)["status"]["state"] == "TASK_STATE_COMPLETED");
    CHECK_FALSE(parseStreamEvent(json{{"kind", "weird"}}));
    CHECK_FALSE(parseStreamEvent(json{{"other", 1}}));
}

TEST_CASE("agent cards: 0.3, 1.0, and malformed ones", "[a2a][card]") {
    const json legacy = {{"name", "echo"},
                         {"url", "http://127.0.0.1:9/rpc"},
                         {"protocolVersion", "0.3.0"},
                         {"capabilities", {{"streaming", true}}}};
    auto card = parseAgentCard(legacy);
    REQUIRE(card);
    CHECK(card->preferred().version == ProtocolVersion::v0_3);
    CHECK(card->streaming);

    const json current = {
        {"name", "echo"},
        {"supportedInterfaces",
         {{{"url", "http://h/v1"}, {"protocolBinding", "JSONRPC"}, {"protocolVersion", "1.0"}},
          {{"url", "http://h/grpc"}, {"protocolBinding", "GRPC"}, {"protocolVersion", "1.0"}}}}};
    auto card2 = parseAgentCard(current);
    REQUIRE(card2);
    CHECK(card2->preferred().url == "http://h/v1");
    CHECK(card2->preferred().version == ProtocolVersion::v1_0);

    CHECK(parseAgentCard(json::array()).error().code == A2aErrc::malformed_card);
    auto noName = parseAgentCard(json{{"url", "http://h/"}});
    CHECK(noName.error().message.find("name") != std::string::npos);
    auto noInterface = parseAgentCard(json{{"name", "x"}});
    CHECK(noInterface.error().message.find("JSON-RPC interface") != std::string::npos);
    auto badUrl = parseAgentCard(json{{"name", "x"}, {"url", "ftp://h"}});
    CHECK(badUrl.error().code == A2aErrc::malformed_card);
    auto badCaps = parseAgentCard(json{{"name", "x"}, {"url", "http://h"}, {"capabilities", 3}});
    CHECK(badCaps.error().message.find("capabilities") != std::string::npos);

    // What our server writes, both clients read.
    AgentCard ours;
    ours.name = "reagent";
    ours.interfaces = {AgentInterface{"http://h/a2a", ProtocolVersion::v1_0},
                       AgentInterface{"http://h/a2a", ProtocolVersion::v0_3}};
    const json written = toJson(ours);
    CHECK(written["url"] == "http://h/a2a");
    CHECK(written["supportedInterfaces"].size() == 2);
    auto reread = parseAgentCard(written);
    REQUIRE(reread);
    CHECK(reread->preferred().version == ProtocolVersion::v1_0);
    CHECK(parseAgentCard(toJson(ours, true))->preferred().version == ProtocolVersion::v0_3);
}

TEST_CASE("fields of the wrong type never throw", "[a2a][types]") {
    const json update = {{"kind", "status-update"},
                         {"taskId", "t"},
                         {"contextId", 5},
                         {"final", "yes"},
                         {"status", {{"state", "working"}}}};
    auto event = parseStreamEvent(update);
    REQUIRE(event);
    CHECK(std::get<StatusUpdate>(*event).contextId.empty());
    CHECK_FALSE(std::get<StatusUpdate>(*event).final);
    CHECK(parsePart(json{{"kind", "data"}}));
    CHECK(parsePart(json{{"kind", "file"}, {"file", {{"uri", 3}}}}));
    CHECK(parseAgentCard(json{{"name", "x"}, {"url", "http://h"}, {"capabilities", {{"streaming", "yes"}}}}));
    CHECK(parseAgentCard(json{{"name", "x"}, {"url", "http://h"}, {"supportedInterfaces", {1, "a"}}}));
    CHECK_FALSE(parseStreamEvent(json{{"kind", "task"}, {"id", 1}}));
}
