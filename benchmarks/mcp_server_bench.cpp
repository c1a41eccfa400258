// What reagent's MCP server costs per `tools/call`: sequential `tools/call echo {"message":"ping"}` round
// trips from one client (reagent's mcp::Client) to four servers, each a fresh process:
//
//   reagent stdio  this program re-run as `--serve-stdio`: mcp::Server + serveStdio, one echo tool;
//   sdk stdio      the official TypeScript SDK server (McpServer + StdioServerTransport,
//                  tests/peers/mcp/echo_server.mjs), the same tool;
//   reagent http   this program re-run as `--serve-http PORT`: serveHttp (event-stream replies);
//   sdk http       the SDK server with StreamableHTTPServerTransport (stateful, event-stream replies);
//
// and the same at MCP 2026-07-28 (the client pinned to it: no session, the envelope on every request):
//
//   reagent stdio 2026 / reagent http 2026  this program's server again;
//   sdk2 stdio 2026 / sdk2 http 2026        the official SDK v2 server (tests/peers/mcp/sdk2_server.mjs:
//                                           serveStdio, and createMcpHandler with stateless legacy).
//
// Each server gets the warm-up calls, then the timed calls, one at a time; a run takes the four in turn so
// that drift on this shared machine hits all of them alike; the summary is the median of the runs' medians,
// printed with the ratio SDK / reagent per transport and revision (above 1: reagent's server is faster),
// and reagent's 2026 call against its 2025 one (at most 1: a stateless call costs no more).
//
//   mcp_server_bench [--runs N=3] [--warmup N=200] [--calls N=2000] [--smoke] [--only NAME,NAME...]
//
// --only: the servers named, as the table names them ("reagent stdio,reagent stdio 2026"), e.g. for a
// profiler; the ratios need both of their servers.

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "reagent/mcp/client.hpp"
#include "reagent/mcp/remote_transports.hpp"
#include "reagent/mcp/serve_http.hpp"
#include "reagent/mcp/serve_stdio.hpp"
#include "reagent/mcp/server.hpp"
#include "reagent/tools/tool_builder.hpp"

extern char** environ;  // NOLINT: POSIX

namespace {

using namespace reagent;
namespace asio = boost::asio;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

const std::string kEchoScript = std::string(REAGENT_PEERS_DIR) + "/mcp/echo_server.mjs";
const std::string kSdk2Script = std::string(REAGENT_PEERS_DIR) + "/mcp/sdk2_server.mjs";

struct Settings {
    int runs = 3;
    int warmup = 200;
    int calls = 2000;
    std::string only;  // comma-separated servers to measure (e.g. for a profiler); empty: all eight
};

mcp::Server echoServer() {
    auto registry = std::make_shared<tools::ToolRegistry>();
    auto builder = tools::ToolBuilder::create("echo");
    builder.description("Returns its message")
        .param("message", "string", "the text", tools::ParamOptions{.required = true})
        .handler([](json args, tools::ToolContext) -> Task<tools::ToolResult> {
            co_return args["message"].get<std::string>();
        });
    auto tool = builder.build();
    if (!tool || !registry->add(std::move(*tool))) {
        std::fprintf(stderr, "mcp_server_bench: the echo tool is malformed\n");
        std::exit(2);
    }
    return mcp::Server(registry);
}

// The server side of this program (run as a child).
int serve(bool http, std::uint16_t port) {
    asio::io_context io(1);
    auto server = echoServer();
    if (http) {
        mcp::HttpServeOptions options;
        options.port = port;
        asio::co_spawn(io, mcp::serveHttp(server, options), [](std::exception_ptr, auto) {});
    } else {
        asio::co_spawn(io, mcp::serveStdio(server), [](std::exception_ptr, auto) {});
    }
    io.run();
    return 0;
}

std::string self() {
    std::vector<char> path(4096);
    const auto n = ::readlink("/proc/self/exe", path.data(), path.size() - 1);
    return n > 0 ? std::string(path.data(), static_cast<std::size_t>(n)) : "mcp_server_bench";
}

std::uint16_t freePort() {
    asio::io_context io;
    asio::ip::tcp::acceptor acceptor(io, asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    return acceptor.local_endpoint().port();
}

bool accepting(std::uint16_t port) {
    asio::io_context io;
    asio::ip::tcp::socket socket(io);
    boost::system::error_code ec;
    socket.connect(asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), port), ec);
    return !ec;
}

// A server process on 127.0.0.1 (stdout and stderr to /dev/null), ended with SIGTERM.
class HttpServer {
  public:
    explicit HttpServer(std::vector<std::string> argv, std::uint16_t port) {
        std::vector<char*> args;
        for (auto& arg : argv) {
            args.push_back(arg.data());
        }
        args.push_back(nullptr);
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
        if (posix_spawnp(&pid_, args[0], &actions, nullptr, args.data(), environ) != 0) {
            pid_ = -1;
        }
        posix_spawn_file_actions_destroy(&actions);
        for (int i = 0; i < 500 && pid_ > 0 && !accepting(port); ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    }
    HttpServer(const HttpServer&) = delete;
    HttpServer& operator=(const HttpServer&) = delete;
    ~HttpServer() {
        if (pid_ > 0) {
            ::kill(pid_, SIGTERM);
            int status = 0;
            ::waitpid(pid_, &status, 0);
        }
    }

  private:
    pid_t pid_ = -1;
};

struct Figures {
    double medianUs = 0;
    double callsPerSecond = 0;
    std::string failure;
};

// The echo call a server takes: reagent's and the SDK v1 peer's `{message}` -> the message; the SDK v2
// peer's `{text}` -> `echo: <text>`.
struct Echo {
    json args;
    std::string expected;
};

Task<Figures> measure(mcp::ServerConfig config, Settings settings, Echo echo) {
    Figures figures;
    auto connected = co_await mcp::connectAny(config);
    if (!connected) {
        figures.failure = connected.error().message;
        co_return figures;
    }
    auto client = *connected;
    const std::string wanted = config.era == mcp::ProtocolEra::modern ? "2026-07-28" : "2025-11-25";
    if (client->server().protocolVersion != wanted) {
        figures.failure = "spoke " + client->server().protocolVersion + ", not " + wanted;
        co_return figures;
    }
    const json& args = echo.args;
    for (int i = 0; i < settings.warmup; ++i) {
        auto call = client->callTool("echo", args);
        auto warm = co_await std::move(call);
        if (!warm || warm->text != echo.expected) {
            figures.failure = warm ? "unexpected reply " + warm->text : warm.error().message;
            co_return figures;
        }
    }
    std::vector<double> latencies;
    latencies.reserve(static_cast<std::size_t>(settings.calls));
    const auto start = Clock::now();
    for (int i = 0; i < settings.calls; ++i) {
        const auto before = Clock::now();
        auto call = client->callTool("echo", args);
        auto echoed = co_await std::move(call);
        if (!echoed) {
            figures.failure = echoed.error().message;
            co_return figures;
        }
        latencies.push_back(std::chrono::duration<double, std::micro>(Clock::now() - before).count());
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    std::sort(latencies.begin(), latencies.end());
    figures.medianUs = latencies[latencies.size() / 2];
    figures.callsPerSecond = settings.calls / seconds;
    co_await client->close();
    co_return figures;
}

Figures run(const mcp::ServerConfig& config, const Settings& settings, const Echo& echo) {
    asio::io_context io(1);
    Figures figures;
    asio::co_spawn(io, measure(config, settings, echo), [&figures](std::exception_ptr error, Figures got) {
        figures = error ? Figures{0, 0, "threw"} : std::move(got);
    });
    io.run();
    return figures;
}

Figures runOne(const std::string& name, const Settings& settings) {
    mcp::ServerConfig config;
    config.name = "bench";
    config.maxReconnects = 0;
    const bool reagent = name.starts_with("reagent");
    const bool sdk2 = name.starts_with("sdk2");
    config.era = name.ends_with("2026") ? mcp::ProtocolEra::modern : mcp::ProtocolEra::legacy;
    const Echo echo =
        sdk2 ? Echo{json{{"text", "ping"}}, "echo: ping"} : Echo{json{{"message", "ping"}}, "ping"};
    if (name.find("stdio") != std::string::npos) {
        config.command = reagent ? self() : sdk2 ? std::string(REAGENT_NODE22) : std::string(REAGENT_NODE);
        config.args = reagent ? std::vector<std::string>{"--serve-stdio"}
                      : sdk2  ? std::vector<std::string>{kSdk2Script, "stdio", "serve"}
                              : std::vector<std::string>{kEchoScript, "stdio"};
        return run(config, settings, echo);
    }
    const auto port = freePort();
    const std::vector<std::string> argv =
        reagent ? std::vector<std::string>{self(), "--serve-http", std::to_string(port)}
        : sdk2
            ? std::vector<std::string>{REAGENT_NODE22, kSdk2Script, "http", "stateless", std::to_string(port)}
            : std::vector<std::string>{REAGENT_NODE, kEchoScript, "http", std::to_string(port)};
    HttpServer server(argv, port);
    config.transport = mcp::TransportKind::streamable_http;
    config.url = "http://127.0.0.1:" + std::to_string(port) + "/mcp";
    return run(config, settings, echo);
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values.empty() ? 0 : values[values.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    if (argc >= 2 && std::strcmp(argv[1], "--serve-stdio") == 0) {
        return serve(false, 0);
    }
    if (argc >= 3 && std::strcmp(argv[1], "--serve-http") == 0) {
        return serve(true, static_cast<std::uint16_t>(std::atoi(argv[2])));
    }
    Settings settings;
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        if (flag == "--smoke") {
            settings.runs = 1;
            settings.warmup = 20;
            settings.calls = 100;
        } else if (i + 1 < argc && flag == "--runs") {
            settings.runs = std::atoi(argv[++i]);
        } else if (i + 1 < argc && flag == "--warmup") {
            settings.warmup = std::atoi(argv[++i]);
        } else if (i + 1 < argc && flag == "--calls") {
            settings.calls = std::atoi(argv[++i]);
        } else if (i + 1 < argc && flag == "--only") {
            settings.only = argv[++i];
        }
    }
    std::vector<std::string> servers = {"reagent stdio",     "sdk stdio",          "reagent http",
                                        "sdk http",          "reagent stdio 2026", "sdk2 stdio 2026",
                                        "reagent http 2026", "sdk2 http 2026"};
    if (!settings.only.empty()) {
        std::erase_if(servers, [&](const std::string& name) {
            return ("," + settings.only + ",").find("," + name + ",") == std::string::npos;
        });
        if (servers.empty()) {
            std::fprintf(stderr, "mcp_server_bench: --only names none of the servers\n");
            return 2;
        }
    }
    std::map<std::string, std::vector<double>> medians;
    std::map<std::string, std::vector<double>> rates;
    std::printf(
        "mcp_server_bench: sequential tools/call echo from reagent's mcp::Client; %d runs x %d calls "
        "(%d warm-up)\n",
        settings.runs, settings.calls, settings.warmup);
    for (int r = 0; r < settings.runs; ++r) {
        for (const auto& name : servers) {
            const auto figures = runOne(name, settings);
            if (!figures.failure.empty()) {
                std::fprintf(stderr, "mcp_server_bench: %s: %s\n", name.c_str(), figures.failure.c_str());
                return 1;
            }
            std::printf("  run %d  %-18s median %7.0f us  %7.0f calls/s\n", r + 1, name.c_str(),
                        figures.medianUs, figures.callsPerSecond);
            std::fflush(stdout);
            medians[name].push_back(figures.medianUs);
            rates[name].push_back(figures.callsPerSecond);
        }
    }
    std::printf("\n%-18s %12s %10s\n", "server", "median (us)", "calls/s");
    for (const auto& name : servers) {
        std::printf("%-18s %12.0f %10.0f\n", name.c_str(), median(medians[name]), median(rates[name]));
    }
    for (const std::string transport : {"stdio", "http"}) {
        const double ours = median(medians["reagent " + transport]);
        const double theirs = median(medians["sdk " + transport]);
        if (ours == 0 || theirs == 0) {
            continue;  // not measured (--only)
        }
        std::printf(
            "%s: reagent's server %.2fx the SDK server's speed (median latency SDK / reagent), "
            "calls/s %.2fx\n",
            transport.c_str(), theirs / ours,
            median(rates["reagent " + transport]) / median(rates["sdk " + transport]));
    }
    for (const std::string transport : {"stdio", "http"}) {
        const double ours = median(medians["reagent " + transport + " 2026"]);
        const double theirs = median(medians["sdk2 " + transport + " 2026"]);
        if (ours == 0 || theirs == 0 || median(medians["reagent " + transport]) == 0) {
            continue;
        }
        std::printf(
            "%s 2026-07-28: reagent's server %.2fx the SDK v2 server's speed (median latency SDK / reagent); "
            "reagent's 2026 call costs %.2fx its 2025 one (median latency)\n",
            transport.c_str(), theirs / ours, ours / median(medians["reagent " + transport]));
    }
    return 0;
}
