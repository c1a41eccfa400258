#pragma once

#include <exception>
#include <string>

namespace reagent::detail {

/// \brief The `what()` of a captured exception, or a fixed text for non-standard exceptions.
[[nodiscard]] std::string exceptionMessage(const std::exception_ptr& error);

/// \brief True when the exception is Asio's `operation_aborted`, i.e. the operation was cancelled.
[[nodiscard]] bool isCancellation(const std::exception_ptr& error);

}  // namespace reagent::detail
