#pragma once
// The JSON result of http-get, made from a response already read (no I/O).

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "reagent/http/http_response.hpp"

namespace reagent::builtins::detail {

/// A response as http-get read it: its head and at most `maxDownloadBytes` of its body.
struct FetchedResponse {
    http::HttpResponseHead head;
    /// The URL that answered (after redirects) and the redirects followed to get there.
    std::string url;
    std::vector<std::string> redirects;
    /// The body bytes read (untrusted).
    std::string body;
    /// True when reading stopped at the download limit.
    bool downloadCut = false;
    /// Bytes left unread, when `Content-Length` told.
    std::optional<std::uint64_t> bytesNotDownloaded;
};

/// `{url, status, headers, redirects?, contentType, format, title?, body, bodyBytes, bytesCut?, note?}`:
/// `format` is `json` (body parsed), `html-text` (Markdown, see `htmlToMarkdown`), `text`, or `binary` (body
/// null). The body text is cut at `maxBodyBytes` on a character boundary; `bytesCut` counts the bytes
/// of text not shown.
[[nodiscard]] nlohmann::json describeResponse(FetchedResponse response, std::size_t maxBodyBytes);

}  // namespace reagent::builtins::detail
