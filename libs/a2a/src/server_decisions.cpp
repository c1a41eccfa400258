#include "server_decisions.hpp"

#include <utility>

#include "reagent/a2a/json_rpc.hpp"
#include "reagent/core/json_fields.hpp"
#include "reagent/telemetry/trace_context.hpp"

namespace reagent::a2a::detail {

namespace {

using nlohmann::json;

[[nodiscard]] http::ServerReply rpcReply(std::string body) {
    return jsonReply(200, std::move(body));
}

// A JSON-RPC error answer, its code kept for the request's span.
void refuse(Decision& decision, const std::optional<jsonrpc::RequestId>& id, int code, std::string message) {
    decision.rpcErrorCode = code;
    decision.reply = rpcReply(makeError(id, code, std::move(message)));
}

// The rules of reagent's HTTP servers: Host, Origin and bearer token for every request, JSON for a POST.
[[nodiscard]] std::optional<http::Refusal> refusal(const Server::State& s,
                                                   const http::ServerRequest& request) {
    const http::CallerHeaders caller{request.headers.find("Host"), request.headers.find("Origin"),
                                     request.headers.find("Authorization")};
    if (auto refused = http::checkCaller(caller, s.callers)) {
        return refused;
    }
    if (request.method == "POST") {
        return http::checkJsonContentType(request.headers.find("Content-Type"));
    }
    return std::nullopt;
}

[[nodiscard]] bool returnsImmediately(const json& params) {
    // Blocking unless the client asked otherwise (0.3 `blocking: false`, 1.0 `returnImmediately`).
    const auto configuration = params.find("configuration");
    return configuration != params.end() && configuration->is_object() &&
           (!boolOr(*configuration, "blocking", true) || boolOr(*configuration, "returnImmediately", false));
}

// A JSON-RPC call.
Decision decideRpc(const StatePtr& s, const std::string& body, const SpanContext& trace) {
    Decision decision;
    auto message = jsonrpc::parseMessage(body);
    if (!message) {
        refuse(decision, jsonrpc::peekEnvelope(body).id, jsonrpc::replyCode(message.error()),
               std::move(message.error().message));
        return decision;
    }
    auto* request = std::get_if<jsonrpc::Request>(&*message);
    if (request == nullptr) {
        refuse(decision, std::nullopt, rpc::kInvalidRequest,
               "not a JSON-RPC 2.0 request: a request has a method and an id");
        return decision;
    }
    decision.id = request->id;
    decision.rpcMethod = request->method;
    const auto parsed = parseMethodName(request->method);
    if (!parsed) {
        // The RPC conventions: a method the server does not know is `_OTHER`, the name sent kept apart.
        decision.rpcMethodOriginal = std::exchange(decision.rpcMethod, "_OTHER");
        refuse(decision, decision.id, rpc::kMethodNotFound,
               "method '" + request->method + "' is not supported");
        return decision;
    }
    decision.version = parsed->version;
    const json params = request->params.is_object() ? std::move(request->params) : json::object();
    if (parsed->method == Method::send || parsed->method == Method::stream) {
        auto started = startTask(s, params, trace);
        if (!started) {
            refuse(decision, decision.id, started.error().code, started.error().message);
            return decision;
        }
        decision.entry = *started;
        if (parsed->method == Method::stream) {
            decision.then = Decision::Then::stream;
        } else if (returnsImmediately(params) && !decision.entry->accepted) {
            decision.then = Decision::Then::sendResultWhenAccepted;
        } else if (returnsImmediately(params)) {
            decision.reply =
                rpcReply(makeResult(decision.id, toJson(SendResult(decision.entry->task), decision.version)));
        } else {
            decision.then = Decision::Then::sendResultWhenTerminal;
        }
        return decision;
    }
    const std::string taskId = stringOr(params, "id");
    const auto found = s->tasks.find(taskId);
    if (s->config.directory) {
        // The directory's task is the one that counts; one this server runs learns of its cancellation
        // from its run, which ends (a blocking send then answers `canceled`).
        if (parsed->method == Method::cancel && found != s->tasks.end()) {
            found->second->cancelRequested = true;
        }
        decision.directory = s->config.directory;
        decision.taskId = taskId;
        decision.then = parsed->method == Method::cancel ? Decision::Then::cancelInDirectory
                                                         : Decision::Then::findInDirectory;
        return decision;
    }
    if (found == s->tasks.end()) {
        refuse(decision, decision.id, rpc::kTaskNotFound, "no task '" + taskId + "' on this server");
        return decision;
    }
    decision.entry = found->second;
    if (parsed->method == Method::cancel) {
        if (decision.entry->terminal()) {
            refuse(decision, decision.id, rpc::kTaskNotCancelable,
                   "task '" + taskId + "' is " + std::string(toString(decision.entry->task.status.state)));
            return decision;
        }
        decision.entry->cancelRequested = true;
        decision.entry->cancel.emit(boost::asio::cancellation_type::terminal);
        decision.then = Decision::Then::taskWhenTerminal;
        return decision;
    }
    decision.reply = rpcReply(makeResult(decision.id, toJson(decision.entry->task, decision.version)));
    return decision;
}

}  // namespace

http::ServerReply jsonReply(unsigned status, std::string body, const std::string& challenge) {
    http::ServerReply reply{status, {}, std::move(body)};
    reply.headers.add("Content-Type", "application/json");
    if (!challenge.empty()) {
        reply.headers.add("WWW-Authenticate", challenge);
    }
    return reply;
}

Decision decide(const StatePtr& s, http::ServerRequest request, const SpanContext& trace) {
    Decision decision;
    if (auto refused = refusal(*s, request)) {
        decision.reply =
            jsonReply(refused->status, makeError(std::nullopt, rpc::kInvalidRequest, refused->message),
                      refused->challenge);
        return decision;
    }
    if (request.method == "GET" &&
        (request.target == kAgentCardPath || request.target == "/.well-known/agent.json")) {
        decision.reply = jsonReply(200, toJson(s->card).dump());
        return decision;
    }
    if (request.method == "POST" && request.target == s->config.rpcPath) {
        return decideRpc(s, request.body, trace);
    }
    const json notFound = {{"error", "not found: the card is at " + std::string(kAgentCardPath) +
                                         ", JSON-RPC at POST " + s->config.rpcPath}};
    decision.reply = jsonReply(404, notFound.dump());
    return decision;
}

}  // namespace reagent::a2a::detail
