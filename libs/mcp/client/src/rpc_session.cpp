#include "reagent/mcp/rpc_session.hpp"

#include <string>
#include <utility>

namespace reagent::mcp {

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
    auto messages = jsonrpc::parseFrame(frame);
    if (!messages) {
        McpError problem{McpErrc::malformed_message, messages.error().message};
        const jsonrpc::Envelope envelope = jsonrpc::peekEnvelope(frame);
        // A response that cannot be read (nested too deep, say) still answers the call waiting for it.
        const auto* number = envelope.id ? std::get_if<std::int64_t>(&*envelope.id) : nullptr;
        if (!envelope.hasMethod && number != nullptr && pending_.erase(*number) > 0) {
            received.events.emplace_back(Completed{
                *envelope.id,
                fail(RpcError{kParseError, "the answer could not be read: " + messages.error().message})});
            received.events.emplace_back(Problem{std::move(problem)});
            return received;
        }
        // JSON-RPC owes an error response to a request it cannot read, with its id when one is visible.
        const RpcError reply{jsonrpc::replyCode(messages.error()), messages.error().message};
        received.replies.push_back(jsonrpc::encodeError(envelope.id, reply));
        received.events.emplace_back(Problem{std::move(problem)});
        return received;
    }
    for (Message& message : *messages) {
        if (auto* response = std::get_if<Response>(&message)) {
            if (!response->id) {
                // JSON-RPC's answer to a request the peer could not read well enough to find its id.
                const std::string why = response->outcome ? "" : ": " + response->outcome.error().describe();
                received.events.emplace_back(
                    Problem{McpError{McpErrc::remote_error, "the peer could not read a message" + why}});
                continue;
            }
            const auto* number = std::get_if<std::int64_t>(&*response->id);
            if (number == nullptr || pending_.erase(*number) == 0) {
                received.events.emplace_back(Problem{
                    McpError{McpErrc::malformed_message, "a response to id " + toString(*response->id) +
                                                             ", which is not awaiting one (never sent, "
                                                             "already answered, or given up)"}});
                continue;
            }
            received.events.emplace_back(Completed{std::move(*response->id), std::move(response->outcome)});
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
