#pragma once
/// \file
/// \brief `DocumentError`: why a document could not be read, turned into text, stored or embedded.

#include <boost/describe/enum.hpp>
#include <string_view>

#include "reagent/core/error.hpp"

namespace reagent::documents {

/// \brief The reason a document operation failed; the message names the document and says what to do.
enum class DocumentErrc {
    /// An argument the caller gave is out of range or malformed (an empty path, a bad option).
    invalid_argument,
    /// No such document, file or folder.
    not_found,
    /// The file system refused to read the document (permissions, a directory where a file was expected).
    unreadable,
    /// The document is larger than the limit (or than the PDF reader can take, 2 GiB); the message gives the
    /// sizes.
    too_large,
    /// Bytes that should be text are not: a NUL byte or invalid UTF-8; the message gives the offset.
    not_text,
    /// A structured document (a PDF) could not be parsed: damaged, encrypted, or without extractable text.
    parse_failed,
    /// The document index's storage could not be read or written.
    storage_failed,
    /// The embedding model failed to embed a chunk.
    embedding_failed,
    /// The operation was cancelled; what it finished stays done.
    cancelled,
};
BOOST_DESCRIBE_ENUM(DocumentErrc, invalid_argument, not_found, unreadable, too_large, not_text, parse_failed,
                    storage_failed, embedding_failed, cancelled)

/// \brief The code's name as shown to the model and in logs (`"not_text"`, ...).
[[nodiscard]] std::string_view toString(DocumentErrc code) noexcept;

/// \brief A failed document operation: a code and a message a person (or model) can act on.
using DocumentError = reagent::Error<DocumentErrc>;

}  // namespace reagent::documents
