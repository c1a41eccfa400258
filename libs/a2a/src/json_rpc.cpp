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

json makeRequest(Method method, ProtocolVersion version, json params, std::int64_t id) {
    return json{{"jsonrpc", "2.0"},
                {"id", id},
                {"method", std::string(methodName(method, version))},
                {"params", std::move(params)}};
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

json makeResult(const json& id, json result) {
    return json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

json makeError(const json& id, int code, std::string message) {
    return json{{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", std::move(message)}}}};
}

expected<json, A2aError> parseResponse(std::string_view body) {
    json parsed = parseUntrustedJson(body).value_or(json());
    if (!parsed.is_object() || stringOr(parsed, "jsonrpc") != "2.0") {
        std::string excerpt(body.substr(0, 200));
        return fail(A2aError{A2aErrc::protocol_error, "not a JSON-RPC 2.0 response: " + excerpt});
    }
    if (const auto it = parsed.find("error"); it != parsed.end() && !it->is_null()) {
        const auto code = static_cast<int>(integerOr(*it, "code", 0));
        const std::string message = stringOr(*it, "message", "(no message)");
        return fail(A2aError{A2aErrc::remote_error, "[" + std::to_string(code) + "] " + message});
    }
    const auto it = parsed.find("result");
    if (it == parsed.end()) {
        return fail(
            A2aError{A2aErrc::protocol_error, "a JSON-RPC response has neither 'result' nor 'error'"});
    }
    return std::move(*it);
}

int rpcCode(const A2aError& error) noexcept {
    if (error.code != A2aErrc::remote_error || error.message.size() < 3 || error.message.front() != '[') {
        return 0;
    }
    return std::atoi(error.message.c_str() + 1);
}

}  // namespace reagent::a2a
