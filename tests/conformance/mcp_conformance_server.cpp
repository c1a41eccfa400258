// The server the official MCP conformance suite tests (run_server_suite.sh): every tool, resource,
// resource template, prompt and completion its server scenarios ask for, served by mcp::Server.
//
// usage: mcp_conformance_server [--http HOST:PORT]
// Without options it serves stdio (run_server_suite.sh puts it behind supergateway); with --http it serves
// streamable HTTP through mcp::serveHttp when reagent::mcp_server_http is built.

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "reagent/core/parallel.hpp"
#include "reagent/mcp/serve_stdio.hpp"
#include "reagent/mcp/server.hpp"
#include "reagent/mcp/tool_channel.hpp"
#include "reagent/tools/tool_builder.hpp"
#if defined(REAGENT_CONFORMANCE_HTTP)
#include "reagent/mcp/serve_http.hpp"
#endif

namespace asio = boost::asio;
namespace mcp = reagent::mcp;
namespace tools = reagent::tools;
using nlohmann::json;
using reagent::expected;
using reagent::Task;

namespace {

// A 1x1 PNG and a WAV with no samples: the scenarios check the shape, not the picture or the sound.
constexpr const char* kPng =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
constexpr const char* kWav = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=";

json imageBlock() {
    return json{{"type", "image"}, {"data", kPng}, {"mimeType", "image/png"}};
}

json resourceBlock(std::string uri, std::string mimeType, std::string text) {
    return json{{"type", "resource"},
                {"resource",
                 {{"uri", std::move(uri)}, {"mimeType", std::move(mimeType)}, {"text", std::move(text)}}}};
}

void addTool(tools::ToolRegistry& registry, tools::ToolBuilder& builder) {
    auto tool = builder.build();
    if (!tool) {
        std::fprintf(stderr, "mcp_conformance_server: %s\n", tool.error().message.c_str());
        std::exit(2);
    }
    if (auto added = registry.add(std::move(*tool)); !added) {
        std::fprintf(stderr, "mcp_conformance_server: %s\n", added.error().message.c_str());
        std::exit(2);
    }
}

Task<void> pause(tools::ToolContext context, int ms) {
    asio::steady_timer timer(context.executor, std::chrono::milliseconds(ms));
    co_await timer.async_wait(asio::use_awaitable);
}

Task<tools::ToolResult> withLogging(json, tools::ToolContext context) {
    const char* steps[] = {"Tool execution started", "Tool processing data", "Tool execution completed"};
    for (int i = 0; i < 3; ++i) {
        mcp::logToClient(context, mcp::LogLevel::info, steps[i], "conformance");
        if (i < 2) {
            auto wait = pause(context, 50);
            co_await std::move(wait);
        }
    }
    co_return std::string("Tool with logging executed successfully");
}

Task<tools::ToolResult> withProgress(json, tools::ToolContext context) {
    for (int i = 0; i <= 2; ++i) {
        context.reportProgress(tools::ToolProgress{i * 50.0, 100.0, "step " + std::to_string(i + 1)});
        if (i < 2) {
            auto wait = pause(context, 50);
            co_await std::move(wait);
        }
    }
    co_return std::string("Progress test completed");
}

Task<tools::ToolResult> sampling(json args, tools::ToolContext context) {
    mcp::SamplingRequest request;
    request.messages.push_back(
        mcp::SamplingMessage{"user", json{{"type", "text"}, {"text", args["prompt"].get<std::string>()}}});
    request.maxTokens = 100;
    auto asked = mcp::sample(context, std::move(request));
    auto answer = co_await std::move(asked);
    if (!answer) {
        co_return reagent::fail(std::move(answer.error()));
    }
    const std::string text = answer->content.value("text", answer->content.dump());
    co_return "LLM response: " + text;
}

Task<tools::ToolResult> elicitWith(tools::ToolContext context, std::string message, json schema) {
    mcp::ElicitRequest request{std::move(message), std::move(schema), {}};
    auto asked = mcp::elicit(context, std::move(request));
    auto answer = co_await std::move(asked);
    if (!answer) {
        co_return reagent::fail(std::move(answer.error()));
    }
    co_return "User response: action=" + answer->action + ", content=" + answer->content.dump();
}

Task<tools::ToolResult> elicitation(json args, tools::ToolContext context) {
    json schema = {{"type", "object"},
                   {"properties",
                    {{"username", {{"type", "string"}, {"description", "User's response"}}},
                     {"email", {{"type", "string"}, {"description", "User's email address"}}}}},
                   {"required", {"username", "email"}}};
    return elicitWith(std::move(context), args["message"].get<std::string>(), std::move(schema));
}

Task<tools::ToolResult> elicitationDefaults(json, tools::ToolContext context) {
    json schema = {
        {"type", "object"},
        {"properties",
         {{"name", {{"type", "string"}, {"description", "User name"}, {"default", "John Doe"}}},
          {"age", {{"type", "integer"}, {"description", "User age"}, {"default", 30}}},
          {"score", {{"type", "number"}, {"description", "User score"}, {"default", 95.5}}},
          {"status",
           {{"type", "string"},
            {"description", "User status"},
            {"enum", {"active", "inactive", "pending"}},
            {"default", "active"}}},
          {"verified", {{"type", "boolean"}, {"description", "Verification status"}, {"default", true}}}}},
        {"required", json::array()}};
    return elicitWith(std::move(context), "Please review and update the form fields with defaults",
                      std::move(schema));
}

Task<tools::ToolResult> elicitationEnums(json, tools::ToolContext context) {
    const auto titled = [](const char* prefix, const char* word) {
        json options = json::array();
        const char* names[] = {"First", "Second", "Third"};
        for (int i = 0; i < 3; ++i) {
            options.push_back({{"const", std::string(prefix) + std::to_string(i + 1)},
                               {"title", std::string(names[i]) + " " + word}});
        }
        return options;
    };
    json schema = {
        {"type", "object"},
        {"properties",
         {{"untitledSingle", {{"type", "string"}, {"enum", {"option1", "option2", "option3"}}}},
          {"titledSingle", {{"type", "string"}, {"oneOf", titled("value", "Option")}}},
          {"legacyEnum",
           {{"type", "string"},
            {"enum", {"opt1", "opt2", "opt3"}},
            {"enumNames", {"Option One", "Option Two", "Option Three"}}}},
          {"untitledMulti",
           {{"type", "array"}, {"items", {{"type", "string"}, {"enum", {"option1", "option2", "option3"}}}}}},
          {"titledMulti", {{"type", "array"}, {"items", {{"anyOf", titled("value", "Choice")}}}}}}},
        {"required", json::array()}};
    return elicitWith(std::move(context), "Please select options from the enum fields", std::move(schema));
}

// The 2026-07-28 fixtures: questions answered over rounds (input_required), asked through the same
// helpers as 2025's server->client requests.

mcp::ElicitRequest form(std::string key, std::string message, std::string field, std::string type) {
    json schema = {{"type", "object"},
                   {"properties", {{field, {{"type", std::move(type)}}}}},
                   {"required", json::array({field})}};
    return mcp::ElicitRequest{std::move(message), std::move(schema), std::move(key)};
}

mcp::SamplingRequest question(std::string key, std::string text) {
    mcp::SamplingRequest request;
    request.messages.push_back(
        mcp::SamplingMessage{"user", json{{"type", "text"}, {"text", std::move(text)}}});
    request.maxTokens = 100;
    request.key = std::move(key);
    return request;
}

std::string accepted(const mcp::ElicitResult& answer, const std::string& field) {
    if (answer.action != "accept" || !answer.content.is_object() || !answer.content.contains(field)) {
        return "(" + answer.action + ")";
    }
    const json& value = answer.content[field];
    return value.is_string() ? value.get<std::string>() : value.dump();
}

Task<tools::ToolResult> askName(json, tools::ToolContext context) {
    auto asked = mcp::elicit(context, form("user_name", "What is your name?", "name", "string"));
    auto answer = co_await std::move(asked);
    if (!answer) {
        co_return reagent::fail(std::move(answer.error()));
    }
    co_return "Hello, " + accepted(*answer, "name") + "!";
}

Task<tools::ToolResult> askCapital(json, tools::ToolContext context) {
    auto asked = mcp::sample(context, question("capital_question", "What is the capital of France?"));
    auto answer = co_await std::move(asked);
    if (!answer) {
        co_return reagent::fail(std::move(answer.error()));
    }
    co_return "Answer: " + answer->content.value("text", answer->content.dump());
}

Task<tools::ToolResult> askRoots(json, tools::ToolContext context) {
    auto asked = mcp::listRoots(context, "client_roots");
    auto roots = co_await std::move(asked);
    if (!roots) {
        co_return reagent::fail(std::move(roots.error()));
    }
    std::string text = "Roots:";
    for (const auto& root : *roots) {
        text += " " + root.uri;
    }
    co_return text;
}

Task<tools::ToolResult> askConfirm(json, tools::ToolContext context) {
    auto asked = mcp::elicit(context, form("confirm", "Please confirm", "ok", "boolean"));
    auto answer = co_await std::move(asked);
    if (!answer) {
        co_return reagent::fail(std::move(answer.error()));
    }
    co_return "state-ok: confirmed " + accepted(*answer, "ok");
}

Task<tools::ToolResult> askInTurn(json, tools::ToolContext context) {
    auto first = mcp::elicit(context, form("step1", "What is your name?", "name", "string"));
    auto name = co_await std::move(first);
    if (!name) {
        co_return reagent::fail(std::move(name.error()));
    }
    auto second = mcp::elicit(context, form("step2", "What is your favourite colour?", "color", "string"));
    auto color = co_await std::move(second);
    if (!color) {
        co_return reagent::fail(std::move(color.error()));
    }
    co_return accepted(*name, "name") + " likes " + accepted(*color, "color");
}

// Questions asked at once: each is a task of its own, so that one round lists all of them (and a
// question whose capability was not declared fails alone).
Task<tools::ToolResult> askTogether(tools::ToolContext context, bool withRoots) {
    const std::vector<int> which = withRoots ? std::vector<int>{0, 1, 2} : std::vector<int>{0, 1};
    auto asking = reagent::parallelMap(which, which.size(), [context](int kind) -> Task<std::string> {
        if (kind == 0) {
            auto asked = mcp::elicit(context, form("user_name", "What is your name?", "name", "string"));
            auto answer = co_await std::move(asked);
            co_return answer ? accepted(*answer, "name") : "-";
        }
        if (kind == 1) {
            auto asked = mcp::sample(context, question("capital_question", "What is the capital of France?"));
            auto answer = co_await std::move(asked);
            co_return answer ? answer->content.value("text", std::string("?")) : "-";
        }
        auto asked = mcp::listRoots(context, "client_roots");
        auto roots = co_await std::move(asked);
        co_return roots ? std::to_string(roots->size()) + " roots" : "-";
    });
    auto answers = co_await std::move(asking);
    std::string text = "Answers:";
    for (const auto& answer : answers) {
        text += " " + (answer ? *answer : std::string("-"));
    }
    co_return text;
}

void registerModernTools(tools::ToolRegistry& registry) {
    using tools::ToolBuilder;
    const auto add = [&registry](const char* name, const char* description, tools::ToolHandler handler) {
        auto builder = ToolBuilder::create(name);
        builder.description(description).timeout(std::chrono::seconds(60)).handler(std::move(handler));
        addTool(registry, builder);
    };
    add("test_input_required_result_elicitation", "Asks the user's name (input_required, elicitation)",
        askName);
    add("test_input_required_result_sampling",
        "Asks the client's model a question (input_required, sampling)", askCapital);
    add("test_input_required_result_list_roots", "Asks the client's roots (input_required, roots/list)",
        askRoots);
    add("test_input_required_result_request_state", "Asks for a confirmation, with a sealed requestState",
        askConfirm);
    add("test_input_required_result_multi_round", "Asks two questions, one round each", askInTurn);
    add("test_input_required_result_tampered_state", "Asks for a confirmation; a tampered state is refused",
        askConfirm);
    add("test_input_required_result_multiple_inputs", "Asks three questions in one round",
        [](json, tools::ToolContext context) { return askTogether(std::move(context), true); });
    add("test_input_required_result_capabilities", "Asks only what the request's capabilities allow",
        [](json, tools::ToolContext context) { return askTogether(std::move(context), false); });
    add("test_missing_capability", "Needs sampling, which the request must declare", askCapital);
    add("test_streaming_elicitation", "Asks the user while the call runs", askName);
    add("test_logging_tool", "Logs while it runs (only to a request that asks for log lines)",
        [](json args, tools::ToolContext context) {
            return withLogging(std::move(args), std::move(context));
        });
}

// Tools that change the server's lists, so that subscriptions/listen streams hear of it. They hold a copy
// of the server (a handle), which lives as long as the process.
void registerChangeTriggers(tools::ToolRegistry& registry, mcp::Server server) {
    using tools::ToolBuilder;
    auto tools = ToolBuilder::create("test_trigger_tool_change");
    tools.description("Adds or removes the tool test_dynamic_tool (tools list_changed)")
        .handler([&registry](json, tools::ToolContext) -> Task<tools::ToolResult> {
            if (registry.find("test_dynamic_tool")) {
                (void)registry.remove("test_dynamic_tool");
                co_return std::string("removed test_dynamic_tool");
            }
            auto dynamic = ToolBuilder::create("test_dynamic_tool");
            dynamic.description("Comes and goes")
                .handler([](json, tools::ToolContext) -> Task<tools::ToolResult> {
                    co_return std::string("dynamic");
                });
            addTool(registry, dynamic);
            co_return std::string("added test_dynamic_tool");
        });
    addTool(registry, tools);
    auto prompts = ToolBuilder::create("test_trigger_prompt_change");
    prompts.description("Adds or removes the prompt test_dynamic_prompt (prompts list_changed)")
        .handler([server](json, tools::ToolContext) mutable -> Task<tools::ToolResult> {
            if (server.removePrompt("test_dynamic_prompt")) {
                co_return std::string("removed test_dynamic_prompt");
            }
            server.addPrompt(mcp::PromptInfo{"test_dynamic_prompt", "Comes and goes", {}},
                             [](mcp::PromptArguments) -> Task<expected<mcp::PromptResult, mcp::RpcError>> {
                                 co_return mcp::PromptResult{};
                             });
            co_return std::string("added test_dynamic_prompt");
        });
    addTool(registry, prompts);
}

// A prompt that asks the user for context first (2026-07-28: input_required on prompts/get).
void registerAskingPrompt(mcp::Server& server) {
    server.addPrompt(
        mcp::PromptInfo{
            "test_input_required_result_prompt", "Asks the user for context, then builds the prompt", {}},
        [](mcp::PromptArguments,
           tools::ToolContext context) -> Task<expected<mcp::PromptResult, mcp::RpcError>> {
            auto asked = mcp::elicit(
                context, form("user_context", "What should the prompt be about?", "context", "string"));
            auto answer = co_await std::move(asked);
            if (!answer) {
                co_return reagent::fail(mcp::RpcError{-32603, answer.error().message, nullptr});
            }
            mcp::PromptResult result;
            result.messages.push_back(mcp::PromptMessage{
                "user", json{{"type", "text"}, {"text", "Context: " + accepted(*answer, "context")}}});
            co_return result;
        });
}

void registerTools(tools::ToolRegistry& registry) {
    using tools::ParamOptions;
    using tools::ToolBuilder;
    auto simple = ToolBuilder::create("test_simple_text");
    simple.description("Tests simple text content response")
        .handler([](json, tools::ToolContext) -> Task<tools::ToolResult> {
            co_return std::string("This is a simple text response for testing.");
        });
    addTool(registry, simple);

    auto image = ToolBuilder::create("test_image_content");
    image.description("Tests image content response")
        .handler([](json, tools::ToolContext context) -> Task<tools::ToolResult> {
            context.content->push_back(imageBlock());
            co_return std::string();
        });
    addTool(registry, image);

    auto audio = ToolBuilder::create("test_audio_content");
    audio.description("Tests audio content response")
        .handler([](json, tools::ToolContext context) -> Task<tools::ToolResult> {
            context.content->push_back(json{{"type", "audio"}, {"data", kWav}, {"mimeType", "audio/wav"}});
            co_return std::string();
        });
    addTool(registry, audio);

    auto embedded = ToolBuilder::create("test_embedded_resource");
    embedded.description("Tests embedded resource content response")
        .handler([](json, tools::ToolContext context) -> Task<tools::ToolResult> {
            context.content->push_back(resourceBlock("test://embedded-resource", "text/plain",
                                                     "This is an embedded resource content."));
            co_return std::string();
        });
    addTool(registry, embedded);

    auto mixed = ToolBuilder::create("test_multiple_content_types");
    mixed.description("Tests response with multiple content types (text, image, resource)")
        .handler([](json, tools::ToolContext context) -> Task<tools::ToolResult> {
            context.content->push_back(imageBlock());
            context.content->push_back(resourceBlock("test://mixed-content-resource", "application/json",
                                                     R"({"test":"data","value":123})"));
            co_return std::string("Multiple content types test:");
        });
    addTool(registry, mixed);

    auto logging = ToolBuilder::create("test_tool_with_logging");
    logging.description("Tests tool that emits log messages during execution").handler(withLogging);
    addTool(registry, logging);

    auto progress = ToolBuilder::create("test_tool_with_progress");
    progress.description("Tests tool that reports progress notifications").handler(withProgress);
    addTool(registry, progress);

    auto error = ToolBuilder::create("test_error_handling");
    error.description("Tests error response handling")
        .handler([](json, tools::ToolContext) -> Task<tools::ToolResult> {
            co_return reagent::fail(
                tools::ToolError::failure("This tool intentionally returns an error for testing"));
        });
    addTool(registry, error);

    auto sample = ToolBuilder::create("test_sampling");
    sample.description("Tests server-initiated sampling (LLM completion request)")
        .param("prompt", "string", "The prompt to send to the LLM", ParamOptions{.required = true})
        .timeout(std::chrono::seconds(60))
        .handler(sampling);
    addTool(registry, sample);

    auto elicit = ToolBuilder::create("test_elicitation");
    elicit.description("Tests server-initiated elicitation (user input request)")
        .param("message", "string", "The message to show the user", ParamOptions{.required = true})
        .timeout(std::chrono::seconds(60))
        .handler(elicitation);
    addTool(registry, elicit);

    auto defaults = ToolBuilder::create("test_elicitation_sep1034_defaults");
    defaults.description("Tests elicitation with default values per SEP-1034")
        .timeout(std::chrono::seconds(60))
        .handler(elicitationDefaults);
    addTool(registry, defaults);

    auto enums = ToolBuilder::create("test_elicitation_sep1330_enums");
    enums.description("Tests elicitation with enum schema improvements per SEP-1330")
        .timeout(std::chrono::seconds(60))
        .handler(elicitationEnums);
    addTool(registry, enums);

    auto schema2020 = ToolBuilder::create("json_schema_2020_12_tool");
    schema2020.description("Tool with JSON Schema 2020-12 features")
        .schema(
            json{{"$schema", "https://json-schema.org/draft/2020-12/schema"},
                 {"type", "object"},
                 {"$defs",
                  {{"address",
                    {{"type", "object"},
                     {"properties", {{"street", {{"type", "string"}}}, {"city", {{"type", "string"}}}}}}}}},
                 {"properties", {{"name", {{"type", "string"}}}, {"address", {{"$ref", "#/$defs/address"}}}}},
                 {"additionalProperties", false}})
        .handler([](json args, tools::ToolContext) -> Task<tools::ToolResult> {
            co_return "JSON Schema 2020-12 tool called with: " + args.dump();
        });
    addTool(registry, schema2020);

    auto reconnection = ToolBuilder::create("test_reconnection");
    reconnection.description("Tests SSE stream disconnection and client reconnection (SEP-1699)")
        .handler([](json, tools::ToolContext context) -> Task<tools::ToolResult> {
            auto wait = pause(context, 100);
            co_await std::move(wait);
            co_return std::string("Reconnection test completed successfully");
        });
    addTool(registry, reconnection);
}

Task<expected<std::vector<mcp::ResourceContents>, mcp::RpcError>> staticResource(
    mcp::ResourceContents contents) {
    std::vector<mcp::ResourceContents> out;
    out.push_back(std::move(contents));
    co_return out;
}

void registerCatalog(mcp::Server& server) {
    server.addResource(
        mcp::ResourceInfo{"test://static-text", "Static Text Resource", "A static text resource for testing",
                          "text/plain"},
        [](std::string uri) {
            return staticResource(mcp::ResourceContents{
                std::move(uri), "text/plain", "This is the content of the static text resource.", {}});
        });
    server.addResource(
        mcp::ResourceInfo{"test://static-binary", "Static Binary Resource",
                          "A static binary resource (image) for testing", "image/png"},
        [](std::string uri) {
            return staticResource(mcp::ResourceContents{std::move(uri), "image/png", {}, kPng});
        });
    server.addResource(mcp::ResourceInfo{"test://watched-resource", "Watched Resource",
                                         "A resource that can be subscribed to", "text/plain"},
                       [](std::string uri) {
                           return staticResource(mcp::ResourceContents{
                               std::move(uri), "text/plain", "Watched resource content", {}});
                       });
    auto added = server.addResourceTemplate(
        mcp::ResourceTemplateInfo{"test://template/{id}/data", "Resource Template",
                                  "A resource template with parameter substitution", "application/json"},
        [](std::string uri, mcp::TemplateVariables variables) {
            const std::string id = variables["id"];
            const json data = {{"id", id}, {"templateTest", true}, {"data", "Data for ID: " + id}};
            return staticResource(mcp::ResourceContents{std::move(uri), "application/json", data.dump(), {}});
        });
    if (!added) {
        std::fprintf(stderr, "mcp_conformance_server: %s\n", added.error().message.c_str());
        std::exit(2);
    }

    const auto messages = [](std::vector<mcp::PromptMessage> list) {
        return [list](mcp::PromptArguments) -> Task<expected<mcp::PromptResult, mcp::RpcError>> {
            return
                [](std::vector<mcp::PromptMessage> copy) -> Task<expected<mcp::PromptResult, mcp::RpcError>> {
                    co_return mcp::PromptResult{{}, std::move(copy)};
                }(list);
        };
    };
    const auto textBlock = [](std::string text) { return json{{"type", "text"}, {"text", std::move(text)}}; };
    server.addPrompt(
        mcp::PromptInfo{"test_simple_prompt", "A simple prompt without arguments", {}},
        messages({mcp::PromptMessage{"user", textBlock("This is a simple prompt for testing.")}}));
    server.addPrompt(mcp::PromptInfo{"test_prompt_with_image", "A prompt that includes image content", {}},
                     messages({mcp::PromptMessage{"user", imageBlock()},
                               mcp::PromptMessage{"user", textBlock("Please analyze the image above.")}}));
    server.addPrompt(
        mcp::PromptInfo{"test_prompt_with_arguments",
                        "A prompt with required arguments",
                        {mcp::PromptArgument{"arg1", "First test argument", true},
                         mcp::PromptArgument{"arg2", "Second test argument", true}}},
        [](mcp::PromptArguments args) -> Task<expected<mcp::PromptResult, mcp::RpcError>> {
            return [](mcp::PromptArguments given) -> Task<expected<mcp::PromptResult, mcp::RpcError>> {
                const std::string text =
                    "Prompt with arguments: arg1='" + given["arg1"] + "', arg2='" + given["arg2"] + "'";
                std::vector<mcp::PromptMessage> out;
                out.push_back(mcp::PromptMessage{"user", json{{"type", "text"}, {"text", text}}});
                co_return mcp::PromptResult{{}, std::move(out)};
            }(std::move(args));
        });
    server.addPrompt(
        mcp::PromptInfo{"test_prompt_with_embedded_resource",
                        "A prompt that includes an embedded resource",
                        {mcp::PromptArgument{"resourceUri", "URI of the resource to embed", true}}},
        [](mcp::PromptArguments args) -> Task<expected<mcp::PromptResult, mcp::RpcError>> {
            return [](mcp::PromptArguments given) -> Task<expected<mcp::PromptResult, mcp::RpcError>> {
                std::vector<mcp::PromptMessage> out;
                out.push_back(
                    mcp::PromptMessage{"user", resourceBlock(given["resourceUri"], "text/plain",
                                                             "Embedded resource content for testing.")});
                out.push_back(mcp::PromptMessage{
                    "user", json{{"type", "text"}, {"text", "Please process the embedded resource above."}}});
                co_return mcp::PromptResult{{}, std::move(out)};
            }(std::move(args));
        });
    server.addCompletion(mcp::CompletionRef{mcp::CompletionRef::Kind::prompt, "test_prompt_with_arguments"},
                         "arg1", [](const std::string& value, const json&) {
                             mcp::CompletionResult result;
                             for (const char* option : {"paris", "park", "party", "test", "testing"}) {
                                 if (std::string(option).starts_with(value)) {
                                     result.values.emplace_back(option);
                                 }
                             }
                             result.total = result.values.size();
                             return result;
                         });
}

bool splitHostPort(const std::string& text, std::string& host, unsigned short& port) {
    const auto colon = text.rfind(':');
    if (colon == std::string::npos || colon == 0) {
        return false;
    }
    host = text.substr(0, colon);
    const int number = std::atoi(text.c_str() + colon + 1);
    if (number <= 0 || number > 65535) {
        return false;
    }
    port = static_cast<unsigned short>(number);
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    std::string http;
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        if (flag == "--http" && i + 1 < argc) {
            http = argv[++i];
        } else {
            std::fprintf(stderr, "usage: mcp_conformance_server [--http HOST:PORT]\n");
            return 2;
        }
    }
    auto registry = std::make_shared<tools::ToolRegistry>();
    registerTools(*registry);
    registerModernTools(*registry);
    mcp::ServerOptions options;
    options.info = mcp::Implementation{"reagent-conformance-server", "1.0.0", {}};
    mcp::Server server(registry, options);
    registerCatalog(server);
    registerChangeTriggers(*registry, server);
    registerAskingPrompt(server);

    asio::io_context io;
    int status = 0;
    const auto done = [&status](std::exception_ptr error, expected<void, mcp::McpError> served) {
        if (error || !served) {
            std::fprintf(stderr, "mcp_conformance_server: %s\n",
                         served ? "exception" : served.error().message.c_str());
            status = 1;
        }
    };
    if (!http.empty()) {
        std::string host;
        unsigned short port = 0;
        if (!splitHostPort(http, host, port)) {
            std::fprintf(stderr, "mcp_conformance_server: --http wants HOST:PORT, got %s\n", http.c_str());
            return 2;
        }
#if defined(REAGENT_CONFORMANCE_HTTP)
        mcp::HttpServeOptions serve;
        serve.address = host;  // HttpServeOptions as drafted in the HTTP driver (address, port)
        serve.port = port;
        asio::co_spawn(io, mcp::serveHttp(server, serve), done);
#else
        std::fprintf(stderr, "mcp_conformance_server: built without reagent::mcp_server_http; serve stdio\n");
        return 2;
#endif
    } else {
        asio::co_spawn(io, mcp::serveStdio(server), done);
    }
    io.run();
    return status;
}
