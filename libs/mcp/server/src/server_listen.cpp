// subscriptions/listen (2026-07-28): a request that stays open and carries the change notifications the
// client asked for, each tagged with the listen's id. It replaces 2025's standalone stream and
// resources/subscribe; it ends when the client cancels it (stdio) or closes its stream (HTTP).

#include <utility>

#include "reagent/mcp/envelope.hpp"
#include "server_state.hpp"

namespace reagent::mcp {

using nlohmann::json;
using Session = ServerSession::State;

namespace {

bool flag(const json& filter, const char* name) {
    const auto found = filter.find(name);
    return found != filter.end() && found->is_boolean() && found->get<bool>();
}

json subscriptionMeta(const RequestId& id) {
    return json{{std::string(kMetaSubscriptionId), jsonrpc::toJson(id)}};
}

}  // namespace

void Session::listen(const Request& request) {
    const json& params = request.params;
    const auto filter = params.is_object() ? params.find("notifications") : params.end();
    if (!params.is_object() || filter == params.end() || !filter->is_object()) {
        respond(request.id, fail(RpcError{kInvalidParams,
                                          "subscriptions/listen needs params.notifications: an object "
                                          "naming what to hear (toolsListChanged, promptsListChanged, "
                                          "resourcesListChanged: true; resourceSubscriptions: [uri, ...])",
                                          nullptr}));
        return;
    }
    if (server->listens >= server->options.maxListens) {
        respond(request.id, fail(RpcError{kInternalError,
                                          "Subscription limit reached: this server holds " +
                                              std::to_string(server->listens) +
                                              " subscriptions/listen requests, its limit",
                                          nullptr}));
        return;
    }
    // Only what the server serves is honoured, and the acknowledgement says which.
    const json served = capabilities();
    Listen heard;
    heard.tools = flag(*filter, "toolsListChanged");
    heard.prompts = served.contains("prompts") && flag(*filter, "promptsListChanged");
    heard.resources = served.contains("resources") && flag(*filter, "resourcesListChanged");
    if (const auto uris = filter->find("resourceSubscriptions");
        served.contains("resources") && uris != filter->end() && uris->is_array()) {
        for (const auto& uri : *uris) {
            if (uri.is_string()) {
                heard.uris.insert(uri.get<std::string>());
            }
        }
    }
    json honoured = json::object();
    if (heard.tools) {
        honoured["toolsListChanged"] = true;
    }
    if (heard.prompts) {
        honoured["promptsListChanged"] = true;
    }
    if (heard.resources) {
        honoured["resourcesListChanged"] = true;
    }
    if (!heard.uris.empty()) {
        honoured["resourceSubscriptions"] = json(heard.uris);
    }
    listens.emplace(request.id, std::move(heard));
    ++server->listens;
    json ack = {{"notifications", std::move(honoured)}, {"_meta", subscriptionMeta(request.id)}};
    send(OutgoingFrame{rpc.notify("notifications/subscriptions/acknowledged", std::move(ack)), request.id,
                       false});
}

void Session::tellListens(const std::string& method, const json& params) {
    for (const auto& [id, heard] : listens) {
        bool wanted = false;
        if (method == "notifications/tools/list_changed") {
            wanted = heard.tools;
        } else if (method == "notifications/prompts/list_changed") {
            wanted = heard.prompts;
        } else if (method == "notifications/resources/list_changed") {
            wanted = heard.resources;
        } else if (method == "notifications/resources/updated") {
            wanted = heard.uris.contains(params.value("uri", std::string()));
        }
        if (!wanted) {
            continue;
        }
        json tagged = params.is_object() ? params : json::object();
        tagged["_meta"] = subscriptionMeta(id);
        send(OutgoingFrame{rpc.notify(method, std::move(tagged)), id, false});
    }
}

bool Session::endListen(const RequestId& id) {
    if (listens.erase(id) == 0) {
        return false;
    }
    modern.erase(id);
    --server->listens;
    return true;
}

void Session::endListens() {
    server->listens -= listens.size();
    for (const auto& [id, heard] : listens) {
        modern.erase(id);
    }
    listens.clear();
}

}  // namespace reagent::mcp
