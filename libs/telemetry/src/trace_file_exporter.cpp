#include "reagent/telemetry/trace_file_exporter.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "reagent/telemetry/otlp_json.hpp"
#include "reagent/telemetry/otlp_metrics.hpp"

namespace reagent::telemetry {

namespace {

// Writes all of `text`; false with errno set when the file refuses.
bool writeAll(int fd, std::string_view text) {
    while (!text.empty()) {
        const ssize_t written = ::write(fd, text.data(), text.size());
        if (written < 0) {
            if (errno == EINTR) {
                continue;
            }
            return false;
        }
        text.remove_prefix(static_cast<std::size_t>(written));
    }
    return true;
}

}  // namespace

expected<std::shared_ptr<TraceFileExporter>, TelemetryError> TraceFileExporter::open(
    const std::filesystem::path& path, Resource resource) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
        return fail(
            TelemetryError{TelemetryErrc::invalid_config,
                           "cannot open the trace file " + path.string() + ": " + std::strerror(errno)});
    }
    return std::shared_ptr<TraceFileExporter>(new TraceFileExporter(path, std::move(resource), fd));
}

TraceFileExporter::TraceFileExporter(std::filesystem::path path, Resource resource, int fd)
    : path_(std::move(path)), resource_(std::move(resource)), fd_(fd) {}

TraceFileExporter::~TraceFileExporter() {
    ::close(fd_);
}

Task<expected<void, TelemetryError>> TraceFileExporter::exportSpans(std::vector<SpanData> spans) {
    const InstrumentationScope scope{"reagent", REAGENT_TELEMETRY_VERSION};
    co_return writeLine(encodeTracesJson(resource_, scope, spans));
}

Task<expected<void, TelemetryError>> TraceFileExporter::exportMetrics(std::vector<MetricData> metrics) {
    const InstrumentationScope scope{"reagent", REAGENT_TELEMETRY_VERSION};
    co_return writeLine(encodeMetricsJson(resource_, scope, metrics));
}

expected<void, TelemetryError> TraceFileExporter::writeLine(std::string line) {
    line += '\n';
    // One write of the whole line (O_APPEND): lines of processes sharing the file do not interleave.
    if (!writeAll(fd_, line)) {
        return fail(
            TelemetryError{TelemetryErrc::export_failed,
                           "cannot write to the trace file " + path_.string() + ": " + std::strerror(errno)});
    }
    return {};
}

}  // namespace reagent::telemetry
