// The server's catalog beside tools: resources, resource templates, prompts and completions.

#include "reagent/mcp/server_catalog.hpp"

#include <algorithm>
#include <utility>

#include "call_race.hpp"
#include "reagent/core/cancellation.hpp"
#include "reagent/core/json_fields.hpp"
#include "reagent/core/settle.hpp"
#include "reagent/mcp/envelope.hpp"
#include "reagent/mcp/server.hpp"
#include "server_state.hpp"
#include "server_tools.hpp"

namespace reagent::mcp {

using nlohmann::json;
using Session = ServerSession::State;

namespace {

constexpr std::size_t kMaxCompletionValues = 100;

RpcError rpcError(int code, std::string message, json data = nullptr) {
    return RpcError{code, std::move(message), std::move(data)};
}

// Exceptions and cancellation of a reader or getter, as the client's error.
const auto internalError = [](const EffectError& error) {
    return RpcError{kInternalError, "the server failed to answer: " + error.message, nullptr};
};

json contentsResult(const std::vector<ResourceContents>& contents) {
    json out = json::array();
    for (const auto& item : contents) {
        out.push_back(toJson(item));
    }
    return json{{"contents", std::move(out)}};
}

Task<void> readResource(std::shared_ptr<Session> self, RequestId id, ResourceReader reader, std::string uri) {
    auto task = reader(uri);
    auto outcome = co_await settle(std::move(task), internalError);
    if (self->closed) {
        co_return;
    }
    self->respond(id, outcome ? expected<json, RpcError>(contentsResult(*outcome))
                              : expected<json, RpcError>(fail(std::move(outcome.error()))));
}

Task<void> readTemplate(std::shared_ptr<Session> self, RequestId id, TemplateReader reader, std::string uri,
                        TemplateVariables variables) {
    auto task = reader(uri, std::move(variables));
    auto outcome = co_await settle(std::move(task), internalError);
    if (self->closed) {
        co_return;
    }
    self->respond(id, outcome ? expected<json, RpcError>(contentsResult(*outcome))
                              : expected<json, RpcError>(fail(std::move(outcome.error()))));
}

// Runs a prompt's getter, raced against its cancellation like a tool call; in 2026-07-28 a question it
// asks ends the round with input_required.
Task<void> getPrompt(std::shared_ptr<Session> self, RequestId id, AskingPromptGetter getter,
                     PromptArguments args, tools::ToolContext context, std::shared_ptr<Session::Call> state) {
    auto run = settle(getter(std::move(args), std::move(context)), internalError);
    auto racing = detail::raceCall(self, id, std::move(run), state);
    auto raced = co_await std::move(racing);
    if (raced.over) {
        co_return;
    }
    if (raced.error) {
        self->respond(id, fail(rpcError(kInternalError, "the prompt's getter failed")));
        co_return;
    }
    auto& outcome = *raced.value;
    if (!outcome) {
        if (!detail::refuseMissingCapability(*self, id, *state, "prompt")) {
            self->respond(id, fail(std::move(outcome.error())));
        }
        co_return;
    }
    json messages = json::array();
    for (auto& message : outcome->messages) {
        messages.push_back(json{{"role", message.role}, {"content", std::move(message.content)}});
    }
    json result = {{"messages", std::move(messages)}};
    if (!outcome->description.empty()) {
        result["description"] = outcome->description;
    }
    self->respond(id, std::move(result));
}

template <class Item, class Show>
expected<json, RpcError> listPage(const std::vector<Item>& items, const json& params, std::string_view prefix,
                                  const char* key, std::size_t pageSize, const Show& show) {
    auto start = detail::pageStart(params, prefix, items.size());
    if (!start) {
        return fail(std::move(start.error()));
    }
    json listed = json::array();
    const std::size_t end = std::min(items.size(), *start + pageSize);
    for (std::size_t i = *start; i < end; ++i) {
        listed.push_back(show(items[i]));
    }
    json result = {{key, std::move(listed)}};
    if (end < items.size()) {
        result["nextCursor"] = std::string(prefix) + std::to_string(end);
    }
    return result;
}

json shownResource(const Server::State::Resource& resource) {
    json out = {{"uri", resource.info.uri}, {"name", resource.info.name}};
    if (!resource.info.description.empty()) {
        out["description"] = resource.info.description;
    }
    if (!resource.info.mimeType.empty()) {
        out["mimeType"] = resource.info.mimeType;
    }
    return out;
}

json shownTemplate(const Server::State::Template& entry) {
    json out = {{"uriTemplate", entry.info.uriTemplate}, {"name", entry.info.name}};
    if (!entry.info.description.empty()) {
        out["description"] = entry.info.description;
    }
    if (!entry.info.mimeType.empty()) {
        out["mimeType"] = entry.info.mimeType;
    }
    return out;
}

json shownPrompt(const Server::State::Prompt& prompt) {
    json out = {{"name", prompt.info.name}};
    if (!prompt.info.description.empty()) {
        out["description"] = prompt.info.description;
    }
    json arguments = json::array();
    for (const auto& argument : prompt.info.arguments) {
        json shown = {{"name", argument.name}, {"required", argument.required}};
        if (!argument.description.empty()) {
            shown["description"] = argument.description;
        }
        arguments.push_back(std::move(shown));
    }
    out["arguments"] = std::move(arguments);
    return out;
}

}  // namespace

json toJson(const ResourceContents& contents) {
    json out = {{"uri", contents.uri}};
    if (!contents.mimeType.empty()) {
        out["mimeType"] = contents.mimeType;
    }
    if (contents.blob) {
        out["blob"] = *contents.blob;
    } else {
        out["text"] = contents.text;
    }
    return out;
}

void Server::State::tellSessions(const std::string& method) {
    std::erase_if(sessions, [](const auto& weak) { return weak.expired(); });
    const auto open = sessions;  // a sink may open or close sessions
    for (const auto& weak : open) {
        if (const auto session = weak.lock()) {
            if (session->initialized) {
                session->notify(method, nullptr);
            }
            session->tellListens(method, json::object());
        }
    }
}

void Server::addResource(ResourceInfo info, ResourceReader reader) {
    auto& resources = state_->resources;
    const auto found = std::find_if(resources.begin(), resources.end(),
                                    [&](const auto& resource) { return resource.info.uri == info.uri; });
    if (found != resources.end()) {
        *found = State::Resource{std::move(info), std::move(reader)};
    } else {
        resources.push_back(State::Resource{std::move(info), std::move(reader)});
    }
    state_->tellSessions("notifications/resources/list_changed");
}

expected<void, McpError> Server::addResourceTemplate(ResourceTemplateInfo info, TemplateReader reader) {
    if (!isValidUriTemplate(info.uriTemplate)) {
        return fail(McpError{McpErrc::invalid_config,
                             "not an RFC 6570 level-1 URI template: \"" + info.uriTemplate +
                                 "\" (use literal text and {name} expressions, one literal between two "
                                 "expressions)"});
    }
    state_->templates.push_back(State::Template{std::move(info), std::move(reader)});
    state_->tellSessions("notifications/resources/list_changed");
    return {};
}

bool Server::removeResource(const std::string& uri) {
    const auto removed =
        std::erase_if(state_->resources, [&](const auto& resource) { return resource.info.uri == uri; });
    if (removed > 0) {
        state_->tellSessions("notifications/resources/list_changed");
    }
    return removed > 0;
}

void Server::addPrompt(PromptInfo info, PromptGetter getter) {
    addPrompt(std::move(info),
              AskingPromptGetter([getter = std::move(getter)](PromptArguments arguments, tools::ToolContext) {
                  return getter(std::move(arguments));
              }));
}

void Server::addPrompt(PromptInfo info, AskingPromptGetter getter) {
    auto& prompts = state_->prompts;
    const auto found = std::find_if(prompts.begin(), prompts.end(),
                                    [&](const auto& prompt) { return prompt.info.name == info.name; });
    if (found != prompts.end()) {
        *found = State::Prompt{std::move(info), std::move(getter)};
    } else {
        prompts.push_back(State::Prompt{std::move(info), std::move(getter)});
    }
    state_->tellSessions("notifications/prompts/list_changed");
}

bool Server::removePrompt(const std::string& name) {
    const auto removed =
        std::erase_if(state_->prompts, [&](const auto& prompt) { return prompt.info.name == name; });
    if (removed > 0) {
        state_->tellSessions("notifications/prompts/list_changed");
    }
    return removed > 0;
}

void Server::addCompletion(CompletionRef ref, std::string argument, CompletionProvider provider) {
    state_->completions.push_back(
        State::Completion{std::move(ref), std::move(argument), std::move(provider)});
}

void Server::resourceUpdated(const std::string& uri) const {
    const auto open = state_->sessions;
    const json params = {{"uri", uri}};
    for (const auto& weak : open) {
        if (const auto session = weak.lock()) {
            if (session->initialized && session->subscriptions.contains(uri)) {
                session->notify("notifications/resources/updated", params);
            }
            session->tellListens("notifications/resources/updated", params);
        }
    }
}

namespace {

// resources/*: true when answered (else the method is unknown).
bool serveResources(Session& self, const Request& request) {
    const std::string& method = request.method;
    const json& params = request.params;
    const auto& catalog = *self.server;
    const std::size_t pageSize = catalog.options.pageSize;
    if (method == "resources/list") {
        self.respond(request.id,
                     listPage(catalog.resources, params, "resources@", "resources", pageSize, shownResource));
        return true;
    }
    if (method == "resources/templates/list") {
        self.respond(request.id, listPage(catalog.templates, params, "templates@", "resourceTemplates",
                                          pageSize, shownTemplate));
        return true;
    }
    if (method == "resources/read" || method == "resources/subscribe" || method == "resources/unsubscribe") {
        const auto uri = optionalString(params, "uri").value_or(std::nullopt);
        if (!uri) {
            self.respond(request.id, fail(rpcError(kInvalidParams, method + " needs params.uri (a string)")));
            return true;
        }
        if (method == "resources/unsubscribe") {
            self.subscriptions.erase(*uri);
            self.respond(request.id, json::object());
            return true;
        }
        const auto direct = std::find_if(catalog.resources.begin(), catalog.resources.end(),
                                         [&](const auto& resource) { return resource.info.uri == *uri; });
        std::optional<TemplateVariables> variables;
        const Server::State::Template* matched = nullptr;
        if (direct == catalog.resources.end()) {
            for (const auto& entry : catalog.templates) {
                if ((variables = matchUriTemplate(entry.info.uriTemplate, *uri))) {
                    matched = &entry;
                    break;
                }
            }
        }
        if (direct == catalog.resources.end() && matched == nullptr) {
            self.respond(request.id,
                         fail(rpcError(kResourceNotFound, "Resource not found", json{{"uri", *uri}})));
            return true;
        }
        if (method == "resources/subscribe") {
            self.subscriptions.insert(*uri);
            self.respond(request.id, json::object());
        } else if (matched == nullptr) {
            self.calls.spawn(readResource(self.shared_from_this(), request.id, direct->reader, *uri));
        } else {
            self.calls.spawn(readTemplate(self.shared_from_this(), request.id, matched->reader, *uri,
                                          std::move(*variables)));
        }
        return true;
    }
    return false;
}

// prompts/*: true when answered.
bool servePrompts(Session& self, const Request& request) {
    const std::string& method = request.method;
    const json& params = request.params;
    const auto& catalog = *self.server;
    const std::size_t pageSize = catalog.options.pageSize;
    if (method == "prompts/list") {
        self.respond(request.id,
                     listPage(catalog.prompts, params, "prompts@", "prompts", pageSize, shownPrompt));
        return true;
    }
    if (method == "prompts/get") {
        const auto name = optionalString(params, "name").value_or(std::nullopt);
        if (!name) {
            self.respond(request.id,
                         fail(rpcError(kInvalidParams, "prompts/get needs params.name (a string)")));
            return true;
        }
        const auto prompt = std::find_if(catalog.prompts.begin(), catalog.prompts.end(),
                                         [&](const auto& entry) { return entry.info.name == *name; });
        if (prompt == catalog.prompts.end()) {
            self.respond(request.id, fail(rpcError(kInvalidParams, "Unknown prompt: " + *name)));
            return true;
        }
        PromptArguments arguments;
        if (const auto given = params.find("arguments"); given != params.end() && !given->is_null()) {
            if (!given->is_object()) {
                self.respond(
                    request.id,
                    fail(rpcError(kInvalidParams, "prompts/get arguments must be an object of strings")));
                return true;
            }
            for (const auto& [key, value] : given->items()) {
                if (!value.is_string()) {
                    self.respond(
                        request.id,
                        fail(rpcError(kInvalidParams, "prompt argument " + key + " must be a string, not " +
                                                          std::string(value.type_name()))));
                    return true;
                }
                arguments.emplace(key, value.get<std::string>());
            }
        }
        for (const auto& argument : prompt->info.arguments) {
            if (argument.required && !arguments.contains(argument.name)) {
                self.respond(request.id,
                             fail(rpcError(kInvalidParams, "prompt " + *name + " needs argument " +
                                                               argument.name + " (required)")));
                return true;
            }
        }
        auto state = self.beginCall(request);
        if (!state) {
            return true;
        }
        auto context = self.contextFor(request.id, state, *name);
        self.calls.spawn(getPrompt(self.shared_from_this(), request.id, prompt->getter, std::move(arguments),
                                   std::move(context), std::move(state)));
        return true;
    }
    return false;
}

// completion/complete.
bool serveCompletion(Session& self, const Request& request) {
    const json& params = request.params;
    const auto& catalog = *self.server;
    const json ref = params.is_object() ? params.value("ref", json()) : json();
    const json argument = params.is_object() ? params.value("argument", json()) : json();
    const auto type = optionalString(ref, "type").value_or(std::nullopt);
    const auto argumentName = optionalString(argument, "name").value_or(std::nullopt);
    const auto value = optionalString(argument, "value").value_or(std::nullopt);
    if (!type || (*type != "ref/prompt" && *type != "ref/resource") || !argumentName || !value) {
        self.respond(request.id, fail(rpcError(kInvalidParams,
                                               "completion/complete needs params.ref ({type: \"ref/prompt\", "
                                               "name} or {type: \"ref/resource\", uri}) and params.argument "
                                               "({name, value})")));
        return true;
    }
    const bool isPrompt = *type == "ref/prompt";
    const auto name = optionalString(ref, isPrompt ? "name" : "uri").value_or(std::nullopt);
    const bool known =
        name && (isPrompt ? std::any_of(catalog.prompts.begin(), catalog.prompts.end(),
                                        [&](const auto& entry) { return entry.info.name == *name; })
                          : std::any_of(catalog.templates.begin(), catalog.templates.end(),
                                        [&](const auto& entry) { return entry.info.uriTemplate == *name; }) ||
                                std::any_of(catalog.resources.begin(), catalog.resources.end(),
                                            [&](const auto& entry) { return entry.info.uri == *name; }));
    if (!known) {
        self.respond(
            request.id,
            fail(rpcError(kInvalidParams, std::string(isPrompt ? "Unknown prompt: " : "Unknown resource: ") +
                                              (name ? *name : std::string("(none)")))));
        return true;
    }
    const auto kind = isPrompt ? CompletionRef::Kind::prompt : CompletionRef::Kind::resource;
    CompletionResult found;
    for (const auto& completion : catalog.completions) {
        if (completion.ref.kind == kind && completion.ref.name == *name &&
            completion.argument == *argumentName) {
            json context = json::object();
            if (const auto given = params.find("context"); given != params.end() && given->is_object()) {
                context = given->value("arguments", json::object());
            }
            auto settled = settleCall(completion.provider, *value, context);
            if (settled) {
                found = std::move(*settled);
            }
            break;
        }
    }
    if (found.values.size() > kMaxCompletionValues) {
        found.total = found.total.value_or(found.values.size());
        found.values.resize(kMaxCompletionValues);
        found.hasMore = true;
    }
    json completion = {{"values", found.values}, {"hasMore", found.hasMore}};
    if (found.total) {
        completion["total"] = *found.total;
    }
    self.respond(request.id, json{{"completion", std::move(completion)}});
    return true;
}

}  // namespace

void Session::handleCatalog(const Request& request) {
    const std::string& method = request.method;
    const auto& catalog = *server;
    bool answered = false;
    if (method.starts_with("resources/") && (!catalog.resources.empty() || !catalog.templates.empty())) {
        answered = serveResources(*this, request);
    } else if (method.starts_with("prompts/") && !catalog.prompts.empty()) {
        answered = servePrompts(*this, request);
    } else if (method == "completion/complete" && !catalog.completions.empty()) {
        answered = serveCompletion(*this, request);
    }
    if (!answered) {
        respond(request.id, fail(rpcError(kMethodNotFound, "method not found: " + method)));
    }
}

}  // namespace reagent::mcp
