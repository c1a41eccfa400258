#include "run_trace.hpp"

#include <algorithm>
#include <chrono>
#include <utility>

#include "agent_state.hpp"
#include "reagent/tools/tool_error.hpp"

namespace reagent::agent::detail {

namespace {

using telemetry::Attribute;
using telemetry::GenAiConventions;
using telemetry::SpanKind;
using telemetry::StatusCode;

std::uint64_t unixNano(std::chrono::system_clock::time_point at) {
    return static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(at.time_since_epoch()).count());
}

// The provider's name as the conventions in force spell it.
std::string providerNameFor(std::string_view provider, GenAiConventions conventions) {
    if (conventions == GenAiConventions::latest) {
        return providerNameOf(provider);
    }
    return std::string(provider);  // v1.36.0's gen_ai.system values are the APIs' own names
}

const char* providerKey(GenAiConventions conventions) {
    return conventions == GenAiConventions::latest ? "gen_ai.provider.name" : "gen_ai.system";
}

// Content as a span attribute holds it: JSON text, any invalid UTF-8 of the model's or a tool's replaced.
std::string jsonText(const nlohmann::json& value) {
    return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The opt-in content of messages, in the conventions' JSON form ({role, parts: [...]}).
nlohmann::json partsOf(const llm::Message& message) {
    nlohmann::json parts = nlohmann::json::array();
    if (message.role == llm::Role::tool) {
        parts.push_back(
            {{"type", "tool_call_response"}, {"id", message.toolCallId}, {"result", message.text}});
        return parts;
    }
    if (!message.text.empty()) {
        parts.push_back({{"type", "text"}, {"content", message.text}});
    }
    for (const llm::ToolCall& call : message.toolCalls) {
        parts.push_back(
            {{"type", "tool_call"}, {"id", call.id}, {"name", call.name}, {"arguments", call.arguments}});
    }
    return parts;
}

const char* roleName(llm::Role role) {
    switch (role) {
        case llm::Role::system:
            return "system";
        case llm::Role::user:
            return "user";
        case llm::Role::assistant:
            return "assistant";
        case llm::Role::tool:
            return "tool";
    }
    return "user";
}

std::string inputMessages(const std::vector<llm::Message>& messages) {
    nlohmann::json out = nlohmann::json::array();
    for (const llm::Message& message : messages) {
        if (message.role != llm::Role::system) {
            out.push_back({{"role", roleName(message.role)}, {"parts", partsOf(message)}});
        }
    }
    return jsonText(out);
}

std::string systemInstructions(const std::vector<llm::Message>& messages) {
    nlohmann::json out = nlohmann::json::array();
    for (const llm::Message& message : messages) {
        if (message.role == llm::Role::system) {
            out.push_back({{"type", "text"}, {"content", message.text}});
        }
    }
    return out.empty() ? std::string() : jsonText(out);
}

std::string outputMessages(const llm::ModelReply& reply) {
    const llm::Message message = llm::Message::assistant(reply.text, reply.toolCalls);
    nlohmann::json out = nlohmann::json::array();
    out.push_back({{"role", "assistant"},
                   {"parts", partsOf(message)},
                   {"finish_reason", std::string(llm::toString(reply.stopReason))}});
    return jsonText(out);
}

void setUsage(telemetry::Span& span, const llm::Usage& usage, GenAiConventions conventions) {
    span.setAttribute("gen_ai.usage.input_tokens", usage.inputTokens);
    span.setAttribute("gen_ai.usage.output_tokens", usage.outputTokens);
    if (conventions != GenAiConventions::latest) {
        return;  // v1.36.0 names no others
    }
    if (usage.cacheReadTokens != 0) {
        span.setAttribute("gen_ai.usage.cache_read.input_tokens", usage.cacheReadTokens);
    }
    if (usage.cacheWriteTokens != 0) {
        span.setAttribute("gen_ai.usage.cache_creation.input_tokens", usage.cacheWriteTokens);
    }
    if (usage.reasoningTokens != 0) {
        span.setAttribute("gen_ai.usage.reasoning.output_tokens", usage.reasoningTokens);
    }
}

void setError(telemetry::Span& span, std::string_view type, std::string message) {
    span.setAttribute("error.type", std::string(type));
    span.setStatus(StatusCode::error, std::move(message));
}

std::int64_t millis(std::chrono::milliseconds wait) {
    return static_cast<std::int64_t>(wait.count());
}

// The approval a call went through, as an event of its span: asked (the run pauses), granted by the caller
// after a pause, refused, or impossible (no one to ask).
void addApprovalEvent(telemetry::Span& span, const tools::ToolCallRecord& record, bool preApproved) {
    if (preApproved) {
        span.addEvent("reagent.approval.granted", {{"reagent.approval.decided_later", true}});
        return;
    }
    if (record.succeeded()) {
        return;
    }
    switch (record.outcome.error().code) {
        case tools::ToolErrc::approval_pending:
            span.addEvent("reagent.approval.requested");
            break;
        case tools::ToolErrc::approval_denied:
            span.addEvent("reagent.approval.denied");
            break;
        case tools::ToolErrc::approval_unavailable:
            span.addEvent("reagent.approval.unavailable");
            break;
        default:
            break;
    }
}

double secondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

std::string providerNameOf(std::string_view provider) {
    if (provider == "gemini") {
        return "gcp.gemini";
    }
    return std::string(provider);
}

RunTrace::RunTrace(std::shared_ptr<telemetry::Telemetry> telemetry, const Agent::State& agent,
                   const SpanContext& parent, std::string conversationId)
    : telemetry_(std::move(telemetry)),
      metrics_(telemetry_->instruments()),
      content_(telemetry_->options().captureContent),
      conventions_(telemetry_->options().conventions),
      providerName_(providerNameFor(agent.config.provider->name(), conventions_)),
      requestModel_(agent.config.provider->model()),
      conversationId_(std::move(conversationId)),
      runStarted_(std::chrono::steady_clock::now()) {
    const std::string& name = agent.config.name;
    run_ = telemetry_->tracer().startSpan(name.empty() ? "invoke_agent" : "invoke_agent " + name,
                                          SpanKind::internal, &parent);
    if (!run_.recording()) {
        return;
    }
    describeOperation(run_, "invoke_agent");
    if (!name.empty()) {
        run_.setAttribute("gen_ai.agent.name", name);
    }
    if (content_ && !agent.systemPrompt.empty()) {
        nlohmann::json instructions =
            nlohmann::json::array({{{"type", "text"}, {"content", agent.systemPrompt}}});
        run_.setAttribute("gen_ai.system_instructions", jsonText(instructions));
    }
}

RunTrace::~RunTrace() = default;

void RunTrace::describeOperation(telemetry::Span& span, const char* operation) const {
    span.setAttribute("gen_ai.operation.name", std::string(operation));
    span.setAttribute(providerKey(conventions_), providerName_);
    if (!requestModel_.empty()) {
        span.setAttribute("gen_ai.request.model", requestModel_);
    }
    if (!conversationId_.empty()) {
        span.setAttribute("gen_ai.conversation.id", conversationId_);
    }
}

namespace {

// The key of a metric point of a run (`Histogram::record` with a key): every attribute's value, joined by a
// separator no name holds. A buffer per thread: a recording of a point seen before allocates nothing.
std::string& pointKey(std::initializer_list<std::string_view> parts) {
    thread_local std::string key;
    key.clear();
    for (const std::string_view part : parts) {
        key.append(part);
        key.push_back('\x1f');
    }
    return key;
}

}  // namespace

std::vector<telemetry::Attribute> RunTrace::pointAttributes(const char* operation,
                                                            std::string_view responseModel) const {
    std::vector<telemetry::Attribute> attributes;
    attributes.reserve(6);
    attributes.push_back({"gen_ai.operation.name", std::string(operation)});
    attributes.push_back({providerKey(conventions_), providerName_});
    if (!requestModel_.empty()) {
        attributes.push_back({"gen_ai.request.model", requestModel_});
    }
    if (!responseModel.empty()) {
        attributes.push_back({"gen_ai.response.model", std::string(responseModel)});
    }
    return attributes;
}

void RunTrace::recordDuration(const char* operation, double seconds, std::string_view responseModel,
                              std::string_view toolName, std::string_view errorType) const {
    const std::string& key = pointKey({operation, providerKey(conventions_), providerName_, requestModel_,
                                       responseModel, toolName, errorType});
    metrics_->operationDuration.record(seconds, key, [&] {
        auto attributes = pointAttributes(operation, responseModel);
        if (!toolName.empty()) {
            attributes.push_back({"gen_ai.tool.name", std::string(toolName)});
        }
        if (!errorType.empty()) {
            attributes.push_back({"error.type", std::string(errorType)});
        }
        return attributes;
    });
}

void RunTrace::recordTokens(const llm::Usage& usage, std::string_view responseModel) const {
    for (const auto& [name, count] :
         {std::pair{"input", usage.inputTokens}, std::pair{"output", usage.outputTokens}}) {
        const std::string_view type = name;  // a structured binding cannot be captured (before C++23)
        const std::string& key =
            pointKey({providerKey(conventions_), providerName_, requestModel_, responseModel, type});
        metrics_->tokenUsage.record(static_cast<double>(count), key, [&] {
            auto attributes = pointAttributes("chat", responseModel);
            attributes.push_back({"gen_ai.token.type", std::string(type)});
            return attributes;
        });
    }
}

void RunTrace::modelCallStarting(llm::ModelRequest& request, int iteration) {
    chatStarted_ = std::chrono::steady_clock::now();
    chat_ = telemetry_->tracer().startSpan(requestModel_.empty() ? "chat" : "chat " + requestModel_,
                                           SpanKind::client, &run_.context());
    request.trace = chat_.context();
    if (!chat_.recording()) {
        return;
    }
    request.tracer = &telemetry_->tracer();  // the HTTP attempts' spans, under this one
    describeOperation(chat_, "chat");
    chat_.setAttribute("reagent.iteration", static_cast<std::int64_t>(iteration));
    if (request.maxTokens) {
        chat_.setAttribute("gen_ai.request.max_tokens", static_cast<std::int64_t>(*request.maxTokens));
    }
    if (request.temperature) {
        chat_.setAttribute("gen_ai.request.temperature", *request.temperature);
    }
    chat_.setAttribute("gen_ai.output.type", std::string(request.output ? "json" : "text"));
    if (content_) {
        chat_.setAttribute("gen_ai.input.messages", inputMessages(request.messages));
        if (auto instructions = systemInstructions(request.messages); !instructions.empty()) {
            chat_.setAttribute("gen_ai.system_instructions", std::move(instructions));
        }
    }
    // The span outlives the model call (the run holds this trace until it ends): the notices can reach it.
    telemetry::Span* span = &chat_;
    request.onRetry = [span, next = std::move(request.onRetry)](const llm::RetryNotice& notice) {
        span->addEvent("reagent.model.retry",
                       {{"reagent.retry.attempt", static_cast<std::int64_t>(notice.attempt)},
                        {"reagent.retry.wait_ms", millis(notice.wait)},
                        {"error.type", std::string(llm::toString(notice.error.code))}});
        if (next) {
            next(notice);
        }
    };
    request.onThrottle = [span, next = std::move(request.onThrottle)](const llm::ThrottleNotice& notice) {
        span->addEvent("reagent.model.throttled", {{"reagent.throttle.wait_ms", millis(notice.wait)}});
        if (next) {
            next(notice);
        }
    };
    request.onFallback = [span, next = std::move(request.onFallback)](const llm::FallbackNotice& notice) {
        span->addEvent("reagent.model.fallback",
                       {{"reagent.fallback.from", notice.from},
                        {"reagent.fallback.to", notice.to},
                        {"error.type", std::string(llm::toString(notice.error.code))}});
        if (next) {
            next(notice);
        }
    };
}

void RunTrace::modelCallEnded(const expected<llm::ModelReply, llm::ProviderError>& reply) {
    if (metrics_ && chatStarted_) {
        if (reply) {
            recordDuration("chat", secondsSince(*chatStarted_), reply->model, {}, {});
            recordTokens(reply->usage, reply->model);
        } else {
            recordDuration("chat", secondsSince(*chatStarted_), {}, {}, llm::toString(reply.error().code));
        }
    }
    chatStarted_.reset();
    if (chat_.recording()) {
        if (reply) {
            if (!reply->model.empty()) {
                chat_.setAttribute("gen_ai.response.model", reply->model);
            }
            if (!reply->id.empty()) {
                chat_.setAttribute("gen_ai.response.id", reply->id);
            }
            chat_.setAttribute("gen_ai.response.finish_reasons",
                               std::vector<std::string>{std::string(llm::toString(reply->stopReason))});
            setUsage(chat_, reply->usage, conventions_);
            if (content_) {
                chat_.setAttribute("gen_ai.output.messages", outputMessages(*reply));
            }
        } else {
            setUsage(chat_, reply.error().usage, conventions_);
            setError(chat_, llm::toString(reply.error().code), reply.error().describe());
        }
    }
    chat_.end();
}

void RunTrace::outputRejected(int attempt, std::size_t problems) {
    run_.addEvent("reagent.output.rejected",
                  {{"reagent.output.attempt", static_cast<std::int64_t>(attempt)},
                   {"reagent.output.problems", static_cast<std::int64_t>(problems)}});
}

void RunTrace::toolCallsStarting(std::vector<tools::ToolCallRequest>& calls) {
    tools_.clear();  // spans of an earlier batch that did not report end here
    toolContexts_.clear();
    tools_.reserve(calls.size());
    toolContexts_.reserve(calls.size());
    for (tools::ToolCallRequest& call : calls) {
        telemetry::Span span =
            telemetry_->tracer().startSpan("execute_tool " + call.name, SpanKind::internal, &run_.context());
        if (span.recording()) {
            span.setAttribute("gen_ai.operation.name", std::string("execute_tool"));
            span.setAttribute("gen_ai.tool.name", call.name);
            span.setAttribute("gen_ai.tool.call.id", call.id);
            span.setAttribute("gen_ai.tool.type", std::string("function"));
            if (content_) {
                span.setAttribute("gen_ai.tool.call.arguments", jsonText(call.arguments));
            }
        }
        toolContexts_.push_back(span.context());
        tools_.push_back(ToolSpan{call.id, std::move(span), false, call.preApproved});
    }
    for (std::size_t i = 0; i < calls.size(); ++i) {
        calls[i].trace = &toolContexts_[i];
    }
}

void RunTrace::toolCallsEnded(const std::vector<tools::ToolCallRecord>& records) {
    for (const tools::ToolCallRecord& record : records) {
        const auto it = std::find_if(tools_.begin(), tools_.end(), [&](const ToolSpan& tool) {
            return !tool.ended && tool.callId == record.id;
        });
        if (it == tools_.end()) {
            continue;
        }
        it->ended = true;
        const bool pending =
            !record.succeeded() && record.outcome.error().code == tools::ToolErrc::approval_pending;
        if (metrics_ && !pending && record.startedAt != std::chrono::system_clock::time_point{} &&
            record.endedAt >= record.startedAt) {
            recordDuration(
                "execute_tool", std::chrono::duration<double>(record.endedAt - record.startedAt).count(), {},
                record.name,
                record.succeeded() ? std::string_view() : tools::toString(record.outcome.error().code));
        }
        telemetry::Span& span = it->span;
        if (!span.recording()) {
            continue;
        }
        // The span was made when the batch began; the call may have waited for its turn.
        if (record.startedAt != std::chrono::system_clock::time_point{}) {
            span.setStartTime(unixNano(record.startedAt));
        }
        addApprovalEvent(span, record, it->preApproved);
        if (record.succeeded()) {
            if (content_) {
                span.setAttribute("gen_ai.tool.call.result", *record.outcome);
            }
        } else if (pending) {
            // Not a failure: the run pauses for a person's decision, and the call runs when resumed.
            span.setAttribute("reagent.tool.outcome", std::string("approval_pending"));
        } else {
            const tools::ToolError& error = record.outcome.error();
            // A tool's message may quote what it read: only the code, unless content is recorded.
            setError(span, tools::toString(error.code),
                     content_ ? error.message : std::string(tools::toString(error.code)));
        }
        if (!record.memoryKey.empty()) {
            span.addEvent("reagent.tool.result_compressed", {{"reagent.memory.key", record.memoryKey}});
        }
        span.end(record.endedAt != std::chrono::system_clock::time_point{} ? unixNano(record.endedAt) : 0);
    }
}

void RunTrace::compacted(const Compaction& compaction) {
    run_.addEvent("reagent.context.compacted", {{"reagent.compaction.tokens_before", compaction.tokensBefore},
                                                {"reagent.compaction.tokens_after", compaction.tokensAfter},
                                                {"reagent.compaction.strategies", compaction.strategies}});
}

void RunTrace::resumedWith(const std::vector<ApprovalDecision>& decisions) {
    for (const ApprovalDecision& decision : decisions) {
        if (decision.approved) {
            continue;
        }
        std::vector<telemetry::Attribute> attributes{{"gen_ai.tool.call.id", decision.callId}};
        if (content_ && !decision.reason.empty()) {
            attributes.push_back({"reagent.approval.reason", decision.reason});  // a person's words
        }
        run_.addEvent("reagent.approval.denied", std::move(attributes));
    }
}

void RunTrace::finished(const RunResult& result) {
    const TerminatedBy how = result.terminatedBy;
    const bool paused = how == TerminatedBy::external_tool_calls || how == TerminatedBy::approval_required;
    const bool failed = !paused && errorCode(how);
    if (metrics_) {
        if (chatStarted_) {
            recordDuration("chat", secondsSince(*chatStarted_), {}, {}, toString(how));
        }
        recordDuration("invoke_agent", secondsSince(runStarted_), {}, {},
                       failed ? std::string_view(toString(how)) : std::string_view());
    }
    chatStarted_.reset();
    if (chat_.recording()) {
        // The run ended during this model call (cancelled, out of time): the call ends with it.
        setError(chat_, toString(result.terminatedBy), "the run ended during the model call");
    }
    chat_.end();
    tools_.clear();  // ends the spans of a batch the run was cancelled in
    if (!run_.recording()) {
        return;
    }
    setUsage(run_, result.usage, conventions_);
    run_.setAttribute("reagent.terminated_by", std::string(toString(how)));
    if (failed) {
        setError(run_, toString(how), result.errorMessage);
    }
    if (content_ && isSuccess(how)) {
        nlohmann::json out = nlohmann::json::array();
        out.push_back({{"role", "assistant"},
                       {"parts", nlohmann::json::array({{{"type", "text"}, {"content", result.output}}})}});
        run_.setAttribute("gen_ai.output.messages", jsonText(out));
    }
    run_.end();
}

}  // namespace reagent::agent::detail
