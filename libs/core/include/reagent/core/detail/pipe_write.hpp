#pragma once
/// \file
/// \brief `writeToPipe`: writes to a pipe (or any descriptor) without ever raising SIGPIPE.

#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/system/error_code.hpp>
#include <cstddef>
#include <string>
#include <tuple>

#include "reagent/core/task.hpp"

namespace reagent::detail {

/// \brief Writes all of `data` to `pipe`, waiting for room when it is full; a reader that went away is
/// `broken_pipe`, never SIGPIPE, whatever the process's disposition. Returns the error (none when all was
/// written) and the bytes written.
///
/// \par Cancellation
/// Only the wait for room is cancellable (`operation_aborted`, with the bytes written so far).
///
/// \par Lifetime
/// `pipe` (non-blocking, as `Subprocess` opens its stdin, or set so by the caller) must outlive the task.
[[nodiscard]] Task<std::tuple<boost::system::error_code, std::size_t>> writeToPipe(
    boost::asio::posix::stream_descriptor* pipe, std::string data);

}  // namespace reagent::detail
