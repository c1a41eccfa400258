// A2A round trip over loopback: `message/send` (1.0 `SendMessage`) to a trivial echo agent, one request at
// a time, for each pairing of reagent's and the official JS SDK's (@a2a-js/sdk, tests/peers/a2a) client and
// server, all in the same run, printed with the ratios to the JS SDK pair. A plain program:
//   a2a_roundtrip_bench [round trips, default 2000]
// The servers run apart from the client measuring: reagent's on its own thread, the SDK's in Node 22.

#include <signal.h>

#include <algorithm>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <chrono>
#include <cstdio>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "reagent/a2a/client.hpp"
#include "reagent/a2a/server.hpp"

using namespace reagent;
using namespace reagent::a2a;
namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

namespace {

Task<expected<std::string, std::string>> echo(std::string prompt, ProgressSink) {
    co_return "echo: " + prompt;
}

struct Figure {
    double mean = 0;
    double median = 0;
};

// reagent's client: `count` sequential sends after 200 untimed ones.
Task<Figure> ourClient(std::string url, int count) {
    auto connecting = Client::connect(url);
    auto client = co_await std::move(connecting);
    if (!client) {
        std::fprintf(stderr, "a2a_roundtrip_bench: %s\n", client.error().describe().c_str());
        co_return Figure{};
    }
    std::vector<double> samples;
    for (int i = -200; i < count; ++i) {
        const auto t0 = Clock::now();
        auto sending = client->send(Message::userText("hello"));
        auto sent = co_await std::move(sending);
        if (!sent) {
            std::fprintf(stderr, "a2a_roundtrip_bench: %s\n", sent.error().describe().c_str());
            co_return Figure{};
        }
        if (i >= 0) {
            samples.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
        }
    }
    Figure figure;
    double sum = 0;
    for (const double s : samples) {
        sum += s;
    }
    figure.mean = sum / static_cast<double>(samples.size());
    std::nth_element(samples.begin(), samples.begin() + static_cast<long>(samples.size() / 2), samples.end());
    figure.median = samples[samples.size() / 2];
    co_return figure;
}

Figure runOurClient(const std::string& url, int count) {
    asio::io_context io;
    Figure figure;
    asio::co_spawn(io, ourClient(url, count), [&](std::exception_ptr, Figure f) { figure = f; });
    io.run();
    return figure;
}

std::string run(const std::string& command) {
    std::string out;
    if (FILE* pipe = ::popen(command.c_str(), "r")) {
        char buffer[4096];
        while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) {
            out += buffer;
        }
        ::pclose(pipe);
    }
    return out;
}

// The JS SDK client's mean round trip against `url` (it times `count` after 200 untimed).
double jsClient(const std::string& url, int count) {
    const std::string out = run("cd " REAGENT_A2A_PEERS " && " REAGENT_NODE " sdk_client.mjs " + url +
                                " send --count " + std::to_string(count));
    const auto at = out.find("\"roundTripUs\":");
    return at == std::string::npos ? 0 : std::stod(out.substr(at + 14));
}

}  // namespace

int main(int argc, char** argv) {
    const int count = argc > 1 ? std::max(1, std::atoi(argv[1])) : 2000;

    // reagent's server on its own thread.
    asio::io_context serverIo;
    AgentCard card;
    card.name = "bench-echo";
    auto server = Server::bind(serverIo.get_executor(), ServerConfig{}, card, echo);
    if (!server) {
        std::fprintf(stderr, "a2a_roundtrip_bench: %s\n", server.error().c_str());
        return 1;
    }
    asio::cancellation_signal stop;
    asio::co_spawn(serverIo, server->run(), asio::bind_cancellation_slot(stop.slot(), asio::detached));
    std::thread serverThread([&] { serverIo.run(); });

    // The JS SDK's echo agent.
    FILE* js = ::popen("cd " REAGENT_A2A_PEERS " && exec " REAGENT_NODE " echo_agent.mjs --no-stdin", "r");
    char line[128] = {};
    int jsPort = 0;
    int jsPid = 0;
    if (js == nullptr || std::fgets(line, sizeof line, js) == nullptr ||
        std::sscanf(line, "%d %d", &jsPort, &jsPid) != 2) {
        std::fprintf(stderr, "a2a_roundtrip_bench: the JS SDK echo agent did not start\n");
        return 1;
    }
    const std::string ours = server->baseUrl();
    const std::string theirs = "http://127.0.0.1:" + std::to_string(jsPort);

    const Figure oo = runOurClient(ours, count);
    const Figure oj = runOurClient(theirs, count);
    const double jj = jsClient(theirs, count);
    const double jo = jsClient(ours, count);

    ::kill(jsPid, SIGTERM);
    ::pclose(js);
    asio::post(serverIo, [&] { stop.emit(asio::cancellation_type::terminal); });
    serverThread.join();

    std::printf(
        "A2A message/send round trip over loopback, %d sequential calls (mean; median for reagent's "
        "client)\n",
        count);
    std::printf("  %-34s %8.1f us  (median %7.1f)  JS/this %.2fx\n", "reagent client -> reagent server",
                oo.mean, oo.median, jj / oo.mean);
    std::printf("  %-34s %8.1f us  (median %7.1f)  JS/this %.2fx\n", "reagent client -> JS SDK server",
                oj.mean, oj.median, jj / oj.mean);
    std::printf("  %-34s %8.1f us                    JS/this %.2fx\n", "JS SDK client -> reagent server", jo,
                jj / jo);
    std::printf("  %-34s %8.1f us                    (reference)\n", "JS SDK client -> JS SDK server", jj);
    return 0;
}
