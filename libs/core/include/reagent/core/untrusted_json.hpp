#pragma once
/// \file
/// \brief `parseUntrustedJson`: the one parse of JSON text that comes from outside (a model, a server, a
/// client, a file), with its nesting bounded.

#include <boost/describe/enum.hpp>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string_view>

#include "reagent/core/error.hpp"
#include "reagent/core/expected.hpp"

namespace reagent {

/// \brief The deepest nesting of arrays and objects accepted in JSON from outside: far beyond any real
/// message, schema or reply, and shallow enough that every recursive walk of a value (nlohmann's `dump`,
/// copies and comparisons, valijson, reagent's own walks) stays well inside a thread's stack, under the
/// sanitizers too. The providers' Boost.JSON parser uses the same number.
inline constexpr std::size_t kMaxJsonDepth = 512;

/// \brief Why a text from outside was not accepted as JSON.
enum class JsonErrc {
    /// The text is not one JSON value (a syntax error, invalid UTF-8, trailing text); the message says
    /// where.
    syntax,
    /// Arrays and objects nest deeper than the limit (`UntrustedJsonOptions::maxDepth`).
    too_deep,
};
BOOST_DESCRIBE_ENUM(JsonErrc, syntax, too_deep)

/// \brief The name of a code, as used in messages and logs (`"syntax"`, `"too_deep"`).
[[nodiscard]] std::string_view toString(JsonErrc code) noexcept;

/// \brief A refused JSON text: a code and a message a person can act on.
using JsonError = Error<JsonErrc>;

/// \brief How deep a parse of untrusted JSON may go.
struct UntrustedJsonOptions {
    /// The deepest nesting of arrays and objects accepted (the top-level array or object is depth 1).
    std::size_t maxDepth = kMaxJsonDepth;
};

/// \brief `text` parsed as one JSON value, refused as soon as it nests deeper than `options.maxDepth`.
///
/// Use it for every text reagent did not write itself; values built in memory need no check. The parse
/// is one pass (nlohmann's SAX interface) and never throws for bad input: the error is `syntax` with
/// nlohmann's description of where the text went wrong, or `too_deep` naming the limit.
[[nodiscard]] expected<nlohmann::json, JsonError> parseUntrustedJson(std::string_view text,
                                                                     UntrustedJsonOptions options = {});

}  // namespace reagent
