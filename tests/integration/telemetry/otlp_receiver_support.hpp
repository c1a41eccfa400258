#pragma once
// The loopback OTLP receiver (tests/peers/otlp_receiver.py) as the telemetry tests use it: started, asked
// what it received, and each received body decoded by OpenTelemetry's own protobuf root
// (tests/peers/otel/otlp_decode.mjs), whichever encoding it came in.

#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "peer_process.hpp"
#include "reagent/core/base64.hpp"
#include "reagent/core/run_to_end.hpp"
#include "reagent/http/http_client.hpp"
#include "run_coro.hpp"
#include "temp_dir.hpp"

namespace reagent::test {

/// `otlp_receiver.py` with `args` (`--fail N --status S --retry-after V`, `--hang`).
inline PeerProcess otlpReceiver(std::vector<std::string> args = {}) {
    return PeerProcess(std::string(REAGENT_PEERS_DIR) + "/otlp_receiver.py", std::move(args));
}

/// What the receiver recorded: `[{"path", "headers", "body_base64", "at_ms"}]`.
inline nlohmann::json receivedExports(const PeerProcess& peer) {
    http::HttpClient client;
    http::HttpRequest request;
    request.url = peer.url("/received");
    auto response = runCoro(client.send(request));
    REQUIRE(response);
    return nlohmann::json::parse(response->body);
}

/// A received body as OpenTelemetry's message type reads it (OTLP/JSON conventions): decoded from
/// protobuf, or read from OTLP/JSON into the message type when `json` (hex ids turned to bytes). The
/// message type is the traces' or the metrics' request, by the path it was posted to.
inline nlohmann::json decodedExport(const nlohmann::json& record, bool json = false) {
    using namespace std::chrono_literals;
    const TempDir dir;
    const auto body = base64Decode(record["body_base64"].get<std::string>());
    REQUIRE(body);
    std::ofstream(dir.path / "batch.pb", std::ios::binary) << (json ? std::string() : *body);
    const bool metrics = record["path"].get<std::string>().find("metrics") != std::string::npos;
    const std::string none = metrics ? R"({"resourceMetrics":[]})" : R"({"resourceSpans":[]})";
    std::ofstream(dir.path / "batch.json") << (json ? *body : none);
    SubprocessOptions options;
    options.program = REAGENT_NODE;
    options.args = {REAGENT_OTLP_DECODE, (dir.path / "batch.pb").string(), (dir.path / "batch.json").string(),
                    metrics ? "metrics" : "traces"};
    RunLimits limits;
    limits.deadline = std::chrono::steady_clock::now() + 30s;
    auto ran = runCoro(runToEnd(options, limits));
    REQUIRE(ran);
    INFO(ran->stderrText);
    REQUIRE(ran->exitCode == 0);
    return nlohmann::json::parse(ran->stdoutText)[json ? "fromJson" : "fromProtobuf"];
}

}  // namespace reagent::test
