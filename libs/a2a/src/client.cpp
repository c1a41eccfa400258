// The A2A client: the card fetch and the JSON-RPC calls over reagent::http, one coroutine per call.

#include "reagent/a2a/client.hpp"

#include <atomic>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/this_coro.hpp>

#include "reagent/core/cancellation.hpp"
#include "reagent/core/untrusted_json.hpp"
#include "reagent/http/http_client.hpp"
#include "reagent/http/sse_parser.hpp"
#include "reagent/http/trace_headers.hpp"

namespace reagent::a2a {

namespace asio = boost::asio;
using nlohmann::json;

struct Client::State {
    http::HttpClient http;
    AgentCard card;
    ClientOptions options;
    ProtocolVersion version = ProtocolVersion::v1_0;
    std::string endpoint;
    std::atomic<std::int64_t> nextId{1};
};

namespace {

[[nodiscard]] http::HttpClientConfig httpConfig(const ClientOptions& options) {
    http::HttpClientConfig config;
    config.connectTimeout = options.connectTimeout;
    config.requestTimeout = options.timeout;
    config.readTimeout = options.timeout;
    return config;
}

[[nodiscard]] A2aError fromHttp(const http::HttpError& error, const std::string& what) {
    using http::HttpErrc;
    A2aErrc code = A2aErrc::protocol_error;
    switch (error.code) {
        case HttpErrc::resolve_failed:
        case HttpErrc::connect_failed:
        case HttpErrc::connection_closed:
        case HttpErrc::proxy_failed:
        case HttpErrc::tls_failed:
            code = A2aErrc::unreachable;
            break;
        case HttpErrc::timeout:
            code = A2aErrc::timeout;
            break;
        case HttpErrc::cancelled:
            code = A2aErrc::cancelled;
            break;
        default:
            break;
    }
    return A2aError{code, what + ": " + error.message};
}

[[nodiscard]] http::HttpRequest postRequest(const Client::State& state, std::string body, bool streaming,
                                            const SpanContext& trace = {}) {
    http::HttpRequest request;
    request.method = "POST";
    request.url = state.endpoint;
    request.headers = state.options.headers;
    http::setTraceContext(request.headers, trace);  // the remote agent continues the caller's trace
    request.headers.set("Content-Type", "application/json");
    request.headers.set("Accept", streaming ? "text/event-stream" : "application/json");
    request.headers.set("A2A-Version", std::string(toString(state.version)));
    request.body = std::move(body);
    request.timeout = state.options.timeout;
    return request;
}

[[nodiscard]] std::string describeCall(const Client::State& state, Method method) {
    return std::string(methodName(method, state.version)) + " to " + state.endpoint;
}

// One non-streaming call: the `result` member of the response.
Task<expected<json, A2aError>> call(std::shared_ptr<Client::State> state, Method method, json params,
                                    SpanContext trace = {}) {
    std::string body = makeRequest(method, state->version, std::move(params), state->nextId++);
    auto request = postRequest(*state, std::move(body), false, trace);
    auto pending = state->http.send(std::move(request));
    auto response = co_await std::move(pending);
    if (!response) {
        co_return fail(fromHttp(response.error(), describeCall(*state, method)));
    }
    auto result = parseResponse(response->body);
    if (!result && !response->ok() && result.error().code == A2aErrc::protocol_error) {
        co_return fail(A2aError{A2aErrc::protocol_error,
                                describeCall(*state, method) + ": HTTP " + std::to_string(response->status)});
    }
    co_return result;
}

// Sent for a stream that was cancelled or timed out once its task id was known; best effort.
Task<void> cancelInBackground(std::shared_ptr<Client::State> state, std::string taskId) {
    std::string body = makeRequest(Method::cancel, state->version, taskIdParams(taskId), state->nextId++);
    auto request = postRequest(*state, std::move(body), false);
    request.timeout = state->options.cancelTimeout;
    auto pending = state->http.send(std::move(request));
    (void)co_await std::move(pending);
}

// Folds a stream event into the task the caller gets at the end.
void foldEvent(AgentTask& task, const StreamEvent& event) {
    if (const auto* whole = std::get_if<AgentTask>(&event)) {
        task = *whole;
    } else if (const auto* message = std::get_if<Message>(&event)) {
        task.status.state = TaskState::completed;
        task.status.message = *message;
        if (task.id.empty()) {
            task.id = message->taskId;
        }
    } else if (const auto* status = std::get_if<StatusUpdate>(&event)) {
        task.id = status->taskId;
        task.contextId = status->contextId;
        task.status = status->status;
    } else if (const auto* update = std::get_if<ArtifactUpdate>(&event)) {
        task.id = update->taskId;
        auto& artifacts = task.artifacts;
        auto it = std::find_if(artifacts.begin(), artifacts.end(), [&](const Artifact& artifact) {
            return artifact.artifactId == update->artifact.artifactId;
        });
        if (it == artifacts.end()) {
            artifacts.push_back(update->artifact);
        } else if (update->append) {
            it->parts.insert(it->parts.end(), update->artifact.parts.begin(), update->artifact.parts.end());
        } else {
            *it = update->artifact;
        }
    }
}

[[nodiscard]] bool endsStream(const StreamEvent& event) {
    if (std::holds_alternative<Message>(event)) {
        return true;
    }
    if (const auto* task = std::get_if<AgentTask>(&event)) {
        return isTerminal(task->status.state);
    }
    if (const auto* status = std::get_if<StatusUpdate>(&event)) {
        return status->final || isTerminal(status->status.state);
    }
    return false;
}

Task<expected<AgentTask, A2aError>> streamBody(std::shared_ptr<Client::State> state, Message message,
                                               Client::EventHandler onEvent,
                                               std::shared_ptr<std::string> taskId, SpanContext trace) {
    std::string body =
        makeRequest(Method::stream, state->version, sendParams(message, state->version), state->nextId++);
    auto request = postRequest(*state, std::move(body), true, trace);
    auto opening = state->http.stream(std::move(request));
    auto opened = co_await std::move(opening);
    const std::string what = describeCall(*state, Method::stream);
    if (!opened) {
        co_return fail(fromHttp(opened.error(), what));
    }
    const auto type = opened->head().headers.find("Content-Type");
    if (!type || type->find("text/event-stream") == std::string_view::npos) {
        // An error answered as a plain JSON-RPC response.
        auto rest = co_await opened->readAll();
        if (!rest) {
            co_return fail(fromHttp(rest.error(), what));
        }
        auto result = parseResponse(*rest);
        if (!result) {
            co_return fail(result.error());
        }
        co_return fail(A2aError{A2aErrc::protocol_error, what + ": the answer is not an event stream (HTTP " +
                                                             std::to_string(opened->head().status) + ")"});
    }
    http::SseParser parser;
    AgentTask task;
    for (;;) {
        auto chunk = co_await opened->next();
        if (!chunk) {
            co_return fail(fromHttp(chunk.error(), what));
        }
        if (!*chunk) {
            break;
        }
        for (const auto& sse : parser.feed(**chunk)) {
            auto result = parseResponse(sse.data);
            if (!result) {
                co_return fail(result.error());
            }
            auto event = parseStreamEvent(*result);
            if (!event) {
                co_return fail(A2aError{A2aErrc::protocol_error, what + ": " + event.error().message});
            }
            foldEvent(task, *event);
            *taskId = task.id;
            if (onEvent) {
                onEvent(*event);
            }
            if (endsStream(*event)) {
                co_return task;
            }
        }
    }
    if (isTerminal(task.status.state)) {
        co_return task;
    }
    co_return fail(A2aError{A2aErrc::protocol_error, what + ": the stream ended with the task " +
                                                         std::string(toString(task.status.state))});
}

// A method on one task whose result is that task (tasks/get, tasks/cancel).
Task<expected<AgentTask, A2aError>> callOnTask(std::shared_ptr<Client::State> state, Method method,
                                               std::string taskId) {
    auto pending = call(std::move(state), method, taskIdParams(taskId));
    auto result = co_await std::move(pending);
    if (!result) {
        co_return fail(result.error());
    }
    co_return parseTask(*result);
}

}  // namespace

Client::Client(std::shared_ptr<State> state) : state_(std::move(state)) {}

Client::Client(AgentCard card, ClientOptions options) {
    auto state = std::make_shared<State>();
    state->http = http::HttpClient(httpConfig(options));
    const AgentInterface* chosen = &card.preferred();
    if (options.version) {
        for (const auto& interface : card.interfaces) {
            if (interface.version == *options.version) {
                chosen = &interface;
                break;
            }
        }
    }
    state->version = options.version.value_or(chosen->version);
    state->endpoint = chosen->url;
    state->card = std::move(card);
    state->options = std::move(options);
    state_ = std::move(state);
}

Task<expected<Client, A2aError>> Client::connect(std::string baseUrl, ClientOptions options) {
    http::HttpClient http(httpConfig(options));
    http::HttpRequest request;
    const bool direct = baseUrl.size() > 5 && baseUrl.compare(baseUrl.size() - 5, 5, ".json") == 0;
    while (!direct && !baseUrl.empty() && baseUrl.back() == '/') {
        baseUrl.pop_back();
    }
    request.url = direct ? baseUrl : baseUrl + std::string(kAgentCardPath);
    request.headers = options.headers;
    request.headers.set("Accept", "application/json");
    // Servers with a 0.3 compatibility layer (the JS SDK) shape the card by this header (absent: 0.3).
    request.headers.set("A2A-Version",
                        std::string(toString(options.version.value_or(ProtocolVersion::v1_0))));
    request.timeout = options.timeout;
    const std::string what = "fetching the Agent Card " + request.url;
    auto pending = http.send(std::move(request));
    auto response = co_await std::move(pending);
    if (!response) {
        co_return fail(fromHttp(response.error(), what));
    }
    if (!response->ok()) {
        co_return fail(
            A2aError{A2aErrc::malformed_card, what + ": HTTP " + std::to_string(response->status)});
    }
    const auto parsed = parseUntrustedJson(response->body);
    if (!parsed) {
        co_return fail(A2aError{A2aErrc::malformed_card,
                                what + ": the body is not JSON (" + parsed.error().message + ")"});
    }
    auto card = parseAgentCard(*parsed);
    if (!card) {
        co_return fail(A2aError{A2aErrc::malformed_card, what + ": " + card.error().message});
    }
    co_return Client(std::move(*card), std::move(options));
}

const AgentCard& Client::card() const noexcept {
    return state_->card;
}
ProtocolVersion Client::version() const noexcept {
    return state_->version;
}
const std::string& Client::endpoint() const noexcept {
    return state_->endpoint;
}

Task<expected<SendResult, A2aError>> Client::send(Message message, SpanContext trace) const {
    auto state = state_;
    auto pending = call(state, Method::send, sendParams(message, state->version), std::move(trace));
    auto result = co_await std::move(pending);
    if (!result) {
        co_return fail(result.error());
    }
    auto parsed = parseSendResult(*result);
    if (!parsed) {
        co_return fail(A2aError{A2aErrc::protocol_error,
                                describeCall(*state, Method::send) + ": " + parsed.error().message});
    }
    co_return std::move(*parsed);
}

Task<expected<AgentTask, A2aError>> Client::stream(Message message, EventHandler onEvent,
                                                   SpanContext trace) const {
    auto state = state_;
    auto taskId = std::make_shared<std::string>();
    auto pending = streamBody(state, std::move(message), std::move(onEvent), taskId, std::move(trace));
    auto result = co_await std::move(pending);
    if (!result && (result.error().code == A2aErrc::cancelled || result.error().code == A2aErrc::timeout) &&
        !taskId->empty()) {
        // Stop the remote work too; the caller does not wait for it.
        auto ex = co_await asio::this_coro::executor;
        asio::co_spawn(ex, cancelInBackground(state, *taskId), asio::detached);
    }
    co_return result;
}

Task<expected<AgentTask, A2aError>> Client::getTask(std::string taskId) const {
    return callOnTask(state_, Method::get, std::move(taskId));
}

Task<expected<AgentTask, A2aError>> Client::cancelTask(std::string taskId) const {
    return callOnTask(state_, Method::cancel, std::move(taskId));
}

expected<std::string, A2aError> answerText(const SendResult& result) {
    if (const auto* message = std::get_if<Message>(&result)) {
        return message->text();
    }
    const auto& task = std::get<AgentTask>(result);
    const std::string said = task.status.message ? task.status.message->text() : std::string();
    switch (task.status.state) {
        case TaskState::completed:
            return task.text();
        case TaskState::failed:
        case TaskState::rejected:
            return fail(A2aError{A2aErrc::task_failed, "the remote task " + task.id + " " +
                                                           std::string(toString(task.status.state)) +
                                                           (said.empty() ? "" : ": " + said)});
        case TaskState::canceled:
            return fail(A2aError{A2aErrc::task_canceled, "the remote task " + task.id + " was canceled"});
        default:
            return fail(A2aError{A2aErrc::protocol_error, "the remote task " + task.id +
                                                              " stopped in state " +
                                                              std::string(toString(task.status.state)) +
                                                              (said.empty() ? "" : ": " + said)});
    }
}

}  // namespace reagent::a2a
