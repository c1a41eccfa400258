// An output schema (`ModelRequest::output`) in each API's structured-output field: OpenAI strict where the
// schema allows it, Anthropic's subset, Gemini's rule about tools, Ollama's `format`, and NativeOutput.

#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "codec_fixture.hpp"
#include "reagent/providers/wire_format.hpp"

using namespace reagent;
using namespace reagent::providers;
using nlohmann::json;

namespace {

CodecOptions optionsFor(const std::string& model, NativeOutput mode = NativeOutput::automatic) {
    CodecOptions options;
    options.model = model;
    options.nativeOutput = mode;
    return options;
}

llm::ModelRequest asking(json schema, std::string name = "report", bool withTools = false) {
    llm::ModelRequest request;
    request.messages = {llm::Message::user("Weather in Paris?")};
    if (withTools) {
        request.tools = test::conversation().tools;
    }
    request.output =
        std::make_shared<const llm::OutputFormat>(llm::OutputFormat{std::move(name), std::move(schema)});
    return request;
}

json body(ProviderKind kind, const llm::ModelRequest& request, const CodecOptions& options) {
    return test::encode(wire::forKind(kind), request, options).json();
}

json closedReport() {
    return json::parse(R"({"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",
        "properties":{"city":{"type":"string","maxLength":40},"celsius":{"type":"integer","minimum":-90},
                      "tags":{"type":"array","items":{"type":"string"},"minItems":2}},
        "required":["city","celsius","tags"],"additionalProperties":false})");
}

}  // namespace

TEST_CASE("OpenAI: strict json_schema when the schema meets strict mode's rules", "[providers][output]") {
    const json sent = body(ProviderKind::openai, asking(closedReport()), optionsFor("gpt-4.1"));
    const json& format = sent["response_format"];
    CHECK(format["type"] == "json_schema");
    CHECK(format["json_schema"]["name"] == "report");
    CHECK(format["json_schema"]["strict"] == true);
    json expected = closedReport();
    expected.erase("$schema");
    CHECK(format["json_schema"]["schema"] == expected);

    SECTION("an object left open is closed explicitly, nested too") {
        json schema = closedReport();
        schema.erase("additionalProperties");
        schema["properties"]["place"] = {
            {"type", "object"}, {"properties", {{"name", {{"type", "string"}}}}}, {"required", {"name"}}};
        schema["required"].push_back("place");
        const json strict = body(ProviderKind::openai, asking(schema), optionsFor("m"))["response_format"];
        CHECK(strict["json_schema"]["strict"] == true);
        CHECK(strict["json_schema"]["schema"]["additionalProperties"] == false);
        CHECK(strict["json_schema"]["schema"]["properties"]["place"]["additionalProperties"] == false);
    }
}

TEST_CASE("OpenAI: best effort (strict false) when the schema breaks a strict rule", "[providers][output]") {
    json optional = closedReport();
    optional["required"] = {"city"};  // strict mode needs every property required
    json open = closedReport();
    open["additionalProperties"] = true;
    json combined = closedReport();
    combined["properties"]["city"] = {{"oneOf", {{{"type", "string"}}, {{"type", "null"}}}}};
    json notObject = {{"type", "array"}, {"items", {{"type", "string"}}}};
    const json schema = GENERATE_COPY(optional, open, combined, notObject);
    CAPTURE(schema.dump());

    const json format = body(ProviderKind::openai, asking(schema), optionsFor("m"))["response_format"];
    CHECK(format["json_schema"]["strict"] == false);
    json expected = schema;
    expected.erase("$schema");
    CHECK(format["json_schema"]["schema"] == expected);  // sent as given, not altered
}

TEST_CASE("OpenAI: a name the API refuses becomes \"output\"", "[providers][output]") {
    const json format = body(ProviderKind::openai, asking(closedReport(), "weather report!"),
                             optionsFor("m"))["response_format"];
    CHECK(format["json_schema"]["name"] == "output");
}

TEST_CASE("Anthropic: output_config.format with the schema in the API's subset", "[providers][output]") {
    const json sent = body(ProviderKind::anthropic, asking(closedReport()), optionsFor("claude-sonnet-4-5"));
    const json& format = sent["output_config"]["format"];
    CHECK(format["type"] == "json_schema");
    const json& schema = format["schema"];
    CHECK_FALSE(schema.contains("$schema"));
    CHECK(schema["additionalProperties"] == false);
    CHECK(schema["required"] == json{"city", "celsius", "tags"});
    // Unenforced constraints are kept for the model to read, in the description.
    CHECK(schema["properties"]["city"] == json{{"type", "string"}, {"description", "{maxLength: 40}"}});
    CHECK(schema["properties"]["celsius"] == json{{"type", "integer"}, {"description", "{minimum: -90}"}});
    CHECK(schema["properties"]["tags"]["description"] == "{minItems: 2}");
    CHECK(schema["properties"]["tags"]["items"] == json{{"type", "string"}});

    SECTION("open objects are closed, oneOf is anyOf, a description is kept before the note") {
        const json given = json::parse(R"({"type":"object","properties":{
            "when":{"type":"string","format":"date","description":"Day of the forecast"},
            "note":{"type":"string","pattern":"^[a-z]+$","description":"Lower case"},
            "value":{"oneOf":[{"type":"number"},{"type":"string"}]}}})");
        const json schema = body(ProviderKind::anthropic, asking(given),
                                 optionsFor("m"))["output_config"]["format"]["schema"];
        CHECK(schema["additionalProperties"] == false);
        CHECK(schema["properties"]["when"] ==
              json{{"type", "string"}, {"format", "date"}, {"description", "Day of the forecast"}});
        CHECK(schema["properties"]["note"]["description"] == "Lower case\n\n{pattern: \"^[a-z]+$\"}");
        CHECK(schema["properties"]["value"] == json{{"anyOf", {{{"type", "number"}}, {{"type", "string"}}}}});
    }
}

TEST_CASE("Anthropic: a schema the API cannot take is left to the prompt", "[providers][output]") {
    const json recursive = json::parse(R"({"type":"object","properties":{
        "name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#"}}},"required":["name"]})");
    const json mutual = json::parse(R"({"$ref":"#/$defs/A","$defs":{
        "A":{"type":"object","properties":{"b":{"$ref":"#/$defs/B"}}},
        "B":{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}}}}})");
    const json untyped = json::parse(R"({"type":"object","properties":{"anything":{"description":"x"}}})");
    const json schema = GENERATE_COPY(recursive, mutual, untyped);
    CAPTURE(schema.dump());
    const json sent = body(ProviderKind::anthropic, asking(schema), optionsFor("m"));
    CHECK_FALSE(sent.contains("output_config"));
    CHECK(sent.contains("messages"));  // the request itself is whole
}

TEST_CASE("Anthropic: definitions that refer to each other without a cycle are sent", "[providers][output]") {
    const json shared = json::parse(R"({"type":"object","$defs":{
        "Point":{"type":"object","properties":{"x":{"type":"number"}},"required":["x"]}},
        "properties":{"from":{"$ref":"#/$defs/Point"},"to":{"$ref":"#/$defs/Point"}},"required":["from","to"]})");
    const json sent = body(ProviderKind::anthropic, asking(shared), optionsFor("m"));
    REQUIRE(sent.contains("output_config"));
    const json& schema = sent["output_config"]["format"]["schema"];
    CHECK(schema["$defs"]["Point"]["additionalProperties"] == false);
    CHECK(schema["properties"]["from"] == json{{"$ref", "#/$defs/Point"}});
}

TEST_CASE("Gemini: responseJsonSchema, but not beside tools on models before Gemini 3",
          "[providers][output]") {
    const json alone = body(ProviderKind::gemini, asking(closedReport()), optionsFor("gemini-2.5-flash"));
    CHECK(alone["generationConfig"]["responseMimeType"] == "application/json");
    json expected = closedReport();
    expected.erase("$schema");
    CHECK(alone["generationConfig"]["responseJsonSchema"] == expected);

    const auto withTools = asking(closedReport(), "report", true);
    CHECK_FALSE(
        body(ProviderKind::gemini, withTools, optionsFor("gemini-2.5-flash")).contains("generationConfig"));
    CHECK_FALSE(body(ProviderKind::gemini, withTools, optionsFor("models/gemini-1.5-pro"))
                    .contains("generationConfig"));
    CHECK(body(ProviderKind::gemini, withTools, optionsFor("gemini-3-pro-preview"))["generationConfig"]
              .contains("responseJsonSchema"));
    CHECK(body(ProviderKind::gemini, withTools,
               optionsFor("gemini-2.5-flash", NativeOutput::always))["generationConfig"]
              .contains("responseJsonSchema"));
}

TEST_CASE("Ollama: the schema is `format`", "[providers][output]") {
    const json sent = body(ProviderKind::ollama, asking(closedReport()), optionsFor("qwen3"));
    json expected = closedReport();
    expected.erase("$schema");
    CHECK(sent["format"] == expected);
}

TEST_CASE("NativeOutput::never and requests without an output form send no field", "[providers][output]") {
    const auto kind =
        GENERATE(ProviderKind::anthropic, ProviderKind::openai, ProviderKind::gemini, ProviderKind::ollama);
    CAPTURE(static_cast<int>(kind));
    const json never = body(kind, asking(closedReport()), optionsFor("gemini-3-pro", NativeOutput::never));
    llm::ModelRequest plain = asking(closedReport());
    plain.output = nullptr;
    const json none = body(kind, plain, optionsFor("gemini-3-pro"));
    for (const json& sent : {never, none}) {
        CHECK_FALSE(sent.contains("response_format"));
        CHECK_FALSE(sent.contains("output_config"));
        CHECK_FALSE(sent.contains("generationConfig"));
        CHECK_FALSE(sent.contains("format"));
    }
    // And the body is the same as without any output form.
    CHECK(never == none);
}

TEST_CASE("Anthropic: a model without structured outputs answers through a forced tool",
          "[providers][output]") {
    struct Case {
        std::string model;
        NativeOutput mode;
        bool tool;
    };
    const auto testCase = GENERATE(Case{"claude-3-5-haiku-20241022", NativeOutput::automatic, true},
                                   Case{"claude-sonnet-4-0", NativeOutput::automatic, true},
                                   Case{"claude-opus-4-20250514", NativeOutput::automatic, true},
                                   Case{"claude-sonnet-4-5", NativeOutput::automatic, false},
                                   Case{"claude-sonnet-4-5", NativeOutput::tool, true},
                                   Case{"claude-3-haiku-20240307", NativeOutput::always, false},
                                   Case{"claude-3-haiku-20240307", NativeOutput::never, false});
    const bool withTools = GENERATE(false, true);
    CAPTURE(testCase.model, static_cast<int>(testCase.mode), withTools);
    const json sent = body(ProviderKind::anthropic, asking(closedReport(), "report", withTools),
                           optionsFor(testCase.model, testCase.mode));
    CHECK(sent.contains("output_config") == (!testCase.tool && testCase.mode != NativeOutput::never));
    if (!testCase.tool) {
        CHECK_FALSE(sent.contains("tool_choice"));
        return;
    }
    REQUIRE(sent.contains("tools"));
    const json& answer = sent["tools"].back();
    CHECK(answer["name"] == "report");
    json expected = closedReport();
    expected.erase("$schema");
    CHECK(answer["input_schema"] == expected);  // as given: a tool's schema is not limited to the subset
    CHECK(sent["tools"].size() == (withTools ? 3U : 1U));
    if (withTools) {
        CHECK(sent["tool_choice"] == json{{"type", "any"}});  // tool turns go on
    } else {
        CHECK(sent["tool_choice"] == json{{"type", "tool"}, {"name", "report"}});
    }
}

TEST_CASE("Anthropic: the answer tool's name never takes an agent tool's, and a non-object answer is wrapped",
          "[providers][output]") {
    llm::ModelRequest request = asking(json::parse(R"({"type":"array","items":{"$ref":"#/$defs/City"},
        "$defs":{"City":{"type":"string"}}})"),
                                       "get_weather", true);
    const auto encoded = test::encode(wire::anthropic(), request, optionsFor("m", NativeOutput::tool));
    const json sent = encoded.json();
    const json& answer = sent["tools"].back();
    CHECK(answer["name"] == "get_weather_answer");
    CHECK(answer["input_schema"] == json::parse(R"({"type":"object","required":["value"],
        "additionalProperties":false,"$defs":{"City":{"type":"string"}},
        "properties":{"value":{"type":"array","items":{"$ref":"#/$defs/City"}}}})"));
    CHECK(answer["description"].get<std::string>().find("`value`") != std::string::npos);

    // The answer comes back as the reply's text: the value, unwrapped; the call beside it is not run.
    const std::string reply = R"({"id":"msg_1","type":"message","role":"assistant","model":"m","content":[
        {"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}},
        {"type":"tool_use","id":"toolu_2","name":"get_weather_answer","input":{"value":["Paris","Lyon"]}}],
        "stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":3,"output_tokens":5}})";
    const auto decoded = test::decode(wire::anthropic(), 200, reply, encoded.toolNames);
    REQUIRE(decoded);
    CHECK(decoded->text == R"(["Paris","Lyon"])");
    CHECK(decoded->toolCalls.empty());
    CHECK(decoded->stopReason == llm::StopReason::end_turn);
    CHECK(decoded->usage.outputTokens == 5);

    // Without the answer tool in the request, the same reply is two calls, as before.
    const auto plain = test::decode(wire::anthropic(), 200, reply,
                                    test::encode(wire::anthropic(), request, optionsFor("m")).toolNames);
    REQUIRE(plain);
    CHECK(plain->toolCalls.size() == 2);
}

TEST_CASE("Anthropic: a streamed answer tool's input streams as the reply's text", "[providers][output]") {
    const llm::ModelRequest request = asking(closedReport(), "report", true);
    const auto encoded = test::encode(wire::anthropic(), request, optionsFor("claude-3-7-sonnet-latest"));
    REQUIRE(encoded.json()["tool_choice"] == json{{"type", "any"}});
    const std::string sse =
        "event: message_start\n"
        R"(data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-3-7-sonnet-20250219","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":20,"output_tokens":1}}})"
        "\n\nevent: content_block_start\n"
        R"(data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_9","name":"report","input":{}}})"
        "\n\nevent: content_block_delta\n"
        R"(data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"city\": \"Pa"}})"
        "\n\nevent: content_block_delta\n"
        R"(data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"ris\", \"celsius\": 18, \"tags\": [\"a\", \"b\"]}"}})"
        "\n\nevent: content_block_stop\n"
        R"(data: {"type":"content_block_stop","index":0})"
        "\n\nevent: message_delta\n"
        R"(data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":17}})"
        "\n\nevent: message_stop\n"
        R"(data: {"type":"message_stop"})"
        "\n\n";
    const test::StreamRun run = test::checkEverySplit(sse, [&](const std::vector<std::string_view>& chunks) {
        return test::runStream(wire::anthropic().streamDecoder(encoded.toolNames), chunks);
    });
    REQUIRE(run.reply);
    const std::string answer = R"({"city": "Paris", "celsius": 18, "tags": ["a", "b"]})";
    CHECK(run.reply->text == answer);
    CHECK(run.reply->toolCalls.empty());
    CHECK(run.reply->stopReason == llm::StopReason::end_turn);
    CHECK(test::describe(run.deltas) ==
          R"([text {"city": "Pa][text ris", "celsius": 18, "tags": ["a", "b"]}])");
}
