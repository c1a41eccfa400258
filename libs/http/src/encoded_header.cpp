#include "reagent/http/encoded_header.hpp"

#include <openssl/evp.h>

#include "reagent/core/detail/utf8.hpp"
#include "reagent/http/base64_url.hpp"
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
    out += base64(value);
    out += kEncodedSuffix;
    return out;
}

std::optional<std::string> fromBase64(std::string_view text) {
    if (text.size() % 4 != 0) {
        return std::nullopt;
    }
    std::string out(text.size() / 4 * 3, '\0');
    const int n =
        EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                        reinterpret_cast<const unsigned char*>(text.data()), static_cast<int>(text.size()));
    if (n < 0) {
        return std::nullopt;
    }
    // EVP_DecodeBlock counts padding as zero bytes and skips blanks: trim the padding, then insist that
    // encoding the bytes again gives the text back (no stray characters, no bits left over).
    out.resize(static_cast<std::size_t>(n));
    const std::size_t padding = text.ends_with("==") ? 2 : text.ends_with("=") ? 1 : 0;
    if (padding > out.size()) {
        return std::nullopt;
    }
    out.resize(out.size() - padding);
    if (base64(out) != text) {
        return std::nullopt;
    }
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
    auto bytes = fromBase64(value);
    if (!bytes || !validUtf8(*bytes)) {
        return std::nullopt;
    }
    return bytes;
}

}  // namespace reagent::http
