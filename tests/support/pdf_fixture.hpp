#pragma once
// A PDF written by hand, for the tests of PDF extraction and ingestion: poppler reads it as any PDF.

#include <cstdio>
#include <string>
#include <vector>

namespace reagent::test {

/// A minimal PDF 1.4: one page for each content stream (Helvetica, a standard Type 1 font, on every page),
/// with a cross-reference table whose offsets are counted as it is written.
inline std::string handWrittenPdf(const std::vector<std::string>& pageContents) {
    const std::size_t pages = pageContents.size();
    // Objects: 1 the catalog, 2 the page tree, 3 the font, then a page and its content stream for each page.
    std::vector<std::string> objects;
    std::string kids;
    for (std::size_t i = 0; i < pages; ++i) {
        kids += std::to_string(4 + 2 * i) + " 0 R ";
    }
    objects.push_back("<< /Type /Catalog /Pages 2 0 R >>");
    objects.push_back("<< /Type /Pages /Kids [ " + kids + "] /Count " + std::to_string(pages) + " >>");
    objects.push_back("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
    for (std::size_t i = 0; i < pages; ++i) {
        objects.push_back(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R "
            ">> >> /Contents " +
            std::to_string(5 + 2 * i) + " 0 R >>");
        objects.push_back("<< /Length " + std::to_string(pageContents[i].size()) + " >>\nstream\n" +
                          pageContents[i] + "\nendstream");
    }
    std::string pdf = "%PDF-1.4\n%\xE2\xE3\xCF\xD3\n";
    std::vector<std::size_t> offsets;
    for (std::size_t i = 0; i < objects.size(); ++i) {
        offsets.push_back(pdf.size());
        pdf += std::to_string(i + 1) + " 0 obj\n" + objects[i] + "\nendobj\n";
    }
    const std::size_t xref = pdf.size();
    pdf += "xref\n0 " + std::to_string(objects.size() + 1) + "\n0000000000 65535 f \n";
    for (const std::size_t offset : offsets) {
        char entry[21];
        std::snprintf(entry, sizeof entry, "%010zu 00000 n \n", offset);
        pdf += entry;
    }
    pdf += "trailer\n<< /Size " + std::to_string(objects.size() + 1) + " /Root 1 0 R >>\nstartxref\n" +
           std::to_string(xref) + "\n%%EOF\n";
    return pdf;
}

/// A content stream that draws `text` (no parentheses or backslashes in it) in Helvetica 24.
inline std::string textDrawing(const std::string& text) {
    return "BT /F1 24 Tf 72 700 Td (" + text + ") Tj ET";
}

}  // namespace reagent::test
