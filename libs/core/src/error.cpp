#include "reagent/core/error.hpp"

namespace reagent {

std::string detail::describeError(std::string_view code, std::string_view message) {
    std::string text;
    text.reserve(code.size() + 2 + message.size());
    text.append(code).append(": ").append(message);
    return text;
}

}  // namespace reagent
