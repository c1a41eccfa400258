#include "cli_telemetry.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <chrono>
#include <iostream>
#include <optional>

#include "terminal_text.hpp"

namespace reagent::cli {

namespace {

// What the last export may take at exit: long enough for a collector that answers, short enough that a
// command never hangs on one that does not.
constexpr std::chrono::milliseconds kExitFlushBound{5000};

}  // namespace

expected<std::shared_ptr<telemetry::Telemetry>, std::string> openTelemetry(boost::asio::io_context& io,
                                                                           const std::string& traceFile) {
    auto config = telemetry::fromProcessEnvironment("reagent");
    if (!config) {
        return fail("telemetry: " + config.error().message);
    }
    for (const std::string& warning : config->warnings) {
        std::cerr << "reagent: telemetry: " << terminalSafe(warning) << "\n";
    }
    std::optional<std::filesystem::path> file;
    if (!traceFile.empty()) {
        file = traceFile;
    }
    auto made = telemetry::Telemetry::create(io.get_executor(), *config, file);
    if (!made) {
        return fail("telemetry: " + made.error().message);
    }
    return std::move(*made);
}

int runTraced(boost::asio::io_context& io, const std::string& traceFile, RunOptions& options,
              std::string_view hint, const std::function<int()>& command) {
    auto telemetry = openTelemetry(io, traceFile);
    if (!telemetry) {
        std::cerr << "reagent: " << telemetry.error() << "\n" << hint;
        return kExitUsage;
    }
    options.telemetry = *telemetry;
    const int status = command();
    closeTelemetry(io, options.telemetry);
    return status;
}

void hurryTelemetry(boost::asio::io_context& io, const std::shared_ptr<telemetry::Telemetry>& telemetry) {
    if (telemetry) {
        // Its failures are said by closeTelemetry, which flushes again.
        boost::asio::co_spawn(io, telemetry->flush(kExitFlushBound), boost::asio::detached);
    }
}

void closeTelemetry(boost::asio::io_context& io, const std::shared_ptr<telemetry::Telemetry>& telemetry) {
    if (!telemetry) {
        return;
    }
    std::optional<expected<void, telemetry::TelemetryError>> closed;
    boost::asio::co_spawn(io, telemetry->shutdown(kExitFlushBound),
                          [&closed](std::exception_ptr, expected<void, telemetry::TelemetryError> outcome) {
                              closed = std::move(outcome);
                          });
    io.restart();
    io.run();
    if (closed && !*closed) {
        std::cerr << "reagent: telemetry: " << terminalSafe(closed->error().message) << "\n";
    }
    const telemetry::BatchStats stats = telemetry->stats();
    if (stats.dropped > 0) {
        std::cerr
            << "reagent: telemetry: " << stats.dropped
            << " spans were dropped: the export queue was full, or the last export did not end in time\n";
    }
}

}  // namespace reagent::cli
