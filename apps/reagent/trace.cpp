#include "trace.hpp"

#include <variant>

#include "output.hpp"

namespace reagent::cli {

std::string oneLine(std::string text, std::size_t limit) {
    for (char& c : text) {
        c = c == '\n' || c == '\r' || c == '\t' ? ' ' : c;
    }
    if (text.size() <= limit) {
        return text;
    }
    // Back off to a UTF-8 character boundary so the cut never splits a code point.
    std::size_t cut = limit;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0U) == 0x80U) {
        --cut;
    }
    return text.substr(0, cut) + "...";
}

void TracePrinter::operator()(const agent::AgentEvent& event) {
    std::visit([this](const auto& e) { print(e); }, event);
    out_->flush();
}

void TracePrinter::print(const agent::RunStarted& event) {
    *out_ << "run: \"" << oneLine(event.prompt) << "\"\n";
}

void TracePrinter::print(const agent::ModelResponded& event) {
    if (streamed_) {
        // The text is already on screen, token by token, after the turn's label.
        ++turns_;
        streamed_ = false;
    } else {
        *out_ << "model turn " << ++turns_ << ":";
        if (!event.text.empty()) {
            *out_ << " " << oneLine(event.text);
        }
    }
    if (!event.toolCalls.empty()) {
        *out_ << " [" << event.toolCalls.size()
              << (event.toolCalls.size() == 1 ? " tool call:" : " tool calls:");
        for (const auto& call : event.toolCalls) {
            *out_ << " " << call.name;
        }
        *out_ << "]";
    }
    *out_ << "\n";
}

void TracePrinter::print(const tools::ToolCalling& event) {
    started_[event.callId] = std::chrono::steady_clock::now();
    *out_ << "  \u2192 " << event.tool << ": "
          << (event.action.empty() ? oneLine(event.input.dump()) : oneLine(event.action)) << "\n";
}

void TracePrinter::print(const tools::ToolCalled& event) {
    started_.erase(event.record.id);
    const std::string output = event.record.outcome ? *event.record.outcome : std::string{};
    *out_ << "  \u2713 " << event.record.name << " (" << formatDuration(event.record.duration)
          << "): " << oneLine(output) << "\n";
}

void TracePrinter::print(const tools::ToolFailed& event) {
    *out_ << "  \u2717 " << event.tool;
    // A call refused before it ran (unknown tool, invalid arguments) has no start and no duration.
    if (const auto it = started_.find(event.callId); it != started_.end()) {
        const auto elapsed = std::chrono::steady_clock::now() - it->second;
        *out_ << " (" << formatDuration(std::chrono::duration_cast<std::chrono::microseconds>(elapsed))
              << ")";
        started_.erase(it);
    }
    *out_ << ": " << oneLine(event.error.describe(), 160) << "\n";
}

void TracePrinter::print(const agent::TextDelta& event) {
    if (!streamed_) {
        *out_ << "model turn " << turns_ + 1 << ": ";
        streamed_ = true;
    }
    // Printed as it arrives, so the user sees the answer being written (model text: shown, never run).
    *out_ << event.text;
}

void TracePrinter::print(const agent::ToolCallDelta&) {
    // Calls are shown when they run (ToolCalling), with their complete arguments.
}

void TracePrinter::print(const agent::ToolResultCompressed& event) {
    *out_ << "    " << event.tool << ": ";
    if (!event.transform.empty()) {
        *out_ << "_transform " << oneLine(event.transform, 60)
              << (event.transformError.empty() ? "" : " failed (" + oneLine(event.transformError, 100) + ")")
              << "; ";
    }
    *out_ << event.originalChars << " characters, the model reads " << event.shownChars;
    if (!event.key.empty()) {
        *out_ << "; full result stored as " << event.key;
    }
    *out_ << "\n";
}

void TracePrinter::print(const agent::MemoryWarning& event) {
    *out_ << "  ! memory: " << oneLine(event.message, 200) << "\n";
}

void TracePrinter::print(const agent::RunFinished&) {
    // The caller prints the summary, with the wall time it measured.
}

}  // namespace reagent::cli
