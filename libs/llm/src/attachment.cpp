#include "reagent/llm/attachment.hpp"

#include <openssl/evp.h>

#include <array>
#include <system_error>
#include <utility>

#include "reagent/core/enum_name.hpp"
#include "reagent/core/file_read.hpp"

namespace reagent::llm {

namespace {

struct Magic {
    std::string_view prefix;
    std::size_t offset;
    std::string_view mediaType;
};

// The signatures of the supported formats. WebP is a RIFF container: "RIFF", 4 bytes of size, "WEBP".
constexpr std::array<Magic, 6> kMagic = {{
    {"\x89PNG\r\n\x1a\n", 0, "image/png"},
    {"\xff\xd8\xff", 0, "image/jpeg"},
    {"GIF87a", 0, "image/gif"},
    {"GIF89a", 0, "image/gif"},
    {"WEBP", 8, "image/webp"},
    {"%PDF-", 0, "application/pdf"},
}};

std::string sizeText(std::size_t bytes) {
    if (bytes >= 1024 * 1024) {
        return std::to_string((bytes * 10 / (1024 * 1024)) / 10) + "." +
               std::to_string((bytes * 10 / (1024 * 1024)) % 10) + " MiB";
    }
    return std::to_string(bytes) + " bytes";
}

AttachmentError tooLarge(std::string_view what, std::size_t size, const AttachmentLimits& limits) {
    return {AttachmentErrc::too_large, std::string(what) + " is " + sizeText(size) +
                                           "; attachments are limited to " + sizeText(limits.maxBytes) +
                                           " (AttachmentLimits::maxBytes)"};
}

}  // namespace

std::string_view toString(MediaKind kind) noexcept {
    return enumName(kind);
}

std::string_view toString(AttachmentErrc code) noexcept {
    return enumName(code);
}

std::optional<std::string_view> sniffMediaType(std::string_view bytes) noexcept {
    for (const Magic& magic : kMagic) {
        if (bytes.size() >= magic.offset + magic.prefix.size() &&
            bytes.substr(magic.offset, magic.prefix.size()) == magic.prefix &&
            (magic.offset == 0 || bytes.substr(0, 4) == "RIFF")) {
            return magic.mediaType;
        }
    }
    return std::nullopt;
}

std::string contentHash(std::string_view bytes) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr);
    static constexpr char kHex[] = "0123456789abcdef";
    std::string hex;
    hex.reserve(2 * length);
    for (unsigned int i = 0; i < length; ++i) {
        hex.push_back(kHex[digest[i] >> 4]);
        hex.push_back(kHex[digest[i] & 15]);
    }
    return hex;
}

std::optional<MediaKind> mediaKindOf(std::string_view mediaType) noexcept {
    if (mediaType == "application/pdf") {
        return MediaKind::document;
    }
    for (const Magic& magic : kMagic) {
        if (magic.mediaType == mediaType) {
            return MediaKind::image;
        }
    }
    return std::nullopt;
}

expected<Attachment, AttachmentError> Attachment::fromBytes(std::string bytes, std::string name,
                                                            const AttachmentLimits& limits) {
    const std::string what = name.empty() ? std::string("the attachment") : "'" + name + "'";
    if (bytes.size() > limits.maxBytes) {
        return fail(tooLarge(what, bytes.size(), limits));
    }
    const auto mediaType = sniffMediaType(bytes);
    if (!mediaType) {
        return fail(AttachmentError{AttachmentErrc::unsupported_media,
                                    what +
                                        " is not a PNG, JPEG, GIF or WebP image or a PDF document (its first "
                                        "bytes say so, whatever its name)"});
    }
    Attachment attachment;
    attachment.mediaType = std::string(*mediaType);
    attachment.kind = *mediaKindOf(attachment.mediaType);
    attachment.bytes = std::make_shared<const std::string>(std::move(bytes));
    attachment.name = std::move(name);
    return attachment;
}

expected<Attachment, AttachmentError> Attachment::fromFile(const std::filesystem::path& path,
                                                           const AttachmentLimits& limits) {
    auto bytes = readFileUpTo(path, limits.maxBytes);
    if (!bytes) {
        const FileReadFailure& failure = bytes.error();
        if (failure.tooLarge) {
            return fail(tooLarge("'" + path.string() + "'", static_cast<std::size_t>(failure.size), limits));
        }
        return fail(AttachmentError{
            AttachmentErrc::unreadable,
            "cannot read '" + path.string() + "'" + (failure.reason.empty() ? "" : ": " + failure.reason)});
    }
    return fromBytes(std::move(*bytes), path.filename().string(), limits);
}

expected<Attachment, AttachmentError> Attachment::fromUrl(std::string url, std::string mediaType) {
    const auto kind = mediaKindOf(mediaType);
    if (!kind) {
        return fail(AttachmentError{AttachmentErrc::invalid,
                                    "'" + mediaType +
                                        "' is not a supported media type (image/png, image/jpeg, "
                                        "image/gif, image/webp, application/pdf)"});
    }
    if (url.rfind("https://", 0) != 0 && url.rfind("http://", 0) != 0) {
        return fail(
            AttachmentError{AttachmentErrc::invalid,
                            "an attachment's URL must be absolute http or https (got '" + url + "')"});
    }
    Attachment attachment;
    attachment.kind = *kind;
    attachment.mediaType = std::move(mediaType);
    attachment.url = std::move(url);
    return attachment;
}

bool operator==(const Attachment& a, const Attachment& b) {
    const bool sameBytes = a.bytes == b.bytes || (a.bytes && b.bytes && *a.bytes == *b.bytes);
    return a.kind == b.kind && a.mediaType == b.mediaType && sameBytes && a.url == b.url && a.name == b.name;
}

}  // namespace reagent::llm
