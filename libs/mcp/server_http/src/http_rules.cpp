// The streamable HTTP server's header and body rules (sans-io).

#include "http_rules.hpp"

#include <sys/random.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <random>

#include "reagent/core/untrusted_json.hpp"
#include "reagent/http/http_headers.hpp"
#include "reagent/mcp/protocol_version.hpp"

namespace reagent::mcp::detail {

namespace {

[[nodiscard]] std::string lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

}  // namespace

std::string errorBody(int code, std::string_view message, const std::optional<RequestId>& id) {
    // The message may quote what the client sent (a Host, a session id): invalid UTF-8 is replaced.
    const RpcError error{code, std::string(message)};
    return jsonrpc::encodeError(id, error);
}

Accepts parseAccept(std::optional<std::string_view> accept) noexcept {
    if (!accept) {
        return Accepts{true, true};
    }
    Accepts result;
    std::string_view rest = *accept;
    while (!rest.empty()) {
        const std::size_t comma = rest.find(',');
        std::string_view item = rest.substr(0, comma);
        rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
        item = http::trimWhitespace(item.substr(0, item.find(';')));
        const std::string type = lower(item);
        if (type == "*/*") {
            result.json = result.eventStream = true;
        } else if (type == "application/*" || type == "application/json") {
            result.json = true;
        } else if (type == "text/*" || type == "text/event-stream") {
            result.eventStream = true;
        }
    }
    return result;
}

std::optional<Refusal> checkProtocolVersion(std::optional<std::string_view> header) {
    if (!header) {
        return std::nullopt;  // 2025-03-26 is assumed, as the specification says
    }
    const auto& supported = kSupportedProtocolVersions;
    if (std::find(supported.begin(), supported.end(), *header) != supported.end()) {
        return std::nullopt;
    }
    std::string list;
    for (const auto version : supported) {
        list += (list.empty() ? "" : ", ") + std::string(version);
    }
    return Refusal{400, -32000,
                   "Bad Request: unsupported MCP-Protocol-Version '" + std::string(*header) +
                       "' (supported versions: " + list + ")"};
}

expected<PostBody, Refusal> inspectPost(std::string_view body) {
    const auto read = parseUntrustedJson(body);
    if (!read) {
        return unexpected(Refusal{
            400, -32700, "Parse error: the request body is not valid JSON (" + read.error().message + ")"});
    }
    const nlohmann::json& parsed = *read;
    PostBody post;
    auto look = [&post](const nlohmann::json& message) {
        if (!message.is_object() || !message.contains("method") || !message["method"].is_string()) {
            return;
        }
        const auto id = message.find("id");
        if (id == message.end()) {
            return;
        }
        if (id->is_number_integer()) {
            post.requests.emplace_back(id->get<std::int64_t>());
        } else if (id->is_string()) {
            post.requests.emplace_back(id->get<std::string>());
        } else {
            return;
        }
        if (message["method"] == "initialize") {
            post.initialize = true;
        }
    };
    if (parsed.is_object()) {
        const auto params = parsed.find("params");
        if (params != parsed.end() && params->is_object()) {
            const auto meta = params->find("_meta");
            post.claimsModern = meta != params->end() && meta->is_object() &&
                                meta->contains("io.modelcontextprotocol/protocolVersion");
        }
    }
    if (parsed.is_array()) {
        if (parsed.empty()) {
            return unexpected(Refusal{400, kInvalidRequest, "Invalid Request: an empty JSON-RPC batch"});
        }
        post.batch = true;
        for (const auto& message : parsed) {
            const std::size_t before = post.requests.size();
            look(message);
            post.members.push_back(BatchMember{
                message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                {post.requests.begin() + static_cast<std::ptrdiff_t>(before), post.requests.end()}});
        }
    } else if (parsed.is_object()) {
        look(parsed);
    } else {
        return unexpected(
            Refusal{400, kInvalidRequest,
                    "Invalid Request: the body must be a JSON-RPC message (an object) or a batch"});
    }
    return post;
}

std::string newSessionId() {
    std::array<unsigned char, 16> bytes{};
    std::size_t filled = 0;
    while (filled < bytes.size()) {
        const auto got = ::getrandom(bytes.data() + filled, bytes.size() - filled, 0);
        if (got <= 0) {
            // No system generator (should not happen on Linux): fall back to the library's.
            std::random_device device;
            for (; filled < bytes.size(); ++filled) {
                bytes[filled] = static_cast<unsigned char>(device());
            }
            break;
        }
        filled += static_cast<std::size_t>(got);
    }
    static constexpr std::string_view kHex = "0123456789abcdef";
    std::string id;
    id.reserve(32);
    for (const unsigned char byte : bytes) {
        id += kHex[byte >> 4U];
        id += kHex[byte & 0x0FU];
    }
    return id;
}

}  // namespace reagent::mcp::detail
