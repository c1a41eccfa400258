#include "reagent/core/error_cause.hpp"

#include "reagent/core/error.hpp"

namespace reagent {

std::string ErrorCause::describe() const {
    return detail::describeError(code.empty() ? domain : domain + "/" + code, message);
}

}  // namespace reagent
