#include "trace.hpp"

#include <variant>

#include "output.hpp"
#include "reagent/core/detail/utf8.hpp"
#include "terminal_text.hpp"

namespace reagent::cli {

std::string oneLine(std::string_view raw, std::size_t limit) {
    // Untrusted text (model, tools, servers): escape sequences are made visible, never sent raw.
    std::string text = terminalSafe(raw, false);
    if (text.size() <= limit) {
        return text;
    }
    return std::string(detail::utf8Prefix(text, limit)) + "...";
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
        *out_ << streamedText_.flush();
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
            *out_ << " " << oneLine(call.name, 64);
        }
        *out_ << "]";
    }
    *out_ << "\n";
}

void TracePrinter::print(const tools::ToolCalling& event) {
    started_[nest_ + event.callId] = std::chrono::steady_clock::now();
    *out_ << "  " << nest_ << "\u2192 " << oneLine(event.tool, 64) << ": "
          << (event.action.empty() ? oneLine(dumpJson(event.input)) : oneLine(event.action)) << "\n";
}

void TracePrinter::print(const tools::ToolCalled& event) {
    started_.erase(nest_ + event.record.id);
    const std::string output = event.record.outcome ? *event.record.outcome : std::string{};
    *out_ << "  " << nest_ << "\u2713 " << oneLine(event.record.name, 64) << " ("
          << formatDuration(event.record.duration) << "): " << oneLine(output) << "\n";
}

void TracePrinter::print(const tools::ToolFailed& event) {
    *out_ << "  " << nest_ << "\u2717 " << oneLine(event.tool, 64);
    // A call refused before it ran (unknown tool, invalid arguments) has no start and no duration.
    if (const auto it = started_.find(nest_ + event.callId); it != started_.end()) {
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
    *out_ << streamedText_.feed(event.text);
}

void TracePrinter::print(const agent::ToolCallDelta&) {
    // Calls are shown when they run (ToolCalling), with their complete arguments.
}

void TracePrinter::print(const agent::ToolResultCompressed& event) {
    *out_ << "    " << oneLine(event.tool, 64) << ": ";
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

void TracePrinter::print(const agent::ModelRetrying& event) {
    // A turn cut off while streaming gets its own line first (the retry starts the turn again).
    if (streamed_) {
        *out_ << streamedText_.flush() << "\n";
        streamed_ = false;
    }
    const auto& notice = event.notice;
    *out_ << "  \u21bb model call failed (" << oneLine(notice.error.describe(), 160) << "); retrying in "
          << formatDuration(notice.wait) << (notice.serverAsked ? " as the server asked" : "") << " (attempt "
          << notice.attempt + 1 << " of " << notice.maxAttempts << ")\n";
}

void TracePrinter::print(const agent::ModelFellBack& event) {
    if (streamed_) {
        *out_ << streamedText_.flush() << "\n";
        streamed_ = false;
    }
    *out_ << "  \u21aa " << oneLine(event.from, 80) << " failed (" << oneLine(event.error.describe(), 160)
          << "); asking " << oneLine(event.to, 80) << "\n";
}

void TracePrinter::print(const agent::ModelThrottled& event) {
    *out_ << "  \u23f8 waiting ";
    if (event.notice.untilRelease) {
        *out_ << "for a request in flight to end";
    } else {
        *out_ << formatDuration(event.notice.wait);
    }
    *out_ << " for the provider's rate limit (" << oneLine(event.notice.reason, 120) << ")\n";
}

void TracePrinter::print(const agent::RunFinished&) {
    // A turn cut off while streaming (a failed or cancelled call) left its text without an end of line;
    // end it, so the error the caller prints next starts a line of its own.
    if (streamed_) {
        *out_ << streamedText_.flush() << "\n";
        streamed_ = false;
    }
    // The caller prints the summary, with the wall time it measured.
}

void TracePrinter::print(const tools::ToolProgressed& event) {
    *out_ << "  " << nest_ << "progress " << oneLine(event.tool) << ": " << event.progress.progress;
    if (event.progress.total) {
        *out_ << "/" << *event.progress.total;
    }
    if (!event.progress.message.empty()) {
        *out_ << " " << oneLine(event.progress.message);
    }
    *out_ << "\n";
}

void TracePrinter::print(const agent::OutputRejected& event) {
    *out_ << "  " << nest_ << "\u21bb answer does not match the output schema; asking again ("
          << event.attempt
          << "): " << oneLine(event.problems.empty() ? std::string() : event.problems.front(), 200) << "\n";
}

void TracePrinter::print(const agent::ContextCompacted& event) {
    const agent::Compaction& compaction = event.compaction;
    *out_ << "  " << nest_ << "✂ context compacted (" << agent::toString(compaction.reason)
          << "): " << compaction.tokensBefore << " → " << compaction.tokensAfter << " tokens, "
          << compaction.messagesBefore << " → " << compaction.messagesAfter << " messages";
    if (!compaction.strategies.empty()) {
        std::string strategies;
        for (const std::string& name : compaction.strategies) {
            strategies += (strategies.empty() ? "" : ", ") + name;
        }
        *out_ << " by " << oneLine(strategies, 120);
    }
    *out_ << "\n";
    for (const std::string& note : compaction.notes) {
        *out_ << "  " << nest_ << "  " << oneLine(note, 200) << "\n";
    }
}

void TracePrinter::print(const agent::ServerLogged& event) {
    const std::string data = event.data.is_string() ? event.data.get<std::string>() : event.data.dump();
    *out_ << "  mcp " << oneLine(event.server) << " [" << oneLine(event.level) << "]: " << oneLine(data)
          << "\n";
}

void TracePrinter::print(const agent::SubAgentEvent& event) {
    // A sub-agent's run, indented under the call that started it: its tool calls and progress as the
    // parent's are printed, its model turns and its end on a line each (its streamed text is left out: its
    // answer comes back as the call's result). A deeper sub-agent extends the indent.
    const std::string outer = nest_;
    nest_ += (outer.empty() ? "  " : "") + oneLine(event.tool, 64) + " \u203a ";
    const agent::AgentEvent& inner = event.inner->event;
    if (const auto* responded = std::get_if<agent::ModelResponded>(&inner)) {
        *out_ << "  " << nest_ << "model turn " << responded->iteration + 1 << ":";
        if (!responded->text.empty()) {
            *out_ << " " << oneLine(responded->text);
        }
        *out_ << "\n";
    } else if (const auto* finished = std::get_if<agent::RunFinished>(&inner)) {
        *out_ << "  " << nest_ << "finished: " << agent::toString(finished->terminatedBy) << " after "
              << finished->iterations << (finished->iterations == 1 ? " model call" : " model calls") << "\n";
    } else if (std::holds_alternative<tools::ToolCalling>(inner) ||
               std::holds_alternative<tools::ToolCalled>(inner) ||
               std::holds_alternative<tools::ToolFailed>(inner) ||
               std::holds_alternative<tools::ToolProgressed>(inner) ||
               std::holds_alternative<agent::SubAgentEvent>(inner)) {
        std::visit([this](const auto& e) { print(e); }, inner);
    }
    nest_ = outer;
}

}  // namespace reagent::cli
