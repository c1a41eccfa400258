#include "reagent/http/http_error.hpp"

namespace reagent::http {

std::string_view toString(HttpErrc code) noexcept {
    switch (code) {
        case HttpErrc::invalid_url:
            return "invalid_url";
        case HttpErrc::invalid_request:
            return "invalid_request";
        case HttpErrc::resolve_failed:
            return "resolve_failed";
        case HttpErrc::connect_failed:
            return "connect_failed";
        case HttpErrc::proxy_failed:
            return "proxy_failed";
        case HttpErrc::tls_failed:
            return "tls_failed";
        case HttpErrc::timeout:
            return "timeout";
        case HttpErrc::cancelled:
            return "cancelled";
        case HttpErrc::connection_closed:
            return "connection_closed";
        case HttpErrc::protocol_error:
            return "protocol_error";
        case HttpErrc::response_too_large:
            return "response_too_large";
    }
    return "unknown";
}

bool retryable(HttpErrc code) noexcept {
    switch (code) {
        case HttpErrc::resolve_failed:
        case HttpErrc::connect_failed:
        case HttpErrc::connection_closed:
            return true;
        default:
            return false;
    }
}

}  // namespace reagent::http
