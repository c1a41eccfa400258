#pragma once
/// \file
/// \brief `Error<Errc>`: the shape of reagent's error values.

#include <string>
#include <string_view>

namespace reagent {

namespace detail {

/// \brief `"<code>: <message>"`: how every error type describes itself.
[[nodiscard]] std::string describeError(std::string_view code, std::string_view message);

}  // namespace detail

/// \brief An error value: a code from a library's `enum class` and a message a person (or the model) can
/// act on. Each library names its own (`using MemoryError = Error<MemoryErrc>;`) and declares
/// `std::string_view toString(Errc) noexcept` beside its enum, found by argument-dependent lookup (the
/// enumerator's own name: `enumName`, from a `BOOST_DESCRIBE_ENUM` right after the enum). Error
/// types that carry more (`tools::ToolError`'s details, `llm::ProviderError`'s HTTP status) are structs of
/// the same shape.
template <class Errc>
struct Error {
    /// Value-initialised: the enum's first code.
    Errc code{};
    std::string message;

    /// \brief `"<code>: <message>"`, the text logs show and the model reads.
    [[nodiscard]] std::string describe() const { return detail::describeError(toString(code), message); }
};

}  // namespace reagent
