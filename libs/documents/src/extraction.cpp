// `extractText`: the bytes checked as text (or read as a PDF), normalised, and turned from HTML into text
// where they are HTML.

#include "reagent/documents/extraction.hpp"

#include <algorithm>
#include <optional>
#include <utility>

#include "pdf_text.hpp"
#include "reagent/core/detail/utf8.hpp"
#include "reagent/core/html_text.hpp"

namespace reagent::documents {

namespace {

/// The lowercase extension of the path's file name ("" without one).
std::string extensionOf(std::string_view path) {
    const std::string_view name = path.substr(path.find_last_of("/\\") + 1);
    const std::size_t dot = name.rfind('.');
    std::string extension(dot == std::string_view::npos ? std::string_view() : name.substr(dot + 1));
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; });
    return extension;
}

/// Why `bytes` are not text, in one pass over all of them: the first NUL byte or invalid UTF-8.
std::optional<DocumentError> notTextError(std::string_view path, std::string_view bytes) {
    for (std::size_t at = 0; at < bytes.size();) {
        if (bytes[at] == '\0') {
            return DocumentError{DocumentErrc::not_text, std::string(path) +
                                                             " is not text: it has a NUL byte at offset " +
                                                             std::to_string(at) + " (a binary file?)"};
        }
        const std::size_t length = reagent::detail::utf8SequenceLength(bytes, at);
        if (length == 0) {
            return DocumentError{DocumentErrc::not_text,
                                 std::string(path) + " is not text: it has invalid UTF-8 at offset " +
                                     std::to_string(at) +
                                     " (in another encoding, such as Latin-1? convert it to UTF-8)"};
        }
        at += length;
    }
    return std::nullopt;
}

/// Without a leading UTF-8 byte order mark, and with CRLF as LF.
std::string withUnixLineEnds(std::string_view text) {
    if (text.substr(0, 3) == "\xEF\xBB\xBF") {
        text.remove_prefix(3);
    }
    std::string normalised;
    normalised.reserve(text.size());
    for (std::size_t at = 0; at < text.size(); ++at) {
        if (text[at] != '\r' || at + 1 == text.size() || text[at + 1] != '\n') {
            normalised += text[at];
        }
    }
    return normalised;
}

}  // namespace

expected<ExtractedText, DocumentError> extractText(std::string_view path, std::string_view bytes) {
    const std::string extension = extensionOf(path);
    if (extension == "pdf") {
        auto text = pdfText(path, bytes);
        if (!text) {
            return fail(std::move(text.error()));
        }
        return ExtractedText{withUnixLineEnds(*text), TextFormat::plain, true};
    }
    if (auto error = notTextError(path, bytes)) {
        return fail(std::move(*error));
    }
    std::string text = withUnixLineEnds(bytes);
    if (extension == "html" || extension == "htm") {
        return ExtractedText{htmlToMarkdown(text), TextFormat::markdown};
    }
    return ExtractedText{std::move(text), formatOf(path)};
}

}  // namespace reagent::documents
