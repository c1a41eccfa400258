#include "reagent/mcp/rpc_session.hpp"

#include <utility>

namespace reagent::mcp {

namespace {

// What the peer's id was, if a malformed frame still shows one: a request with a bad method still deserves
// an error response naming it.
nlohmann::json idOf(std::string_view frame) {
    const auto parsed = nlohmann::json::parse(frame, nullptr, false);
    if (parsed.is_object()) {
        if (const auto id = parsed.find("id");
            id != parsed.end() && (id->is_string() || id->is_number_integer())) {
            return *id;
        }
    }
    return nullptr;
}

std::string errorFrame(const nlohmann::json& id, int code, const std::string& message) {
    nlohmann::json out = {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
    return out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

RpcSession::Outgoing RpcSession::request(std::string method, nlohmann::json params) {
    const std::int64_t id = nextId_++;
    pending_.insert(id);
    return Outgoing{RequestId(id), encode(Request{RequestId(id), std::move(method), std::move(params)})};
}

std::string RpcSession::notify(std::string method, nlohmann::json params) const {
    return encode(Notification{std::move(method), std::move(params)});
}

std::string RpcSession::respond(const RequestId& id, expected<nlohmann::json, RpcError> outcome) const {
    return encode(Response{id, std::move(outcome)});
}

RpcSession::Received RpcSession::receive(std::string_view frame) {
    Received received;
    if (frame.size() > limits_.maxMessageBytes) {
        const std::string text = "a message of " + std::to_string(frame.size()) +
                                 " bytes exceeds the limit of " + std::to_string(limits_.maxMessageBytes) +
                                 " bytes";
        received.events.emplace_back(Problem{McpError{McpErrc::message_too_large, text}});
        return received;
    }
    auto messages = parseFrame(frame);
    if (!messages) {
        // JSON-RPC owes an error response to a request it cannot read, with its id when one is visible.
        const auto id = idOf(frame);
        const bool json = !nlohmann::json::parse(frame, nullptr, false).is_discarded();
        received.replies.push_back(
            errorFrame(id, json ? kInvalidRequest : kParseError, messages.error().message));
        received.events.emplace_back(Problem{std::move(messages.error())});
        return received;
    }
    for (Message& message : *messages) {
        if (auto* response = std::get_if<Response>(&message)) {
            const auto* number = std::get_if<std::int64_t>(&response->id);
            if (number == nullptr || pending_.erase(*number) == 0) {
                received.events.emplace_back(Problem{
                    McpError{McpErrc::malformed_message, "a response to id " + toString(response->id) +
                                                             ", which is not awaiting one (never sent, "
                                                             "already answered, or given up)"}});
                continue;
            }
            received.events.emplace_back(Completed{std::move(response->id), std::move(response->outcome)});
        } else if (auto* request = std::get_if<Request>(&message)) {
            received.events.emplace_back(std::move(*request));
        } else {
            received.events.emplace_back(std::move(std::get<Notification>(message)));
        }
    }
    return received;
}

bool RpcSession::forget(const RequestId& id) {
    const auto* number = std::get_if<std::int64_t>(&id);
    return number != nullptr && pending_.erase(*number) > 0;
}

}  // namespace reagent::mcp
