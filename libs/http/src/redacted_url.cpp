#include "reagent/http/redacted_url.hpp"

namespace reagent::http {

namespace {

constexpr std::string_view kMask = "***";

// `name=value&...` with every value masked; a parameter without '=' is masked whole (it may be a key).
std::string maskedParameters(std::string_view query) {
    std::string out;
    while (true) {
        const auto amp = query.find('&');
        const std::string_view parameter = query.substr(0, amp);
        if (const auto eq = parameter.find('='); eq != std::string_view::npos) {
            out += parameter.substr(0, eq + 1);
            out += kMask;
        } else if (!parameter.empty()) {
            out += kMask;
        }
        if (amp == std::string_view::npos) {
            return out;
        }
        out += '&';
        query.remove_prefix(amp + 1);
    }
}

}  // namespace

std::string redactedUrl(std::string_view url) {
    std::string out;
    std::size_t authority = 0;
    if (const auto scheme = url.find("://"); scheme != std::string_view::npos) {
        authority = scheme + 3;
    }
    out += url.substr(0, authority);
    std::string_view rest = url.substr(authority);
    const auto authorityEnd = rest.find_first_of("/?#");
    const std::string_view hostPart = rest.substr(0, authorityEnd);
    // The last '@' ends the user information (a password may hold an unescaped '@').
    if (const auto at = hostPart.rfind('@'); at != std::string_view::npos) {
        out += kMask;
        out += hostPart.substr(at);
    } else {
        out += hostPart;
    }
    if (authorityEnd == std::string_view::npos) {
        return out;
    }
    rest.remove_prefix(authorityEnd);
    const auto query = rest.find_first_of("?#");
    out += rest.substr(0, query);
    if (query == std::string_view::npos) {
        return out;
    }
    rest.remove_prefix(query);
    const auto fragment = rest.find('#', 1);
    out += rest.front();
    out += maskedParameters(
        rest.substr(1, fragment == std::string_view::npos ? std::string_view::npos : fragment - 1));
    if (fragment != std::string_view::npos) {
        out += '#';
        if (fragment + 1 < rest.size()) {
            out += kMask;
        }
    }
    return out;
}

}  // namespace reagent::http
