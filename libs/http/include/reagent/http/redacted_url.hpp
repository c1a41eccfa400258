#pragma once
/// \file
/// \brief `redactedUrl`: a URL safe to show in errors and traces, its credentials masked.

#include <string>
#include <string_view>

namespace reagent::http {

/// \brief `url` with what may be a credential replaced by `***`: the whole user information
/// (`user:password@`), and the value of every query parameter (`?key=***&api-version=***`) and of the
/// fragment. Works on text that is not a valid URL too (it is meant for error messages about such URLs);
/// a text without `://` is read as starting with its authority (`user:pw@proxy:3128`, as curl takes a
/// proxy).
[[nodiscard]] std::string redactedUrl(std::string_view url);

}  // namespace reagent::http
