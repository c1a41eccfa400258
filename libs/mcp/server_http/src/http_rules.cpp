// The streamable HTTP server's header and body rules (sans-io).

#include "http_rules.hpp"

#include <sys/random.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <random>

#include "reagent/core/untrusted_json.hpp"
#include "reagent/http/http_headers.hpp"
#include "reagent/mcp/envelope.hpp"
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

namespace {

// What inspectPost needs of a body that is one message, read from the parser's events without building
// the document (the session's core parses the message whole once more). As the document would, a
// member named twice counts by its last value.
class MessagePeek {
  public:
    enum class Top { none, object, array, scalar };
    Top top = Top::none;
    std::optional<RequestId> id;
    std::optional<std::string> method;
    bool claimsModern = false;

    bool null() { return scalar(Value::other); }
    bool boolean(bool) { return scalar(Value::other); }
    bool number_integer(nlohmann::json::number_integer_t value) {
        number_ = value;
        return scalar(Value::integer);
    }
    bool number_unsigned(nlohmann::json::number_unsigned_t value) {
        number_ = static_cast<std::int64_t>(value);
        return scalar(Value::integer);
    }
    bool number_float(nlohmann::json::number_float_t, const nlohmann::json::string_t&) {
        return scalar(Value::other);
    }
    bool string(nlohmann::json::string_t& value) {
        text_ = &value;
        return scalar(Value::text);
    }
    bool binary(nlohmann::json::binary_t&) { return scalar(Value::other); }
    bool key(nlohmann::json::string_t& value) {
        if (depth_ == 1) {
            key_ = value;
            if (key_ == "params") {
                claimsModern = false;  // a later params replaces an earlier one
            }
        } else if (depth_ == 2 && inParams_) {
            paramsKey_ = value;
            if (paramsKey_ == "_meta") {
                claimsModern = false;
            }
        } else if (depth_ == 3 && inMeta_ && value == kMetaProtocolVersion) {
            claimsModern = true;
        }
        return true;
    }
    bool start_object(std::size_t) {
        if (depth_ == 0) {
            top = Top::object;
        } else if (depth_ == 1) {
            member(Value::other);
            inParams_ = key_ == "params";
        } else if (depth_ == 2 && inParams_) {
            inMeta_ = paramsKey_ == "_meta";
        }
        ++depth_;
        return true;
    }
    bool start_array(std::size_t) {
        if (depth_ == 0) {
            top = Top::array;
        } else if (depth_ == 1) {
            member(Value::other);
        }
        ++depth_;
        return true;
    }
    bool end_object() { return close(); }
    bool end_array() { return close(); }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }

  private:
    enum class Value { integer, text, other };
    bool scalar(Value kind) {
        if (depth_ == 0) {
            top = Top::scalar;
        } else if (depth_ == 1) {
            member(kind);
        }
        return true;
    }
    // A top-level member's value: the id and the method when they are of their types.
    void member(Value kind) {
        if (key_ == "id") {
            id = kind == Value::integer ? std::optional<RequestId>(number_)
                 : kind == Value::text  ? std::optional<RequestId>(*text_)
                                        : std::nullopt;
        } else if (key_ == "method") {
            method = kind == Value::text ? std::optional<std::string>(*text_) : std::nullopt;
        }
    }
    bool close() {
        --depth_;
        if (depth_ == 1) {
            inParams_ = false;
        } else if (depth_ == 2) {
            inMeta_ = false;
        }
        return true;
    }
    std::size_t depth_ = 0;
    std::string key_;
    std::string paramsKey_;
    bool inParams_ = false;
    bool inMeta_ = false;
    std::int64_t number_ = 0;
    const nlohmann::json::string_t* text_ = nullptr;
};

// A body that is not one well-formed message object: a batch, a scalar, or not JSON (the refusal).
expected<PostBody, Refusal> inspectWhole(std::string_view body) {
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
            post.claimsModern =
                meta != params->end() && meta->is_object() && meta->contains(kMetaProtocolVersion);
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

}  // namespace

expected<PostBody, Refusal> inspectPost(std::string_view body) {
    MessagePeek peek;
    if (!nlohmann::json::sax_parse(body.begin(), body.end(), &peek) || peek.top != MessagePeek::Top::object) {
        return inspectWhole(body);
    }
    PostBody post;
    if (peek.method && peek.id) {
        post.requests.push_back(std::move(*peek.id));
        post.initialize = *peek.method == "initialize";
    }
    post.claimsModern = peek.claimsModern;
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
