#include "reagent/telemetry/otlp_exporter.hpp"

#include <algorithm>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "gzip.hpp"
#include "reagent/core/cancellation.hpp"
#include "reagent/core/settle.hpp"
#include "reagent/http/redacted_url.hpp"
#include "reagent/http/retry_after.hpp"
#include "reagent/telemetry/otlp_json.hpp"
#include "reagent/telemetry/otlp_metrics.hpp"
#include "reagent/telemetry/otlp_protobuf.hpp"

namespace reagent::telemetry {

namespace {

namespace asio = boost::asio;
using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

// The codes OTLP/HTTP names retryable.
bool retryableStatus(int status) noexcept {
    return status == 429 || status == 502 || status == 503 || status == 504;
}

std::string attempts(int count) {
    return " (" + std::to_string(count) + (count == 1 ? " attempt)" : " attempts)");
}

}  // namespace

OtlpExporter::OtlpExporter(OtlpDestination destination, Resource resource, ExportRetry retry,
                           http::HttpClientConfig http)
    : destination_(std::move(destination)),
      resource_(std::move(resource)),
      retry_(retry),
      client_(std::move(http)) {}

Task<expected<void, TelemetryError>> OtlpExporter::exportSpans(std::vector<SpanData> spans) {
    const InstrumentationScope scope{"reagent", REAGENT_TELEMETRY_VERSION};
    std::string body = destination_.protocol == OtlpProtocol::http_json
                           ? encodeTracesJson(resource_, scope, spans)
                           : encodeTracesProtobuf(resource_, scope, spans);
    // Cancellation is looked at, not thrown: the export ends with `cancelled` instead.
    return withCheckedCancellation(post(std::move(body)));
}

Task<expected<void, TelemetryError>> OtlpExporter::exportMetrics(std::vector<MetricData> metrics) {
    const InstrumentationScope scope{"reagent", REAGENT_TELEMETRY_VERSION};
    std::string body = destination_.protocol == OtlpProtocol::http_json
                           ? encodeMetricsJson(resource_, scope, metrics)
                           : encodeMetricsProtobuf(resource_, scope, metrics);
    return withCheckedCancellation(post(std::move(body)));
}

Task<expected<void, TelemetryError>> OtlpExporter::post(std::string body) {
    http::HttpRequest request;
    request.method = "POST";
    request.url = destination_.endpoint;
    for (const auto& [name, value] : destination_.headers) {
        request.headers.set(name, value);
    }
    request.headers.set("Content-Type", destination_.protocol == OtlpProtocol::http_json
                                            ? "application/json"
                                            : "application/x-protobuf");
    const std::string where = "OTLP export to " + http::redactedUrl(destination_.endpoint);
    if (destination_.compression == OtlpCompression::gzip) {
        auto compressed = detail::gzipCompress(body);
        if (!compressed) {
            co_return fail(
                TelemetryError{TelemetryErrc::export_failed, where + " failed: gzip ran out of memory"});
        }
        request.headers.set("Content-Encoding", "gzip");
        request.body = std::move(*compressed);
    } else {
        request.body = std::move(body);
    }
    const auto deadline = Clock::now() + destination_.timeout;
    milliseconds backoff = retry_.initialBackoff;
    std::string last;
    const int allowed = std::max(retry_.maxAttempts, 1);
    int made = 0;
    for (int attempt = 1; attempt <= allowed; ++attempt) {
        const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
        if (left <= milliseconds(0)) {
            break;
        }
        made = attempt;
        request.timeout = left;
        auto response = co_await client_.send(request);
        if (isCancelled(co_await asio::this_coro::cancellation_state)) {
            co_return fail(TelemetryError{TelemetryErrc::cancelled, where + " was cancelled"});
        }
        std::optional<milliseconds> asked;
        if (response) {
            if (response->ok()) {
                co_return expected<void, TelemetryError>{};
            }
            last = "HTTP " + std::to_string(response->status);
            if (!retryableStatus(response->status)) {
                co_return fail(
                    TelemetryError{TelemetryErrc::export_failed,
                                   where + " failed: " + last + " (not retried)" + attempts(attempt)});
            }
            if (auto value = response->headers.find("retry-after")) {
                asked = http::parseRetryAfter(*value, std::chrono::system_clock::now());
            }
        } else {
            last = response.error().describe();
        }
        if (attempt == allowed) {
            break;
        }
        const milliseconds wait = asked ? *asked : backoff;
        backoff = std::min(std::chrono::duration_cast<milliseconds>(backoff * 3 / 2), retry_.maxBackoff);
        if (Clock::now() + wait >= deadline) {
            co_return fail(TelemetryError{TelemetryErrc::export_failed,
                                          where + " failed: " + last + "; the next attempt would pass the " +
                                              std::to_string(destination_.timeout.count()) + " ms limit" +
                                              attempts(attempt)});
        }
        asio::steady_timer timer(co_await asio::this_coro::executor, wait);
        boost::system::error_code waited;
        co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, waited));
        if (waited || isCancelled(co_await asio::this_coro::cancellation_state)) {
            co_return fail(TelemetryError{TelemetryErrc::cancelled, where + " was cancelled"});
        }
    }
    co_return fail(
        TelemetryError{TelemetryErrc::export_failed,
                       where + " failed: " + (last.empty() ? "no time left" : last) + attempts(made)});
}

}  // namespace reagent::telemetry
