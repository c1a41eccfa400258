#include "reagent/mcp/rpc_session.hpp"

#include <string>
#include <utility>

#include "reagent/core/untrusted_json.hpp"

namespace reagent::mcp {

namespace {

// The top-level "id" and whether a "method" is present, read from a frame that may not parse (too deep, a
// syntax error further on): nothing is built, so a frame of any depth is read without recursion.
class EnvelopeReader {
  public:
    nlohmann::json id = nullptr;
    bool hasMethod = false;

    bool null() { return scalar(nullptr); }
    bool boolean(bool) { return scalar(nullptr); }
    bool number_integer(nlohmann::json::number_integer_t value) { return scalar(value); }
    bool number_unsigned(nlohmann::json::number_unsigned_t value) { return scalar(value); }
    bool number_float(nlohmann::json::number_float_t, const nlohmann::json::string_t&) {
        return scalar(nullptr);
    }
    bool string(nlohmann::json::string_t& value) { return scalar(value); }
    bool binary(nlohmann::json::binary_t&) { return scalar(nullptr); }
    bool key(nlohmann::json::string_t& value) {
        if (depth_ == 1) {
            key_ = value;
            hasMethod = hasMethod || value == "method";
        }
        return true;
    }
    bool start_object(std::size_t) { return open(); }
    bool start_array(std::size_t) { return open(); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }

  private:
    bool scalar(nlohmann::json value) {
        if (depth_ == 1 && key_ == "id" && (value.is_string() || value.is_number_integer())) {
            id = std::move(value);
        }
        return true;
    }
    bool open() {
        if (depth_ == 1) {
            key_.clear();  // a structured member is not the id
        }
        ++depth_;
        return true;
    }
    bool close() {
        --depth_;
        return true;
    }
    std::size_t depth_ = 0;
    std::string key_;
};

// What a malformed frame still shows of its envelope: a request with a bad method still deserves an error
// response naming it, and a response too deep to read still ends the call waiting for it.
EnvelopeReader envelopeOf(std::string_view frame) {
    EnvelopeReader reader;
    (void)nlohmann::json::sax_parse(frame.begin(), frame.end(), &reader);
    return reader;
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
        const EnvelopeReader envelope = envelopeOf(frame);
        // A response that cannot be read (nested too deep, say) still answers the call waiting for it.
        if (!envelope.hasMethod && envelope.id.is_number_integer() &&
            pending_.erase(envelope.id.get<std::int64_t>()) > 0) {
            const RequestId id(envelope.id.get<std::int64_t>());
            received.events.emplace_back(Completed{
                id,
                fail(RpcError{kParseError, "the answer could not be read: " + messages.error().message})});
            received.events.emplace_back(Problem{std::move(messages.error())});
            return received;
        }
        // JSON-RPC owes an error response to a request it cannot read, with its id when one is visible.
        const bool json = parseUntrustedJson(frame).has_value();
        received.replies.push_back(
            errorFrame(envelope.id, json ? kInvalidRequest : kParseError, messages.error().message));
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
