#include "chat_command.hpp"

#include <unistd.h>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/signal_set.hpp>
#include <csignal>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "cli_telemetry.hpp"
#include "output.hpp"
#include "reagent/agent/conversation.hpp"
#include "trace.hpp"

namespace reagent::cli {

namespace asio = boost::asio;

namespace {

// `/context`: the last request's prompt against the window.
std::string contextLine(const agent::ContextUse& context, std::size_t messages) {
    std::string line = "(context: " + std::to_string(context.promptTokens) + " tokens in the last request";
    if (context.window) {
        line += ", of a window of " + std::to_string(*context.window) + " (" +
                std::to_string(context.promptTokens * 100 / *context.window) + "%)";
    } else {
        line += "; the model's window is not known: give it with --context-window";
    }
    line += "; " + std::to_string(messages) + " messages in the conversation";
    if (!context.compactions.empty()) {
        const agent::Compaction& last = context.compactions.back();
        line += "; compacted " + std::to_string(context.compactions.size()) +
                (context.compactions.size() == 1 ? " time" : " times") + ", last " +
                std::to_string(last.tokensBefore) + " \u2192 " + std::to_string(last.tokensAfter) + " tokens";
    }
    return line + ")";
}

// `/compact`: what was done.
std::string compactedLine(const agent::Compaction& compaction) {
    std::string line = "(compacted: " + std::to_string(compaction.tokensBefore) + " \u2192 " +
                       std::to_string(compaction.tokensAfter) + " tokens, " +
                       std::to_string(compaction.messagesBefore) + " \u2192 " +
                       std::to_string(compaction.messagesAfter) + " messages";
    if (compaction.strategies.empty()) {
        line += "; nothing could be shortened";
    }
    for (std::size_t i = 0; i < compaction.strategies.size(); ++i) {
        line += (i == 0 ? " by " : ", ") + compaction.strategies[i];
    }
    for (const std::string& note : compaction.notes) {
        line += "; " + note;
    }
    return line + ")";
}

Task<std::optional<expected<agent::Compaction, agent::AgentError>>> compactNow(agent::Conversation& chat) {
    auto compacting = chat.compact();
    co_return co_await std::move(compacting);
}

// Runs `task` on `io` to its end; Ctrl-C (SIGINT) cancels it, a second one quits the process.
template <class T>
std::optional<T> runInteractively(asio::io_context& io, Task<T> task,
                                  const std::shared_ptr<telemetry::Telemetry>& telemetry = nullptr) {
    asio::cancellation_signal cancel;
    asio::signal_set signals(io, SIGINT, SIGTERM);
    int interrupts = 0;
    std::function<void(const boost::system::error_code&, int)> onSignal =
        [&](const boost::system::error_code& ec, int) {
            if (ec) {
                return;
            }
            if (++interrupts > 1) {
                std::_Exit(130);  // 128 + SIGINT, as a shell reports it
            }
            std::cerr << "\nreagent: cancelling this turn (Ctrl-C again to quit)\n";
            cancel.emit(asio::cancellation_type::terminal);
            signals.async_wait(onSignal);
        };
    signals.async_wait(onSignal);
    std::optional<T> out;
    asio::co_spawn(io, std::move(task),
                   asio::bind_cancellation_slot(cancel.slot(), [&](std::exception_ptr error, T value) {
                       if (!error) {
                           out = std::move(value);
                       }
                       signals.cancel();
                       hurryTelemetry(io, telemetry);  // the turn's spans go now, not after the delay
                   }));
    io.restart();
    io.run();
    return out;
}

// In an optional: co_spawn needs a result it can default-construct, which an Agent is not.
Task<std::optional<expected<agent::Agent, agent::AgentError>>> build(reagent::AgentBuilder builder) {
    auto building = builder.buildAsync();
    co_return co_await std::move(building);
}

Task<bool> dispose(agent::Agent agent) {
    co_await agent.dispose();
    co_return true;
}

}  // namespace

int chatCommand(asio::io_context& io, const ChatOptions& options) {
    auto provider = chooseProvider(options.run);
    if (!provider) {
        std::cerr << "reagent: " << provider.error() << "\n";
        return kExitUsage;
    }
    auto builder = agentBuilder(options.run, std::move(*provider));
    if (!builder) {
        std::cerr << "reagent: " << builder.error() << "\n";
        return kExitUsage;
    }
    if (!options.system.empty()) {
        builder->withSystemPrompt(options.system);
    }
    // The answer streams to stdout as it comes; the trace (tools, retries) goes to stderr.
    auto streamed = std::make_shared<bool>(false);
    auto printer = options.run.quiet ? nullptr : std::make_shared<TracePrinter>(std::cerr);
    builder->withEventHandler([streamed, printer](const agent::AgentEvent& event) {
        if (const auto* delta = std::get_if<agent::TextDelta>(&event)) {
            std::cout << delta->text << std::flush;
            *streamed = true;
        } else if (printer && !std::holds_alternative<agent::ModelResponded>(event)) {
            (*printer)(event);
        }
    });
    auto built = runInteractively(io, build(std::move(*builder)));
    if (!built || !*built || !**built) {
        std::cerr << "reagent: "
                  << (built && *built ? (**built).error().message : std::string("cancelled while starting"))
                  << "\n";
        return kExitUsage;
    }
    agent::Agent agentHandle = std::move(***built);
    agent::Conversation chat(agentHandle);
    const bool terminal = ::isatty(STDIN_FILENO) != 0;
    if (terminal) {
        std::cerr
            << "reagent chat: one message per line; /attach FILE adds an image or PDF to the next one, "
               "/context shows how full the context window is, /compact shortens the conversation, /reset "
               "forgets it, /exit ends it\n";
    }
    int status = kExitSuccess;
    std::string line;
    std::vector<llm::Attachment> attached;  // by /attach, for the next message
    agent::ContextUse lastContext;          // the last turn's, for /context
    lastContext.window = agentHandle.contextWindow();
    for (;;) {
        if (terminal) {
            std::cerr << "> " << std::flush;
        }
        if (!std::getline(std::cin, line) || line == "/exit" || line == "/quit") {
            break;
        }
        if (line == "/context") {
            lastContext.compactions = chat.context().compactions;
            std::cerr << contextLine(lastContext, chat.messages().size()) << "\n";
            continue;
        }
        if (line == "/compact") {
            auto compacted = runInteractively(io, compactNow(chat));
            if (!compacted || !*compacted || !**compacted) {
                std::cerr << "reagent: /compact: "
                          << (compacted && *compacted ? (**compacted).error().message
                                                      : std::string("cancelled"))
                          << "\n";
                continue;
            }
            lastContext.promptTokens = (**compacted)->tokensAfter;
            std::cerr << terminalSafe(compactedLine(***compacted)) << "\n";
            continue;
        }
        if (line == "/reset") {
            chat.reset();
            std::cerr << "(the conversation was reset)\n";
            continue;
        }
        if (line.rfind("/attach", 0) == 0 && (line.size() == 7 || line[7] == ' ')) {
            const std::size_t start = line.find_first_not_of(' ', 7);
            if (start == std::string::npos) {
                std::cerr << "reagent: /attach needs a file: /attach FILE\n";
                continue;
            }
            auto attachment = llm::Attachment::fromFile(line.substr(start));
            if (!attachment) {
                std::cerr << "reagent: /attach: " << attachment.error().message << "\n";
                continue;
            }
            std::cerr << "(" << attachment->name << ", " << attachment->mediaType << ", "
                      << attachment->size() << " bytes, goes with your next message)\n";
            attached.push_back(std::move(*attachment));
            continue;
        }
        if (line.find_first_not_of(" \t") == std::string::npos) {
            continue;
        }
        *streamed = false;
        auto turn = runInteractively(io, chat.send(line, std::exchange(attached, {})), options.run.telemetry);
        if (!turn || !*turn) {
            std::cerr << "reagent: "
                      << (turn ? (*turn).error().message : std::string("the turn was cancelled")) << "\n";
            status = kExitRunFailed;
            continue;
        }
        const agent::RunResult& result = **turn;
        lastContext = result.context;
        if (!result.success()) {
            std::cerr << "reagent: " << result.errorMessage << " (this turn is not kept)\n";
            status = kExitRunFailed;
            continue;
        }
        if (!*streamed || result.terminatedBy == agent::TerminatedBy::final_answer) {
            // A final-answer's output arrives as a tool argument, not as streamed text.
            std::cout << (*streamed ? "\n" : "") << result.output;
        }
        std::cout << "\n" << std::flush;
        status = kExitSuccess;
    }
    (void)runInteractively(io, dispose(agentHandle));
    return status;
}

}  // namespace reagent::cli
