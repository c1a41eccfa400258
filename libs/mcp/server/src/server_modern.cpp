// The 2026-07-28 revision on the server: each request carries its version and the client's capabilities
// in `params._meta` and is served without a session. Checks in the revision's order (the envelope, the
// headers against it, the version, the headers against the body), then the methods it keeps.

#include <algorithm>
#include <charconv>
#include <utility>

#include "reagent/core/json_fields.hpp"
#include "reagent/http/http_headers.hpp"
#include "reagent/mcp/envelope.hpp"
#include "reagent/mcp/protocol_version.hpp"
#include "served_trace.hpp"
#include "server_state.hpp"
#include "server_tools.hpp"

namespace reagent::mcp {

using nlohmann::json;
using Session = ServerSession::State;

namespace {

// Methods of the handshake era that 2026-07-28 removed.
constexpr std::array<std::string_view, 5> kRemoved{"initialize", "ping", "logging/setLevel",
                                                   "resources/subscribe", "resources/unsubscribe"};

// Results a client may cache (they carry ttlMs and cacheScope).
bool cacheable(std::string_view method) {
    return method == "server/discover" || method == "tools/list" || method == "prompts/list" ||
           method == "resources/list" || method == "resources/templates/list" || method == "resources/read";
}

RpcError mismatch(std::string what) {
    return RpcError{kHeaderMismatch, "Header mismatch: " + std::move(what), nullptr};
}

// What `Mcp-Name` must repeat: `params.name` of tools/call and prompts/get, `params.uri` of resources/read.
std::optional<std::string> nameOf(std::string_view method, const json& params) {
    const char* key = method == "tools/call" || method == "prompts/get" ? "name"
                      : method == "resources/read"                      ? "uri"
                                                                        : nullptr;
    if (key == nullptr || !params.is_object()) {
        return std::nullopt;
    }
    const auto found = params.find(key);
    if (found == params.end() || !found->is_string()) {
        return std::nullopt;
    }
    return found->get<std::string>();
}

// Whether `header` carries `value` (an argument mirrored by `x-mcp-header`): strings as they are,
// booleans as true/false, numbers compared as numbers (42 and 42.0 agree).
bool mirrors(const std::string& header, const json& value) {
    if (value.is_string()) {
        return header == value.get_ref<const std::string&>();
    }
    if (value.is_boolean()) {
        return header == (value.get<bool>() ? "true" : "false");
    }
    if (value.is_number()) {
        double parsed = 0;
        const auto [end, ec] = std::from_chars(header.data(), header.data() + header.size(), parsed);
        return ec == std::errc() && end == header.data() + header.size() && parsed == value.get<double>();
    }
    return false;
}

// `Mcp-Param-*` of a tools/call against the arguments its tool's schema marks with `x-mcp-header`.
std::optional<RpcError> checkParamHeaders(const json& inputSchema, const json& arguments,
                                          const RequestHeaders& headers) {
    const auto properties = inputSchema.find("properties");
    if (properties == inputSchema.end() || !properties->is_object() || !arguments.is_object()) {
        return std::nullopt;
    }
    for (const auto& [property, schema] : properties->items()) {
        if (!schema.is_object()) {
            continue;
        }
        const auto annotation = schema.find("x-mcp-header");
        if (annotation == schema.end() || !annotation->is_string()) {
            continue;
        }
        const auto value = arguments.find(property);
        if (value == arguments.end() || value->is_null()) {
            continue;  // nothing to mirror
        }
        const std::string& name = annotation->get_ref<const std::string&>();
        const auto sent =
            std::find_if(headers.params.begin(), headers.params.end(),
                         [&name](const auto& param) { return http::equalsIgnoreCase(param.first, name); });
        if (sent == headers.params.end()) {
            return mismatch("arguments." + property + " is set but the Mcp-Param-" + name +
                            " header is missing");
        }
        if (!mirrors(sent->second, *value)) {
            return mismatch("the Mcp-Param-" + name + " header does not match arguments." + property);
        }
    }
    return std::nullopt;
}

json unsupportedVersion(const std::string& requested) {
    return json{{"supported", json::array({kModernProtocolVersion})}, {"requested", requested}};
}

}  // namespace

json Session::capabilities() const {
    json out = {{"tools", {{"listChanged", true}}}, {"logging", json::object()}};
    if (!server->resources.empty() || !server->templates.empty()) {
        out["resources"] = {{"subscribe", true}, {"listChanged", true}};
    }
    if (!server->prompts.empty()) {
        out["prompts"] = {{"listChanged", true}};
    }
    if (!server->completions.empty()) {
        out["completions"] = json::object();
    }
    return out;
}

void Session::refuse(const RequestId& id, RpcError error) {
    modern.erase(id);
    if (traced) {
        traced->end(id, fail(error), {});
    }
    OutgoingFrame frame{rpc.respond(id, fail(error)), id, true};
    frame.refusal = error.code;
    send(std::move(frame));
}

json Session::stampModern(json result, const ModernRequest& request) const {
    if (!result.is_object()) {
        result = json::object();
    }
    if (!result.contains("resultType")) {
        result["resultType"] = "complete";
    }
    json& meta = result["_meta"];
    if (!meta.is_object()) {
        meta = json::object();
    }
    meta[std::string(kMetaServerInfo)] = server->serverInfo;
    if (cacheable(request.method) && result["resultType"] == "complete") {
        result["ttlMs"] = server->options.cacheTtl.count();
        result["cacheScope"] = server->options.cachePublic ? "public" : "private";
    }
    return result;
}

void Session::handleModern(Request request, const RequestHeaders* headers) {
    const RequestId id = request.id;
    const std::string& method = request.method;
    const json& params = request.params;
    if (modern.contains(id) || inFlight.contains(id)) {
        // Answered without touching the request that holds the id.
        send(OutgoingFrame{rpc.respond(id, fail(RpcError{kInvalidRequest,
                                                         "request id " + toString(id) +
                                                             " is already in use by a request in flight",
                                                         nullptr})),
                           id, true});
        return;
    }
    const json* meta = nullptr;
    if (params.is_object()) {
        if (const auto found = params.find("_meta"); found != params.end() && found->is_object()) {
            meta = &*found;
        }
    }
    const auto claim = meta != nullptr ? meta->find(kMetaProtocolVersion) : json::const_iterator();
    if (meta == nullptr || claim == meta->end()) {
        // Here only because the headers name a 2026 version.
        const std::string named = headers && headers->protocolVersion ? *headers->protocolVersion : "";
        if (method == "initialize") {
            refuse(id, mismatch("MCP-Protocol-Version " + named +
                                " is not a version initialize negotiates; send initialize without it, or "
                                "drop initialize and put the version in params._meta"));
            return;
        }
        json missing = json::array({kMetaProtocolVersion});
        if (meta == nullptr || !meta->contains(kMetaClientCapabilities)) {
            missing.push_back(kMetaClientCapabilities);
        }
        refuse(id, RpcError{kInvalidParams,
                            "Invalid params: MCP-Protocol-Version " + named +
                                " is not a version served through initialize (2025-11-25, 2025-06-18, "
                                "2025-03-26), so the request must carry " +
                                std::string(kModernProtocolVersion) + "'s envelope in params._meta (" +
                                std::string(kMetaProtocolVersion) + ", " +
                                std::string(kMetaClientCapabilities) + ")",
                            json{{"envelope", {{"missing", std::move(missing)}}}}});
        return;
    }
    if (!claim->is_string()) {
        refuse(id, RpcError{kInvalidParams,
                            "Invalid params: params._meta[" + std::string(kMetaProtocolVersion) +
                                "] must be a string",
                            nullptr});
        return;
    }
    const std::string& version = claim->get_ref<const std::string&>();
    const auto offered = meta->find(kMetaClientCapabilities);
    if (offered == meta->end() || !offered->is_object()) {
        refuse(id, RpcError{kInvalidParams,
                            "Invalid params: params._meta[" + std::string(kMetaClientCapabilities) +
                                "] (an object, {} for none) is required on every request",
                            json{{"envelope", {{"missing", json::array({kMetaClientCapabilities})}}}}});
        return;
    }
    if (headers != nullptr) {
        if (!headers->protocolVersion) {
            refuse(id,
                   mismatch("the MCP-Protocol-Version header is missing (the body names " + version + ")"));
            return;
        }
        if (*headers->protocolVersion != version) {
            refuse(id, mismatch("MCP-Protocol-Version " + *headers->protocolVersion +
                                " differs from params._meta's " + version));
            return;
        }
    }
    if (version != kModernProtocolVersion) {
        refuse(id, RpcError{kUnsupportedProtocolVersion,
                            "Unsupported protocol version: " + version + " (this server serves " +
                                std::string(kModernProtocolVersion) +
                                " this way, and the 2025 versions "
                                "through initialize)",
                            unsupportedVersion(version)});
        return;
    }
    if (headers != nullptr) {
        if (!headers->method || *headers->method != method) {
            refuse(id,
                   mismatch(headers->method
                                ? "Mcp-Method " + *headers->method + " differs from the method " + method
                                : "the Mcp-Method header is missing (the body's method is " + method + ")"));
            return;
        }
        if (const auto name = nameOf(method, params); name && (!headers->name || *headers->name != *name)) {
            refuse(id,
                   mismatch(headers->name ? "Mcp-Name does not match the body's " + *name
                                          : "the Mcp-Name header is missing (the body names " + *name + ")"));
            return;
        }
    }
    ModernRequest served{method, *offered, std::nullopt};
    if (const auto level = meta->find(kMetaLogLevel); level != meta->end()) {
        const auto parsed =
            level->is_string() ? parseLogLevel(level->get_ref<const std::string&>()) : std::nullopt;
        if (!parsed) {
            refuse(id, RpcError{kInvalidParams,
                                "Invalid params: params._meta[" + std::string(kMetaLogLevel) +
                                    "] must be one of debug, info, notice, warning, error, critical, alert, "
                                    "emergency",
                                nullptr});
            return;
        }
        served.logLevel = parsed;
    }
    if (method == "tools/call" && headers != nullptr && params.is_object()) {
        if (const auto tool = server->registry->find(stringOr(params, "name"))) {
            const json arguments = params.value("arguments", json::object());
            if (auto refused = checkParamHeaders(tool->tool.definition.inputSchema, arguments, *headers)) {
                refuse(id, std::move(*refused));
                return;
            }
        }
    }
    if (!initialized && method != "server/discover") {
        pinnedModern = true;  // a probe does not decide the connection's revision; a request does
    }
    modern.emplace(id, std::move(served));
    if (method == "server/discover") {
        json result = {{"supportedVersions", json::array({kModernProtocolVersion})},
                       {"capabilities", capabilities()}};
        if (!server->options.instructions.empty()) {
            result["instructions"] = server->options.instructions;
        }
        respond(id, std::move(result));
    } else if (method == "tools/list") {
        respond(id, detail::toolsPage(*server->registry, server->executor, params, server->options.pageSize));
    } else if (method == "tools/call") {
        startCall(request);
    } else if (method == "subscriptions/listen") {
        listen(request);
    } else if ((method.starts_with("resources/") &&
                (!server->resources.empty() || !server->templates.empty()) &&
                std::find(kRemoved.begin(), kRemoved.end(), method) == kRemoved.end()) ||
               (method.starts_with("prompts/") && !server->prompts.empty()) ||
               (method == "completion/complete" && !server->completions.empty())) {
        handleCatalog(request);
    } else {
        const bool removed = std::find(kRemoved.begin(), kRemoved.end(), method) != kRemoved.end();
        refuse(id, RpcError{kMethodNotFound,
                            "Method not found: " + method +
                                (removed ? " (protocol version " + std::string(kModernProtocolVersion) +
                                               " removed it)"
                                         : std::string()),
                            nullptr});
    }
}

}  // namespace reagent::mcp
