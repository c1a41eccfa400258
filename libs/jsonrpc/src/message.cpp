#include "reagent/jsonrpc/message.hpp"

#include <algorithm>
#include <utility>

#include "reagent/core/enum_name.hpp"
#include "reagent/core/untrusted_json.hpp"

namespace reagent::jsonrpc {

namespace {

using nlohmann::json;

JsonRpcError malformed(std::string rule) {
    return JsonRpcError{JsonRpcErrc::invalid_message, "not a JSON-RPC 2.0 message: " + std::move(rule)};
}

expected<RequestId, JsonRpcError> readId(const json& id) {
    if (id.is_string()) {
        return RequestId(id.get<std::string>());
    }
    if (id.is_number_integer()) {
        return RequestId(id.get<std::int64_t>());
    }
    return fail(malformed("the id must be a string or an integer, not " + id.dump()));
}

expected<RpcError, JsonRpcError> readError(const json& error) {
    if (!error.is_object()) {
        return fail(malformed("the error member must be an object"));
    }
    const auto code = error.find("code");
    const auto message = error.find("message");
    if (code == error.end() || !code->is_number_integer()) {
        return fail(malformed("the error object has no integer code"));
    }
    if (message == error.end() || !message->is_string()) {
        return fail(malformed("the error object has no message string"));
    }
    RpcError out{code->get<int>(), message->get<std::string>(), nullptr};
    if (const auto data = error.find("data"); data != error.end()) {
        out.data = *data;
    }
    return out;
}

// Reads one message out of `object`, moving its params or result out (the tree is not used again).
expected<Message, JsonRpcError> readMessage(json& object) {
    if (!object.is_object()) {
        return fail(malformed("a message must be a JSON object"));
    }
    const auto version = object.find("jsonrpc");
    if (version == object.end() || *version != "2.0") {
        return fail(malformed("\"jsonrpc\" must be \"2.0\""));
    }
    const auto method = object.find("method");
    const auto id = object.find("id");
    const auto params = object.find("params");
    if (method != object.end()) {
        if (!method->is_string()) {
            return fail(malformed("the method must be a string"));
        }
        json paramsValue = nullptr;
        if (params != object.end()) {
            if (!params->is_object() && !params->is_array()) {
                return fail(malformed("params must be an object or an array"));
            }
            paramsValue = std::move(*params);
        }
        if (id == object.end()) {
            return Message(Notification{method->get<std::string>(), std::move(paramsValue)});
        }
        auto requestId = readId(*id);
        if (!requestId) {
            return fail(std::move(requestId.error()));
        }
        return Message(Request{std::move(*requestId), method->get<std::string>(), std::move(paramsValue)});
    }
    if (id == object.end()) {
        return fail(malformed("a message needs a method (request, notification) or an id (response)"));
    }
    const auto result = object.find("result");
    const auto error = object.find("error");
    if ((result == object.end()) == (error == object.end())) {
        return fail(malformed("a response has exactly one of result and error"));
    }
    // An error about a request whose id could not be read carries a null id.
    std::optional<RequestId> responseId;
    if (!id->is_null() || result != object.end()) {
        auto read = readId(*id);
        if (!read) {
            return fail(std::move(read.error()));
        }
        responseId = std::move(*read);
    }
    if (result != object.end()) {
        return Message(Response{std::move(responseId), std::move(*result)});
    }
    auto rpcError = readError(*error);
    if (!rpcError) {
        return fail(std::move(rpcError.error()));
    }
    return Message(Response{std::move(responseId), fail(std::move(*rpcError))});
}

std::string dumpText(const json& value) {
    return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

// A string as JSON: as it is when it needs no escaping (method names, ids), else through the serializer.
void appendString(std::string& out, const std::string& text) {
    const bool plain = std::all_of(text.begin(), text.end(), [](char c) {
        return static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f && c != '"' &&
               c != '\\';
    });
    if (plain) {
        out += '"';
        out += text;
        out += '"';
    } else {
        out += dumpText(json(text));
    }
}

// A request (with `id`) or a notification written as text, in the order and form `json::dump` gives
// (members sorted: id, jsonrpc, method, params): the params are serialised where they are, neither copied
// into a new tree nor freed with one.
std::string encodeCall(const RequestId* id, const std::string& method, const json& params) {
    std::string out;
    out.reserve(48 + method.size());
    out += '{';
    if (id != nullptr) {
        out += "\"id\":";
        if (const auto* number = std::get_if<std::int64_t>(id)) {
            out += std::to_string(*number);
        } else {
            appendString(out, std::get<std::string>(*id));
        }
        out += ',';
    }
    out += "\"jsonrpc\":\"2.0\",\"method\":";
    appendString(out, method);
    if (!params.is_null()) {
        out += ",\"params\":";
        out += dumpText(params);
    }
    out += '}';
    return out;
}

expected<json, JsonRpcError> readJson(std::string_view text) {
    auto read = parseUntrustedJson(text);
    if (!read) {
        // A nesting past the limit says so; other syntax errors keep the short message.
        std::string message = read.error().code == JsonErrc::too_deep ? std::move(read.error().message)
                                                                      : "not JSON (or not valid UTF-8)";
        return fail(JsonRpcError{JsonRpcErrc::not_json, std::move(message)});
    }
    return std::move(*read);
}

// The top-level "id" and whether a "method" is present, as SAX events: nothing is built.
class EnvelopeReader {
  public:
    Envelope envelope;

    bool null() { return scalar(nullptr); }
    bool boolean(bool) { return scalar(nullptr); }
    bool number_integer(json::number_integer_t value) { return scalar(value); }
    bool number_unsigned(json::number_unsigned_t value) { return scalar(value); }
    bool number_float(json::number_float_t, const json::string_t&) { return scalar(nullptr); }
    bool string(json::string_t& value) { return scalar(value); }
    bool binary(json::binary_t&) { return scalar(nullptr); }
    bool key(json::string_t& value) {
        if (depth_ == 1) {
            key_ = value;
            envelope.hasMethod = envelope.hasMethod || value == "method";
        }
        return true;
    }
    bool start_object(std::size_t) { return open(); }
    bool start_array(std::size_t) { return open(); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }

  private:
    bool scalar(json value) {
        if (depth_ == 1 && key_ == "id") {
            if (value.is_string()) {
                envelope.id = RequestId(value.get<std::string>());
            } else if (value.is_number_integer()) {
                envelope.id = RequestId(value.get<std::int64_t>());
            }
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

json errorObject(const RpcError& error) {
    json out = {{"code", error.code}, {"message", error.message}};
    if (!error.data.is_null()) {
        out["data"] = error.data;
    }
    return out;
}

}  // namespace

std::string_view toString(JsonRpcErrc code) noexcept {
    return enumName(code);
}

int replyCode(const JsonRpcError& error) noexcept {
    return error.code == JsonRpcErrc::not_json ? kParseError : kInvalidRequest;
}

std::string RpcError::describe() const {
    return message + " (JSON-RPC " + std::to_string(code) + ")";
}

json toJson(const RequestId& id) {
    return std::visit([](const auto& value) { return json(value); }, id);
}

std::string toString(const RequestId& id) {
    return toJson(id).dump();
}

expected<std::vector<Message>, JsonRpcError> parseFrame(std::string_view frame) {
    auto read = readJson(frame);
    if (!read) {
        return fail(std::move(read.error()));
    }
    json parsed = std::move(*read);
    std::vector<Message> messages;
    if (!parsed.is_array()) {
        auto one = readMessage(parsed);
        if (!one) {
            return fail(std::move(one.error()));
        }
        messages.push_back(std::move(*one));
        return messages;
    }
    if (parsed.empty()) {
        return fail(malformed("an empty batch"));
    }
    messages.reserve(parsed.size());
    for (json& member : parsed) {
        auto one = readMessage(member);
        if (!one) {
            return fail(std::move(one.error()));
        }
        messages.push_back(std::move(*one));
    }
    return messages;
}

expected<Message, JsonRpcError> parseMessage(std::string_view text) {
    auto read = readJson(text);
    if (!read) {
        return fail(std::move(read.error()));
    }
    if (read->is_array()) {
        return fail(malformed("a batch where one message is expected"));
    }
    return readMessage(*read);
}

Envelope peekEnvelope(std::string_view frame) {
    EnvelopeReader reader;
    (void)json::sax_parse(frame.begin(), frame.end(), &reader);
    return std::move(reader.envelope);
}

std::string encodeError(const std::optional<RequestId>& id, const RpcError& error) {
    return encode(Message(Response{id, fail(error)}));
}

std::string encode(const Message& message) {
    if (const auto* request = std::get_if<Request>(&message)) {
        return encodeCall(&request->id, request->method, request->params);
    }
    if (const auto* notification = std::get_if<Notification>(&message)) {
        return encodeCall(nullptr, notification->method, notification->params);
    }
    const auto& response = std::get<Response>(message);
    json out = {{"jsonrpc", "2.0"}};
    out["id"] = response.id ? toJson(*response.id) : json(nullptr);
    if (response.outcome) {
        out["result"] = *response.outcome;
    } else {
        out["error"] = errorObject(response.outcome.error());
    }
    return dumpText(out);
}

}  // namespace reagent::jsonrpc
