#include "reagent/mcp/json_rpc.hpp"

#include <algorithm>
#include <utility>

#include "reagent/core/untrusted_json.hpp"

namespace reagent::mcp {

namespace {

using nlohmann::json;

McpError malformed(std::string rule) {
    return McpError{McpErrc::malformed_message, "not a JSON-RPC 2.0 message: " + std::move(rule)};
}

expected<RequestId, McpError> readId(const json& id) {
    if (id.is_string()) {
        return RequestId(id.get<std::string>());
    }
    if (id.is_number_integer()) {
        return RequestId(id.get<std::int64_t>());
    }
    return fail(malformed("the id must be a string or an integer, not " + id.dump()));
}

json writeId(const RequestId& id) {
    return std::visit([](const auto& value) { return json(value); }, id);
}

expected<RpcError, McpError> readError(const json& error) {
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
expected<Message, McpError> readMessage(json& object) {
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
    auto responseId = readId(*id);
    if (!responseId) {
        return fail(std::move(responseId.error()));
    }
    const auto result = object.find("result");
    const auto error = object.find("error");
    if ((result == object.end()) == (error == object.end())) {
        return fail(malformed("a response has exactly one of result and error"));
    }
    if (result != object.end()) {
        return Message(Response{std::move(*responseId), std::move(*result)});
    }
    auto rpcError = readError(*error);
    if (!rpcError) {
        return fail(std::move(rpcError.error()));
    }
    return Message(Response{std::move(*responseId), fail(std::move(*rpcError))});
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

}  // namespace

std::string toString(const RequestId& id) {
    return writeId(id).dump();
}

expected<std::vector<Message>, McpError> parseFrame(std::string_view frame) {
    auto read = parseUntrustedJson(frame);
    if (!read) {
        // A nesting past the limit says so; other syntax errors keep the short message.
        std::string message = read.error().code == JsonErrc::too_deep ? std::move(read.error().message)
                                                                      : "not JSON (or not valid UTF-8)";
        return fail(McpError{McpErrc::malformed_message, std::move(message)});
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

std::string encode(const Message& message) {
    if (const auto* request = std::get_if<Request>(&message)) {
        return encodeCall(&request->id, request->method, request->params);
    }
    if (const auto* notification = std::get_if<Notification>(&message)) {
        return encodeCall(nullptr, notification->method, notification->params);
    }
    const auto& response = std::get<Response>(message);
    json out = {{"jsonrpc", "2.0"}};
    out["id"] = writeId(response.id);
    if (response.outcome) {
        out["result"] = *response.outcome;
    } else {
        json error = {{"code", response.outcome.error().code}, {"message", response.outcome.error().message}};
        if (!response.outcome.error().data.is_null()) {
            error["data"] = response.outcome.error().data;
        }
        out["error"] = std::move(error);
    }
    return dumpText(out);
}

}  // namespace reagent::mcp
