#pragma once
/// \file
/// \brief `extractText`: the searchable text of a file's bytes (plain text, Markdown, code, HTML, PDF).

#include <string>
#include <string_view>

#include "reagent/core/expected.hpp"
#include "reagent/documents/chunking.hpp"
#include "reagent/documents/document_error.hpp"

namespace reagent::documents {

/// \brief A document's text and the format `chunkText` should cut it by.
struct ExtractedText {
    /// Valid UTF-8, lines ended by '\n'; a PDF's pages separated by '\f'.
    std::string text;
    TextFormat format = TextFormat::plain;
    /// A document of pages (a PDF): its chunks cite a page, the first when it has only one.
    bool paged = false;
};

/// \brief The searchable text of a file's bytes, by its path's extension: `.html`/`.htm` -> HTML to text
/// (as Markdown: headings, list items, fenced `<pre>`; scripts, styles and comments dropped); `.pdf` -> the
/// PDF's text, pages separated by '\f'; otherwise the bytes themselves, which must be text. The format is
/// `formatOf(path)`, but markdown for HTML and plain for PDF. A UTF-8 byte order mark is dropped; CRLF
/// becomes LF.
///
/// `path` only names the document (extension and messages): nothing is read from disk. The bytes are
/// untrusted: any content is taken, in time linear in its size.
///
/// Errors (the message names the path and says what to do):
/// - `not_text`: bytes that should be text hold a NUL byte or invalid UTF-8 (the offset is given);
/// - `parse_failed`: a PDF that cannot be opened (damaged, not a PDF), is encrypted, or has no text;
/// - `too_large`: a PDF of 2 GiB or more.
[[nodiscard]] expected<ExtractedText, DocumentError> extractText(std::string_view path,
                                                                 std::string_view bytes);

}  // namespace reagent::documents
