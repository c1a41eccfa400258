#include "reagent/providers/reply_assembler.hpp"

#include <algorithm>
#include <utility>

#include "hash.hpp"
#include "json_access.hpp"
#include "reagent/providers/provider_http_error.hpp"

namespace reagent::providers {

namespace {

using llm::StreamDelta;

std::string syntheticId(std::size_t index, std::string_view wireName, const nlohmann::json& arguments) {
    std::string seed(wireName);
    seed += '\0';
    seed += arguments.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return "call_" + std::to_string(index) + "_" + detail::hex8(detail::fnv1a(seed));
}

bool isBlank(std::string_view text) {
    return std::all_of(text.begin(), text.end(),
                       [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; });
}

}  // namespace

ReplyAssembler::ReplyAssembler(std::string provider, ToolNameMap names)
    : provider_(std::move(provider)), names_(std::move(names)) {}

void ReplyAssembler::appendText(std::string_view text, std::vector<StreamDelta>& out) {
    if (text.empty()) {
        return;
    }
    text_ += text;
    StreamDelta delta;
    delta.kind = StreamDelta::Kind::text;
    delta.text = std::string(text);
    out.push_back(std::move(delta));
}

ReplyAssembler::Call* ReplyAssembler::find(std::int64_t key) noexcept {
    const auto found = std::find_if(calls_.begin(), calls_.end(),
                                    [key](const Call& call) { return call.keyed && call.key == key; });
    return found == calls_.end() ? nullptr : &*found;
}

bool ReplyAssembler::hasCall(std::int64_t key) const noexcept {
    return std::any_of(calls_.begin(), calls_.end(),
                       [key](const Call& call) { return call.keyed && call.key == key; });
}

bool ReplyAssembler::isAnswer(std::string_view wireName) const noexcept {
    const ToolNameMap::AnswerTool* answer = names_.answerTool();
    return answer != nullptr && !wireName.empty() && answer->wireName == wireName;
}

void ReplyAssembler::emitAnswerText(std::string_view text, std::vector<StreamDelta>& out) const {
    if (text.empty() || names_.answerTool()->wrapped) {
        return;  // a wrapped answer is only known whole
    }
    StreamDelta delta;
    delta.kind = StreamDelta::Kind::text;
    delta.text = std::string(text);
    out.push_back(std::move(delta));
}

void ReplyAssembler::emitStart(std::size_t index, std::vector<StreamDelta>& out) const {
    if (calls_[index].answer) {
        return;  // the answer streams as text
    }
    StreamDelta delta;
    delta.kind = StreamDelta::Kind::tool_call_start;
    delta.toolIndex = index;
    delta.toolCallId = calls_[index].id;
    delta.toolName = names_.toLocal(calls_[index].wireName);
    out.push_back(std::move(delta));
}

ReplyAssembler::Call& ReplyAssembler::open(std::int64_t key, std::string id, std::string wireName,
                                           std::vector<StreamDelta>& out) {
    Call call;
    call.key = key;
    call.keyed = true;
    call.id = std::move(id);
    call.answer = isAnswer(wireName);
    call.wireName = std::move(wireName);
    calls_.push_back(std::move(call));
    emitStart(calls_.size() - 1, out);
    return calls_.back();
}

void ReplyAssembler::openCall(std::int64_t key, std::string id, std::string wireName,
                              std::vector<StreamDelta>& out) {
    if (find(key) == nullptr) {
        open(key, std::move(id), std::move(wireName), out);
    }
}

void ReplyAssembler::completeCallHeader(std::int64_t key, std::string_view id, std::string_view wireName) {
    Call* call = find(key);
    if (call == nullptr) {
        return;
    }
    if (call->id.empty()) {
        call->id = std::string(id);
    }
    if (call->wireName.empty()) {
        call->wireName = std::string(wireName);
        call->answer = isAnswer(wireName);
    }
}

void ReplyAssembler::appendArguments(std::int64_t key, std::string_view fragment,
                                     std::vector<StreamDelta>& out) {
    Call* call = find(key);
    if (call == nullptr) {
        call = &open(key, {}, {}, out);
    }
    if (fragment.empty()) {
        return;
    }
    call->argumentsText += fragment;
    if (call->answer) {
        emitAnswerText(fragment, out);
        return;
    }
    StreamDelta delta;
    delta.kind = StreamDelta::Kind::tool_call_arguments;
    delta.toolIndex = static_cast<std::size_t>(call - calls_.data());
    delta.text = std::string(fragment);
    out.push_back(std::move(delta));
}

void ReplyAssembler::addCall(std::string id, std::string wireName, nlohmann::json arguments,
                             std::string signature, std::vector<StreamDelta>& out) {
    const std::size_t index = calls_.size();
    if (arguments.is_null()) {
        arguments = nlohmann::json::object();
    }
    Call call;
    call.id = id.empty() ? syntheticId(index, wireName, arguments) : std::move(id);
    call.wireName = std::move(wireName);
    call.argumentsText = arguments.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    call.arguments = std::move(arguments);
    call.parsed = true;
    call.signature = std::move(signature);
    call.answer = isAnswer(call.wireName);
    calls_.push_back(std::move(call));
    if (calls_.back().answer) {
        emitAnswerText(calls_.back().argumentsText, out);
        return;
    }
    emitStart(index, out);
    StreamDelta delta;
    delta.kind = StreamDelta::Kind::tool_call_arguments;
    delta.toolIndex = index;
    delta.text = calls_.back().argumentsText;
    out.push_back(std::move(delta));
}

void ReplyAssembler::addCallText(std::string id, std::string wireName, std::string argumentsText,
                                 std::vector<StreamDelta>& out) {
    const std::size_t index = calls_.size();
    Call call;
    call.id = std::move(id);
    call.answer = isAnswer(wireName);
    call.wireName = std::move(wireName);
    calls_.push_back(std::move(call));
    if (calls_.back().answer) {
        emitAnswerText(argumentsText, out);
        calls_.back().argumentsText = std::move(argumentsText);
        return;
    }
    emitStart(index, out);
    if (!argumentsText.empty()) {
        StreamDelta delta;
        delta.kind = StreamDelta::Kind::tool_call_arguments;
        delta.toolIndex = index;
        delta.text = argumentsText;
        out.push_back(std::move(delta));
    }
    calls_.back().argumentsText = std::move(argumentsText);
}

void ReplyAssembler::setStopReason(llm::StopReason reason) noexcept {
    stop_ = reason;
    stopKnown_ = true;
}

expected<llm::ModelReply, llm::ProviderError> ReplyAssembler::finish() const {
    llm::ModelReply reply;
    reply.text = text_;
    reply.usage = usage_;
    reply.model = model_;
    reply.id = id_;
    reply.stopReason = stop_;
    const auto answer =
        std::find_if(calls_.begin(), calls_.end(), [](const Call& call) { return call.answer; });
    if (answer != calls_.end()) {
        // The answer ends the turn: calls beside it are not run (the model gave its answer), and the
        // reply reads as the text answer it stands for, with no text written before it.
        reply.text = answerText(*answer);
        if (reply.stopReason == llm::StopReason::tool_use) {
            reply.stopReason = llm::StopReason::end_turn;
        }
        return reply;
    }
    for (std::size_t index = 0; index < calls_.size(); ++index) {
        const Call& call = calls_[index];
        llm::ToolCall out;
        out.name = names_.toLocal(call.wireName);
        if (call.wireName.empty()) {
            return fail(malformedResponse(provider_, "tool call #" + std::to_string(index + 1) + " (id '" +
                                                         call.id + "') has no tool name"));
        }
        if (call.parsed) {
            out.arguments = call.arguments;
        } else if (isBlank(call.argumentsText)) {
            out.arguments = nlohmann::json::object();  // a tool without parameters
        } else if (const detail::ParsedJson parsed(call.argumentsText); parsed) {
            out.arguments = detail::toNlohmann(*parsed);
        } else {
            // Still a call: the executor tells the model what is wrong, and the model can repair it.
            std::string problem = "arguments are not valid JSON: " + detail::jsonProblem(call.argumentsText);
            if (stop_ == llm::StopReason::max_tokens) {
                problem += "; the reply was cut by the token limit";
            }
            out.invalidArguments = llm::InvalidArguments{call.argumentsText, std::move(problem)};
        }
        out.id = call.id.empty() ? syntheticId(index, call.wireName, out.arguments) : call.id;
        out.signature = call.signature;
        reply.toolCalls.push_back(std::move(out));
    }
    if (!reply.toolCalls.empty() && reply.stopReason == llm::StopReason::end_turn) {
        reply.stopReason = llm::StopReason::tool_use;
    }
    return reply;
}

// `argumentsText` holds the input as it came, or as `addCall` wrote a whole one.
std::string ReplyAssembler::answerText(const Call& call) const {
    if (!names_.answerTool()->wrapped) {
        return call.argumentsText;
    }
    const nlohmann::json input =
        call.parsed ? call.arguments : nlohmann::json::parse(call.argumentsText, nullptr, false);
    if (input.is_object()) {
        if (const auto value = input.find("value"); value != input.end()) {
            return value->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        }
    }
    return call.argumentsText;  // not the form asked for: the run's validation says so and asks again
}

}  // namespace reagent::providers
