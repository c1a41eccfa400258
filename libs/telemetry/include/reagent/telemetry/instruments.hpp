#pragma once
/// \file
/// \brief `Instruments`: the histograms the instrumentation records, named, united and bucketed as the
/// semantic conventions advise.

#include "reagent/telemetry/meter.hpp"

namespace reagent::telemetry {

/// \brief The metrics reagent records, made once per `Telemetry` (see docs/observability.md).
struct Instruments {
    /// `gen_ai.client.token.usage` (`{token}`): the input and output tokens of each model call
    /// (`gen_ai.token.type`).
    Histogram& tokenUsage;
    /// `gen_ai.client.operation.duration` (`s`): each model call (`chat`), tool call (`execute_tool`) and
    /// run (`invoke_agent`), with `error.type` when it failed.
    Histogram& operationDuration;
    /// `mcp.server.operation.duration` (`s`): each request an MCP server answered.
    Histogram& mcpServerDuration;
    /// `mcp.client.operation.duration` (`s`): each request an MCP client given telemetry made.
    Histogram& mcpClientDuration;
    /// `http.server.request.duration` (`s`): each request an A2A server answered.
    Histogram& httpServerDuration;

    /// \brief The histograms of `meter`, made on first use.
    [[nodiscard]] static Instruments on(Meter& meter);
};

}  // namespace reagent::telemetry
