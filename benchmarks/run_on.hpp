#pragma once
// `runOn`: a task run to its end on an io_context the benchmark keeps (its connections and caches stay
// warm between calls), its exception rethrown.

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <exception>
#include <optional>
#include <utility>

#include "reagent/core/task.hpp"

namespace bench {

template <class T>
T runOn(boost::asio::io_context& io, reagent::Task<T> task) {
    std::optional<T> value;
    boost::asio::co_spawn(io, std::move(task), [&](std::exception_ptr error, T result) {
        if (error) {
            std::rethrow_exception(error);
        }
        value = std::move(result);
    });
    io.restart();
    io.run();
    return std::move(*value);
}

}  // namespace bench
