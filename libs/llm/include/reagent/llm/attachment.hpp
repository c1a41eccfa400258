#pragma once
/// \file
/// \brief `Attachment`: an image or a document in a message, beside its text.

#include <boost/describe/enum.hpp>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "reagent/core/error.hpp"
#include "reagent/core/expected.hpp"

namespace reagent::llm {

/// \brief What an attachment is; each API declares the two apart.
enum class MediaKind { image, document };
BOOST_DESCRIBE_ENUM(MediaKind, image, document)

[[nodiscard]] std::string_view toString(MediaKind kind) noexcept;

enum class AttachmentErrc {
    /// The bytes are not a media type the APIs take (PNG, JPEG, GIF, WebP, PDF), whatever the name says.
    unsupported_media,
    /// Larger than `AttachmentLimits::maxBytes`.
    too_large,
    /// The file cannot be read.
    unreadable,
    /// A URL that is not absolute `http`/`https`, or a media type that is not one of the supported ones.
    invalid,
};
BOOST_DESCRIBE_ENUM(AttachmentErrc, unsupported_media, too_large, unreadable, invalid)

[[nodiscard]] std::string_view toString(AttachmentErrc code) noexcept;

using AttachmentError = Error<AttachmentErrc>;

/// \brief Bounds on an attachment's size.
struct AttachmentLimits {
    /// Largest attachment, in bytes (default 20 MiB: the smallest per-file limit of the four APIs' inline
    /// forms is Anthropic's 5 MB per image and 32 MB per request; OpenAI and Gemini take 20 MB inline).
    std::size_t maxBytes = 20U * 1024 * 1024;
};

/// \brief An image (PNG, JPEG, GIF, WebP) or a PDF document, by its bytes or by a URL.
///
/// The media type always comes from the bytes (their magic number), never from a file name: a text file
/// named `photo.png` is refused. Bytes are shared, not copied, between the messages and requests that
/// carry the attachment. Providers encode it per API (docs/providers.md, "Images and documents") and refuse
/// a request with a part their API cannot take.
struct Attachment {
    MediaKind kind = MediaKind::image;
    /// "image/png", "image/jpeg", "image/gif", "image/webp" or "application/pdf".
    std::string mediaType;
    /// The content; null for an attachment by URL.
    std::shared_ptr<const std::string> bytes;
    /// Where the API fetches it from (an attachment by URL); empty with bytes.
    std::string url;
    /// A file name, for the APIs that want one with a document (OpenAI); may be empty.
    std::string name;

    /// \brief Bytes as an attachment: their media type sniffed; `unsupported_media` or `too_large` else.
    [[nodiscard]] static expected<Attachment, AttachmentError> fromBytes(std::string bytes,
                                                                         std::string name = {},
                                                                         const AttachmentLimits& limits = {});
    /// \brief A file's bytes (its size checked before it is read), named after the file.
    [[nodiscard]] static expected<Attachment, AttachmentError> fromFile(const std::filesystem::path& path,
                                                                        const AttachmentLimits& limits = {});
    /// \brief An attachment by URL, of a supported `mediaType` (the bytes are not seen, so it is given).
    [[nodiscard]] static expected<Attachment, AttachmentError> fromUrl(std::string url,
                                                                       std::string mediaType);

    /// \brief Size of the bytes (0 by URL).
    [[nodiscard]] std::size_t size() const noexcept { return bytes ? bytes->size() : 0; }

    friend bool operator==(const Attachment& a, const Attachment& b);
};

/// \brief The supported media type `bytes` begin with ("image/png", ..., "application/pdf"), from their
/// magic number; none for anything else.
[[nodiscard]] std::optional<std::string_view> sniffMediaType(std::string_view bytes) noexcept;

/// \brief The SHA-256 of `bytes` in lowercase hex (64 characters): the name an attachment's bytes are
/// kept under by reference (`agent::AttachmentStore`).
[[nodiscard]] std::string contentHash(std::string_view bytes);

/// \brief The kind of a supported media type; none for an unsupported one.
[[nodiscard]] std::optional<MediaKind> mediaKindOf(std::string_view mediaType) noexcept;

}  // namespace reagent::llm
