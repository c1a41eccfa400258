#include "reagent/telemetry/instruments.hpp"

namespace reagent::telemetry {

Instruments Instruments::on(Meter& meter) {
    // The conventions' advised bucket boundaries.
    static constexpr double kTokenBounds[] = {1,     4,     16,     64,      256,     1024,     4096,
                                              16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864};
    static constexpr double kGenAiSeconds[] = {0.01, 0.02, 0.04, 0.08,  0.16,  0.32,  0.64,
                                               1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92};
    static constexpr double kMcpSeconds[] = {0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300};
    static constexpr double kHttpSeconds[] = {0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25,
                                              0.5,   0.75, 1,     2.5,  5,     7.5, 10};
    const auto bounds = [](const auto& list) {
        return std::vector<double>(std::begin(list), std::end(list));
    };
    return Instruments{
        meter.histogram("gen_ai.client.token.usage", "{token}", "Number of input and output tokens used.",
                        bounds(kTokenBounds)),
        meter.histogram("gen_ai.client.operation.duration", "s", "GenAI operation duration.",
                        bounds(kGenAiSeconds)),
        meter.histogram(
            "mcp.server.operation.duration", "s",
            "The duration of the MCP request or notification as observed on the receiver from the "
            "time it was received until the result or ack is sent.",
            bounds(kMcpSeconds)),
        meter.histogram(
            "mcp.client.operation.duration", "s",
            "The duration of the MCP request or notification as observed on the sender from the time it "
            "was sent until the response or ack is received.",
            bounds(kMcpSeconds)),
        meter.histogram("http.server.request.duration", "s", "Duration of HTTP server requests.",
                        bounds(kHttpSeconds)),
    };
}

}  // namespace reagent::telemetry
