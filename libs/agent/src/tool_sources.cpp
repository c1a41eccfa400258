// The agent's side of the tool-source seam: the sink an open source registers through, and opening and
// closing the sources of one agent.

#include <algorithm>
#include <utility>

#include "agent_state.hpp"
#include "reagent/core/parallel.hpp"

namespace reagent::agent {

expected<void, tools::ToolError> SourceSink::add(tools::Tool tool) {
    auto state = state_.lock();
    if (!state) {
        return fail(tools::ToolError{tools::ToolErrc::cancelled, "the agent is gone"});
    }
    auto added = state->registry.add(std::move(tool));
    if (added) {
        state->config.toolsEnabled = true;
        state->toolsChanged();
    }
    return added;
}

bool SourceSink::remove(std::string_view name) {
    auto state = state_.lock();
    if (!state || !state->registry.remove(name)) {
        return false;
    }
    state->toolsChanged();
    return true;
}

void SourceSink::log(std::string level, std::string logger, nlohmann::json data) {
    if (auto state = state_.lock()) {
        state->emit(ServerLogged{source_, std::move(level), std::move(logger), std::move(data)});
    }
}

namespace {

// A free coroutine: the frame holds the state and the source while it opens.
Task<expected<void, tools::ToolError>> openOne(std::shared_ptr<Agent::State> state,
                                               std::shared_ptr<tools::ToolSource> source) {
    auto sink = std::make_shared<SourceSink>(state, source->name());
    auto opening = source->open(std::move(sink));
    co_return co_await std::move(opening);
}

}  // namespace

Task<expected<void, std::string>> openSources(std::shared_ptr<Agent::State> state) {
    std::vector<std::shared_ptr<tools::ToolSource>> opening;
    for (const auto& source : state->sources) {
        if (source->opens()) {
            opening.push_back(source);
        }
    }
    if (opening.empty()) {
        co_return expected<void, std::string>{};
    }
    auto open = [state](std::shared_ptr<tools::ToolSource>& source) { return openOne(state, source); };
    const std::size_t cap = std::max<std::size_t>(1, state->config.maxConcurrentOpens);
    auto results = co_await parallelMap(opening, cap, open);
    std::string message;
    for (std::size_t i = 0; i < results.size(); ++i) {
        std::string failure;
        if (!results[i]) {
            failure = "tool source '" + opening[i]->name() + "': " + results[i].error().message;
        } else if (!*results[i]) {
            failure = results[i]->error().message;
        }
        if (!failure.empty()) {
            message += (message.empty() ? "" : "; ") + failure;
        }
    }
    if (message.empty()) {
        co_return expected<void, std::string>{};
    }
    co_return unexpected(std::move(message));
}

Task<void> closeSources(std::shared_ptr<Agent::State> state) {
    for (auto it = state->sources.rbegin(); it != state->sources.rend(); ++it) {
        auto closing = (*it)->close();
        co_await std::move(closing);
    }
}

}  // namespace reagent::agent
