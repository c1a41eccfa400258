// `pdfText`: poppler's C++ binding opens the bytes in place and gives each page's text in reading order.

#include "pdf_text.hpp"

#include <poppler/cpp/poppler-document.h>
#include <poppler/cpp/poppler-global.h>
#include <poppler/cpp/poppler-page.h>

#include <climits>
#include <exception>
#include <memory>

namespace reagent::documents {

namespace {

void ignorePopplerMessage(const std::string& /*message*/, void* /*closure*/) {}

/// Poppler writes a line to stderr for every oddity of a damaged PDF; a library must not, and the errors
/// we return say what matters. The handler is process-wide state, so it is installed once, by the first
/// PDF read (a function-local static: thread-safe), and never changed back.
void silencePoppler() {
    static const bool silenced = [] {
        poppler::set_debug_error_function(&ignorePopplerMessage, nullptr);
        return true;
    }();
    static_cast<void>(silenced);
}

DocumentError parseFailed(std::string_view path, std::string_view why) {
    return DocumentError{DocumentErrc::parse_failed, std::string(path) + " " + std::string(why)};
}

bool onlyWhitespace(std::string_view text) noexcept {
    return text.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos;
}

expected<std::string, DocumentError> readPages(std::string_view path, std::string_view bytes) {
    // load_from_raw_data reads `bytes` in place (no copy): they outlive the document, which dies here.
    const std::unique_ptr<poppler::document> document(
        poppler::document::load_from_raw_data(bytes.data(), static_cast<int>(bytes.size())));
    if (!document) {
        return fail(parseFailed(path,
                                "could not be read as a PDF (damaged, truncated, or not a PDF): "
                                "open it in a PDF viewer to check, or export it again"));
    }
    if (document->is_locked()) {
        return fail(parseFailed(path,
                                "is encrypted with a password: decrypt it first "
                                "(for example `qpdf --decrypt --password=... in.pdf out.pdf`)"));
    }
    std::string text;
    const int pages = document->pages();
    for (int index = 0; index < pages; ++index) {
        if (index > 0) {
            text += '\f';
        }
        const std::unique_ptr<poppler::page> page(document->create_page(index));
        if (!page) {
            continue;  // a page poppler cannot read adds nothing but its break
        }
        const poppler::byte_array utf8 =
            page->text(poppler::rectf(), poppler::page::non_raw_non_physical_layout).to_utf8();
        // Poppler ends each page with "\n\f" (and some versions a NUL): the page breaks are ours to write.
        std::string_view pageText(utf8.data(), utf8.size());
        pageText = pageText.substr(0, pageText.find_last_not_of(std::string_view(" \t\r\n\f\v\0", 7)) + 1);
        text += pageText;
    }
    if (onlyWhitespace(text)) {
        return fail(parseFailed(path,
                                "has no extractable text (it may be scanned images): run OCR on it "
                                "first (for example `ocrmypdf in.pdf out.pdf`)"));
    }
    return text;
}

}  // namespace

expected<std::string, DocumentError> pdfText(std::string_view path, std::string_view bytes) {
    if (bytes.size() > static_cast<std::size_t>(INT_MAX)) {
        return fail(DocumentError{DocumentErrc::too_large,
                                  std::string(path) + " is " + std::to_string(bytes.size()) +
                                      " bytes, more than the PDF reader takes (" + std::to_string(INT_MAX) +
                                      "): split it into smaller PDFs"});
    }
    silencePoppler();
    // Poppler is third-party code that may throw (std::bad_alloc, or its own errors on a damaged file): the
    // document's failure is an error value, as for any other damaged PDF.
    try {
        return readPages(path, bytes);
    } catch (const std::exception& error) {
        return fail(parseFailed(path, std::string("could not be read as a PDF: ") + error.what()));
    } catch (...) {
        return fail(parseFailed(path, "could not be read as a PDF (the reader failed)"));
    }
}

}  // namespace reagent::documents
