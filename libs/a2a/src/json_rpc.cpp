#include "reagent/a2a/json_rpc.hpp"

#include <array>

#include "reagent/core/json_fields.hpp"
#include "reagent/core/untrusted_json.hpp"

namespace reagent::a2a {

namespace {

using nlohmann::json;

struct Names {
    Method method;
    std::string_view legacy;
    std::string_view current;
};

constexpr std::array<Names, 4> kNames{{
    {Method::send, "message/send", "SendMessage"},
    {Method::stream, "message/stream", "SendStreamingMessage"},
    {Method::get, "tasks/get", "GetTask"},
    {Method::cancel, "tasks/cancel", "CancelTask"},
}};

// A response whose error member breaks JSON-RPC's shape (a code that is not an integer, a string for the
// object) is still the peer's refusal, never a result: a remote error with code 0.
std::optional<A2aError> errorOfWrongShape(std::string_view body) {
    const json parsed = parseUntrustedJson(body).value_or(json());
    const auto error = parsed.is_object() ? parsed.find("error") : parsed.end();
    if (!parsed.is_object() || error == parsed.end() || error->is_null() ||
        stringOr(parsed, "jsonrpc") != "2.0") {
        return std::nullopt;
    }
    return A2aError{A2aErrc::remote_error, "[0] " + stringOr(*error, "message", "(no message)")};
}

}  // namespace

std::string_view methodName(Method method, ProtocolVersion version) noexcept {
    for (const auto& names : kNames) {
        if (names.method == method) {
            return version == ProtocolVersion::v0_3 ? names.legacy : names.current;
        }
    }
    return {};
}

std::optional<ParsedMethod> parseMethodName(std::string_view name) noexcept {
    for (const auto& names : kNames) {
        if (name == names.legacy) {
            return ParsedMethod{names.method, ProtocolVersion::v0_3};
        }
        if (name == names.current) {
            return ParsedMethod{names.method, ProtocolVersion::v1_0};
        }
    }
    return std::nullopt;
}

std::string makeRequest(Method method, ProtocolVersion version, json params, std::int64_t id) {
    jsonrpc::Request request{jsonrpc::RequestId(id), std::string(methodName(method, version)),
                             std::move(params)};
    return jsonrpc::encode(jsonrpc::Message(std::move(request)));
}

json sendParams(const Message& message, ProtocolVersion version) {
    json params = {{"message", toJson(message, version)}};
    if (version == ProtocolVersion::v0_3) {
        params["configuration"] = {{"blocking", true}, {"acceptedOutputModes", {"text/plain"}}};
    }
    return params;
}

json taskIdParams(const std::string& taskId) {
    return json{{"id", taskId}};
}

std::string makeResult(const jsonrpc::RequestId& id, json result) {
    return jsonrpc::encode(jsonrpc::Message(jsonrpc::Response{id, std::move(result)}));
}

std::string makeError(const std::optional<jsonrpc::RequestId>& id, int code, std::string message) {
    return jsonrpc::encodeError(id, jsonrpc::RpcError{code, std::move(message)});
}

expected<json, A2aError> parseResponse(std::string_view body) {
    auto message = jsonrpc::parseMessage(body);
    auto* response = message ? std::get_if<jsonrpc::Response>(&*message) : nullptr;
    if (!message && message.error().code == jsonrpc::JsonRpcErrc::invalid_message) {
        if (auto odd = errorOfWrongShape(body)) {
            return fail(std::move(*odd));
        }
    }
    if (response == nullptr) {
        const std::string why = message ? "a request or notification" : message.error().message;
        std::string excerpt(body.substr(0, 200));
        return fail(
            A2aError{A2aErrc::protocol_error, "not a JSON-RPC 2.0 response (" + why + "): " + excerpt});
    }
    if (!response->outcome) {
        const jsonrpc::RpcError& error = response->outcome.error();
        return fail(A2aError{A2aErrc::remote_error, "[" + std::to_string(error.code) + "] " + error.message});
    }
    return std::move(*response->outcome);
}

int rpcCode(const A2aError& error) noexcept {
    if (error.code != A2aErrc::remote_error || error.message.size() < 3 || error.message.front() != '[') {
        return 0;
    }
    return std::atoi(error.message.c_str() + 1);
}

}  // namespace reagent::a2a
