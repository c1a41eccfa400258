#include "reagent/http/http_error.hpp"

#include "reagent/core/enum_name.hpp"

namespace reagent::http {

std::string_view toString(HttpErrc code) noexcept {
    return enumName(code);
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
