#pragma once
// Two helpers shared by the numbered examples, so that each example shows only its own idea.
// 01_hello_agent.cpp spells out what runTask does.

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "reagent/core/task.hpp"

namespace examples {

/// Runs `task` to completion on a fresh io_context in this thread and returns its value.
template <class T>
T runTask(reagent::Task<T> task) {
    boost::asio::io_context io;
    std::optional<T> value;
    std::exception_ptr error;
    boost::asio::co_spawn(io, std::move(task), [&](std::exception_ptr e, T v) {
        error = e;
        if (!e) {
            value.emplace(std::move(v));
        }
    });
    io.run();
    if (error) {
        std::rethrow_exception(error);
    }
    return std::move(*value);
}

/// Writes `text` to `path`, creating its folders (the examples that need files make them).
inline void writeFile(const std::filesystem::path& path, const std::string& text) {
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path) << text;
}

/// Ends the example with status 1 when an expected outcome did not happen.
inline void check(bool ok, std::string_view what) {
    if (!ok) {
        std::cerr << "example failed: " << what << "\n";
        std::exit(1);
    }
}

}  // namespace examples
