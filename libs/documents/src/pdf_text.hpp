#pragma once
// `pdfText`: the text of a PDF, through poppler (private to the library: only pdf_text.cpp includes it).

#include <string>
#include <string_view>

#include "reagent/core/expected.hpp"
#include "reagent/documents/document_error.hpp"

namespace reagent::documents {

/// \brief The text of the PDF `bytes` (read from `path`, which messages name) in reading order, pages
/// separated by '\f'.
///
/// Errors: `too_large` past 2 GiB (poppler takes an `int` size); `parse_failed` when poppler cannot open it
/// (damaged, not a PDF), when it is encrypted, or when it has no text (scanned images).
/// Thread safety: documents may be read on several threads at once.
[[nodiscard]] expected<std::string, DocumentError> pdfText(std::string_view path, std::string_view bytes);

}  // namespace reagent::documents
