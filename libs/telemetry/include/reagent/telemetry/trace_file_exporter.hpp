#pragma once
/// \file
/// \brief `TraceFileExporter`: spans and metrics written to a local file, one OTLP/JSON request per line,
/// for people without a collector (`reagent run --trace-file`).

#include <filesystem>
#include <memory>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/telemetry/metric_data.hpp"
#include "reagent/telemetry/span_data.hpp"
#include "reagent/telemetry/telemetry_error.hpp"

namespace reagent::telemetry {

/// \brief Appends each batch to a file as one line: the OTLP/JSON `ExportTraceServiceRequest` (or
/// `ExportMetricsServiceRequest`) an OTLP/HTTP exporter would post (the OpenTelemetry Collector's file
/// exporter writes the same lines, and its OTLP JSON file receiver reads them).
///
/// \par Thread safety
/// Exports may run at once from any threads: each line is one `write` to a file opened for appending.
class TraceFileExporter {
  public:
    /// \brief Opens `path` for appending (created when missing).
    ///
    /// \par Errors
    /// `invalid_config` naming the file and the system's reason when it cannot be opened.
    [[nodiscard]] static expected<std::shared_ptr<TraceFileExporter>, TelemetryError> open(
        const std::filesystem::path& path, Resource resource);
    ~TraceFileExporter();
    TraceFileExporter(const TraceFileExporter&) = delete;
    TraceFileExporter& operator=(const TraceFileExporter&) = delete;

    /// \par Errors
    /// `export_failed` naming the file when the write fails (a full disk).
    [[nodiscard]] Task<expected<void, TelemetryError>> exportSpans(std::vector<SpanData> spans);
    /// \par Errors
    /// As `exportSpans`.
    [[nodiscard]] Task<expected<void, TelemetryError>> exportMetrics(std::vector<MetricData> metrics);

  private:
    [[nodiscard]] expected<void, TelemetryError> writeLine(std::string line);
    TraceFileExporter(std::filesystem::path path, Resource resource, int fd);
    std::filesystem::path path_;
    Resource resource_;
    int fd_ = -1;
};

}  // namespace reagent::telemetry
