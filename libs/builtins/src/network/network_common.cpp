#include "network/network_common.hpp"

#include "reagent/core/detail/utf8.hpp"

namespace reagent::builtins::detail {

std::string jsonText(const nlohmann::json& value) {
    return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

tools::ToolError httpFailure(std::string_view service, const http::HttpError& error) {
    std::string hint;
    switch (error.code) {
        case http::HttpErrc::timeout:
            hint = " (the server was too slow; retrying once later may help)";
            break;
        case http::HttpErrc::resolve_failed:
        case http::HttpErrc::connect_failed:
        case http::HttpErrc::connection_closed:
            hint = " (the server could not be reached; retrying once later may help)";
            break;
        case http::HttpErrc::tls_failed:
            hint = " (the server's certificate was not accepted; do not retry)";
            break;
        default:
            break;
    }
    return tools::ToolError::failure(std::string(service) + " request failed: " + error.describe() + hint);
}

std::string rateLimited(std::string_view service, const http::HttpResponseHead& head) {
    std::string text = std::string(service) + " is rate limiting requests (HTTP 429)";
    if (const auto after = head.headers.find("retry-after")) {
        text += "; retry after " + std::string(reagent::detail::utf8Prefix(*after, 40)) + " seconds";
    } else {
        text += "; retry after a minute";
    }
    return text + ", or answer with what you already have";
}

std::string bodyExcerpt(std::string_view body) {
    std::string text;
    reagent::detail::appendValidUtf8(text, reagent::detail::utf8Prefix(body, 300));
    for (auto& c : text) {
        if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    }
    return text;
}

}  // namespace reagent::builtins::detail
