#include "reagent/core/settle.hpp"

#include "reagent/core/detail/exception_message.hpp"

namespace reagent::detail {

EffectError settledError(const std::exception_ptr& error, bool callerCancelled) {
    if (callerCancelled || isCancellation(error)) {
        return EffectError{EffectErrc::cancelled, "cancelled while running"};
    }
    return EffectError{EffectErrc::exception, exceptionMessage(error)};
}

EffectError cancelledBeforeStart() {
    return EffectError{EffectErrc::cancelled, "cancelled before it started"};
}

}  // namespace reagent::detail
