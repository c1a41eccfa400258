#pragma once
/// \file
/// \brief `HttpResponseHead` and `HttpResponse`: what came back.

#include <string>

#include "reagent/http/http_headers.hpp"

namespace reagent::http {

/// \brief Status line and header fields of a response (untrusted text from the server).
struct HttpResponseHead {
    /// Status code: 200, 404, 529, ...
    int status = 0;
    /// Reason phrase as sent (may be empty).
    std::string reason;
    /// Header fields in the order received.
    HttpHeaders headers;

    /// \brief True for a 2xx status.
    [[nodiscard]] bool ok() const noexcept { return status >= 200 && status < 300; }
};

/// \brief A whole response: head and body (the body is untrusted bytes from the server).
struct HttpResponse : HttpResponseHead {
    /// The decoded body (chunked framing removed; content codings are not undone).
    std::string body;
};

}  // namespace reagent::http
