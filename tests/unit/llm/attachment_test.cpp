// Attachments: media types from the bytes (never the name), size bounds, files and URLs, and the base64
// the APIs and saved runs carry them in.

#include "reagent/llm/attachment.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "media_fixtures.hpp"
#include "reagent/core/base64.hpp"

using reagent::llm::Attachment;
using reagent::llm::AttachmentErrc;
using reagent::llm::AttachmentLimits;
using reagent::llm::MediaKind;

namespace {

using reagent::test::tinyPng;

struct TempFile {
    std::filesystem::path path;
    TempFile(const std::string& name, const std::string& bytes)
        : path(std::filesystem::temp_directory_path() /
               ("reagent-attach-" + std::to_string(::getpid()) + "-" + name)) {
        std::ofstream(path, std::ios::binary) << bytes;
    }
    ~TempFile() { std::filesystem::remove(path); }
};

}  // namespace

TEST_CASE("attachments: the media type comes from the bytes", "[llm][attachment]") {
    struct Case {
        std::string bytes;
        std::string mediaType;
        MediaKind kind;
    };
    const auto c = GENERATE(Case{"\x89PNG\r\n\x1a\n....", "image/png", MediaKind::image},
                            Case{"\xff\xd8\xff\xe0 JFIF", "image/jpeg", MediaKind::image},
                            Case{"GIF89a....", "image/gif", MediaKind::image},
                            Case{"GIF87a....", "image/gif", MediaKind::image},
                            Case{std::string("RIFF\x10\0\0\0WEBPVP8 ", 16), "image/webp", MediaKind::image},
                            Case{"%PDF-1.7\n%", "application/pdf", MediaKind::document});
    CAPTURE(c.mediaType);
    // The name says something else: it is not read.
    const auto attachment = Attachment::fromBytes(c.bytes, "misnamed.txt");
    REQUIRE(attachment);
    CHECK(attachment->mediaType == c.mediaType);
    CHECK(attachment->kind == c.kind);
    CHECK(attachment->name == "misnamed.txt");
    CHECK(attachment->size() == c.bytes.size());
    CHECK(attachment->url.empty());
}

TEST_CASE("attachments: text named .png, a RIFF that is not WebP and empty bytes are refused",
          "[llm][attachment]") {
    const std::string bytes =
        GENERATE(std::string("just text, named like a picture"), std::string("RIFF\x10\0\0\0WAVEfmt ", 16),
                 std::string(), std::string("\x89PNG", 4));
    const auto attachment = Attachment::fromBytes(bytes, "photo.png");
    REQUIRE_FALSE(attachment);
    CHECK(attachment.error().code == AttachmentErrc::unsupported_media);
    CHECK(attachment.error().message.find("'photo.png' is not a PNG, JPEG, GIF or WebP image or a PDF") == 0);
}

TEST_CASE("attachments: sizes are bounded, before a file is read", "[llm][attachment]") {
    SECTION("bytes") {
        AttachmentLimits limits;
        limits.maxBytes = 100;
        std::string big = tinyPng() + std::string(100, 'x');
        const auto attachment = Attachment::fromBytes(big, "", limits);
        REQUIRE_FALSE(attachment);
        CHECK(attachment.error().code == AttachmentErrc::too_large);
        CHECK(attachment.error().message ==
              "the attachment is " + std::to_string(big.size()) +
                  " bytes; attachments are limited to 100 bytes (AttachmentLimits::maxBytes)");
    }
    SECTION("a 50 MB file, refused at the default limit without reading it") {
        const auto path = std::filesystem::temp_directory_path() /
                          ("reagent-attach-big-" + std::to_string(::getpid()) + ".png");
        {
            std::ofstream out(path, std::ios::binary);
            out << tinyPng();
        }
        std::filesystem::resize_file(path, 50ULL * 1024 * 1024);  // sparse: no 50 MB written
        const auto attachment = Attachment::fromFile(path);
        std::filesystem::remove(path);
        REQUIRE_FALSE(attachment);
        CHECK(attachment.error().code == AttachmentErrc::too_large);
        CHECK(attachment.error().message.find("is 50.0 MiB; attachments are limited to 20.0 MiB") !=
              std::string::npos);
    }
}

TEST_CASE("attachments: from a file, named after it", "[llm][attachment]") {
    const TempFile png("chart.png", tinyPng());
    const auto attachment = Attachment::fromFile(png.path);
    REQUIRE(attachment);
    CHECK(attachment->mediaType == "image/png");
    CHECK(attachment->name == png.path.filename().string());
    CHECK(*attachment->bytes == tinyPng());

    const auto missing = Attachment::fromFile("/nonexistent/reagent/file.png");
    REQUIRE_FALSE(missing);
    CHECK(missing.error().code == AttachmentErrc::unreadable);
    CHECK(missing.error().message.find("cannot read '/nonexistent/reagent/file.png'") == 0);

    const auto directory = Attachment::fromFile(std::filesystem::temp_directory_path());
    REQUIRE_FALSE(directory);
    CHECK(directory.error().code == AttachmentErrc::unreadable);
}

TEST_CASE("attachments: by URL, of a supported media type", "[llm][attachment]") {
    const auto image = Attachment::fromUrl("https://example.com/cat.webp", "image/webp");
    REQUIRE(image);
    CHECK(image->kind == MediaKind::image);
    CHECK(image->size() == 0);
    const auto document = Attachment::fromUrl("http://example.com/a.pdf", "application/pdf");
    REQUIRE(document);
    CHECK(document->kind == MediaKind::document);

    const auto relative = Attachment::fromUrl("/cat.png", "image/png");
    REQUIRE_FALSE(relative);
    CHECK(relative.error().code == AttachmentErrc::invalid);
    const auto file = Attachment::fromUrl("file:///etc/passwd", "image/png");
    REQUIRE_FALSE(file);
    const auto svg = Attachment::fromUrl("https://example.com/x.svg", "image/svg+xml");
    REQUIRE_FALSE(svg);
    CHECK(svg.error().message.find("'image/svg+xml' is not a supported media type") == 0);
}

TEST_CASE("attachments: copies share their bytes", "[llm][attachment]") {
    const auto attachment = Attachment::fromBytes(tinyPng());
    REQUIRE(attachment);
    const Attachment copy = *attachment;
    CHECK(copy.bytes.get() == attachment->bytes.get());
    CHECK(copy == *attachment);
}

TEST_CASE("base64: round trips every length and refuses what is not base64", "[core][base64]") {
    std::string bytes;
    for (int i = 0; i < 300; ++i) {
        const std::string text = reagent::base64Encode(bytes);
        CHECK(text.size() == (bytes.size() + 2) / 3 * 4);
        const auto back = reagent::base64Decode(text);
        REQUIRE(back);
        CHECK(*back == bytes);
        bytes.push_back(static_cast<char>(i * 37));
    }
    CHECK(reagent::base64Encode("hello") == "aGVsbG8=");
    CHECK(reagent::base64Encode("\xff\xfe") == "//4=");
    // Canonical only: "aGVsbG9=" and "aR==" leave bits over in their last character.
    for (const char* bad :
         {"aGVsbG8", "aGV=bG8=", "aGVsbG8*", "a===", "aGVs\nbG8=", "aGVsbG9=", "aR==", " aGVsbG8="}) {
        CAPTURE(bad);
        CHECK_FALSE(reagent::base64Decode(bad));
    }
}
