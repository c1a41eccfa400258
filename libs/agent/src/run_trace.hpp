#pragma once
// Private to libs/agent: a run's spans in OpenTelemetry's GenAI conventions (docs/observability.md). The
// driver calls it at each step; a run of an agent without telemetry has none, and pays one null check a
// step.

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "reagent/agent/agent.hpp"
#include "reagent/agent/compaction_record.hpp"
#include "reagent/agent/run_result.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/llm/model_request.hpp"
#include "reagent/llm/provider_error.hpp"
#include "reagent/telemetry/telemetry.hpp"
#include "reagent/tools/tool_call.hpp"

namespace reagent::agent::detail {

class RunTrace {
  public:
    /// Starts the run's `invoke_agent` span, child of `parent` when it is valid.
    RunTrace(std::shared_ptr<telemetry::Telemetry> telemetry, const Agent::State& agent,
             const SpanContext& parent, std::string conversationId);
    RunTrace(const RunTrace&) = delete;
    RunTrace& operator=(const RunTrace&) = delete;
    ~RunTrace();

    [[nodiscard]] const SpanContext& context() const noexcept { return run_.context(); }

    /// Starts model call `iteration`'s `chat` span: `request` carries it on, and its retries, throttling
    /// and fallbacks become the span's events (beside whatever the request already reports to).
    void modelCallStarting(llm::ModelRequest& request, int iteration);
    /// Ends the model call's span with what came back.
    void modelCallEnded(const expected<llm::ModelReply, llm::ProviderError>& reply);
    /// The answer was sent back to the model (`OutputRejected`).
    void outputRejected(int attempt, std::size_t problems);

    /// Starts an `execute_tool` span per call: each call carries its own (`ToolCallRequest::trace`).
    void toolCallsStarting(std::vector<tools::ToolCallRequest>& calls);
    /// Ends the batch's spans, with each call's times and outcome.
    void toolCallsEnded(const std::vector<tools::ToolCallRecord>& records);

    void compacted(const Compaction& compaction);
    /// The run resumed with these decisions: a refused call, which never runs, is an event of the run's
    /// span (an approved one's span shows its grant when it runs).
    void resumedWith(const std::vector<ApprovalDecision>& decisions);

    /// Ends every span still open, the run's last, with how the run ended.
    void finished(const RunResult& result);

  private:
    /// The attributes the run's and the model calls' spans share: the operation, the provider, the model
    /// asked for and the conversation.
    void describeOperation(telemetry::Span& span, const char* operation) const;
    /// The attributes every metric point of the run has: the operation, the provider, the model asked for
    /// and the one that answered (when known).
    [[nodiscard]] std::vector<telemetry::Attribute> pointAttributes(const char* operation,
                                                                    std::string_view responseModel) const;
    /// Records an operation's duration (`gen_ai.client.operation.duration`) with the attributes the
    /// conventions give it; empty strings are left out.
    void recordDuration(const char* operation, double seconds, std::string_view responseModel,
                        std::string_view toolName, std::string_view errorType) const;
    /// Records a model call's input and output tokens (`gen_ai.client.token.usage`).
    void recordTokens(const llm::Usage& usage, std::string_view responseModel) const;

    struct ToolSpan {
        std::string callId;
        telemetry::Span span;
        bool ended = false;
        bool preApproved = false;  // approved by the caller, after the run paused for it
    };

    std::shared_ptr<telemetry::Telemetry> telemetry_;
    const telemetry::Instruments* metrics_ = nullptr;  // null when metrics are off
    bool content_ = false;
    telemetry::GenAiConventions conventions_;
    std::string providerName_;
    std::string requestModel_;
    std::string conversationId_;
    telemetry::Span run_;
    telemetry::Span chat_;
    std::chrono::steady_clock::time_point runStarted_;
    std::optional<std::chrono::steady_clock::time_point> chatStarted_;  // while a model call runs
    // The batch in flight: one span per call, and the contexts the calls point to (not moved while the
    // batch runs).
    std::vector<ToolSpan> tools_;
    std::vector<SpanContext> toolContexts_;
};

/// The `gen_ai.provider.name` of a provider (`llm::Provider::name`): the conventions' well-known name
/// where there is one (`gcp.gemini` for Gemini), the provider's own otherwise.
[[nodiscard]] std::string providerNameOf(std::string_view provider);

}  // namespace reagent::agent::detail
