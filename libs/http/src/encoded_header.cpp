#include "reagent/http/encoded_header.hpp"

#include "reagent/core/base64.hpp"
#include "reagent/core/detail/utf8.hpp"
#include "reagent/http/http_headers.hpp"

namespace reagent::http {

namespace {

constexpr std::string_view kEncodedPrefix = "=?base64?";
constexpr std::string_view kEncodedSuffix = "?=";

bool plain(std::string_view value) {
    if (value.empty()) {
        return true;
    }
    if (value.front() == ' ' || value.front() == '\t' || value.back() == ' ' || value.back() == '\t') {
        return false;
    }
    if (value.starts_with(kEncodedPrefix) && value.ends_with(kEncodedSuffix)) {
        return false;  // it would be read as encoded
    }
    for (const char c : value) {
        const auto byte = static_cast<unsigned char>(c);
        if ((byte < 0x20 && byte != '\t') || byte > 0x7E) {
            return false;
        }
    }
    return true;
}

bool validUtf8(std::string_view text) {
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t length = reagent::detail::utf8SequenceLength(text, i);
        if (length == 0) {
            return false;
        }
        i += length;
    }
    return true;
}

}  // namespace

std::string encodeHeaderValue(std::string_view value) {
    if (plain(value)) {
        return std::string(value);
    }
    std::string out(kEncodedPrefix);
    out += base64Encode(value);
    out += kEncodedSuffix;
    return out;
}

std::optional<std::string> decodeHeaderValue(std::string_view value) {
    value = trimWhitespace(value);
    if (!value.starts_with(kEncodedPrefix) || !value.ends_with(kEncodedSuffix) ||
        value.size() < kEncodedPrefix.size() + kEncodedSuffix.size()) {
        return std::string(value);
    }
    value.remove_prefix(kEncodedPrefix.size());
    value.remove_suffix(kEncodedSuffix.size());
    auto bytes = base64Decode(value);
    if (!bytes || !validUtf8(*bytes)) {
        return std::nullopt;
    }
    return bytes;
}

}  // namespace reagent::http
