#include "bare_mcp_client.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <stdexcept>

extern char** environ;  // NOLINT: POSIX

namespace bench {

using namespace reagent;

namespace {

const std::string kServerScript =
    std::string(REAGENT_MCP_NODE_MODULES) + "/@modelcontextprotocol/server-everything/dist/index.js";

}  // namespace

std::vector<std::string> everythingArgv() {
    return {REAGENT_NODE, kServerScript, "stdio"};
}

mcp::ServerConfig everything() {
    mcp::ServerConfig config;
    config.name = "everything";
    config.command = REAGENT_NODE;
    config.args = {kServerScript, "stdio"};
    return config;
}

double cpuSeconds() {
    rusage usage{};
    ::getrusage(RUSAGE_SELF, &usage);
    const auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
    return s(usage.ru_utime) + s(usage.ru_stime);
}

void Samples::add(const Samples& other) {
    latencies.insert(latencies.end(), other.latencies.begin(), other.latencies.end());
    cpu += other.cpu;
    wall += other.wall;
}

Figures Samples::figures() const {
    if (latencies.empty()) {
        throw std::runtime_error("no samples");
    }
    std::vector<double> us = latencies;
    std::sort(us.begin(), us.end());
    const auto at = [&](double p) {
        return us[std::min(us.size() - 1, static_cast<std::size_t>(p * static_cast<double>(us.size())))];
    };
    const auto n = static_cast<double>(us.size());
    return Figures{at(0.5), at(0.99), cpu / n * 1e6, wall > 0 ? n / wall : 0};
}

CallTimer::CallTimer(int count)
    : count_(static_cast<std::size_t>(count)), cpuStart_(cpuSeconds()), wallStart_(Clock::now()) {
    samples_.latencies.reserve(count_);
}

bool CallTimer::next() {
    const auto now = Clock::now();
    if (callStart_) {
        samples_.latencies.push_back(std::chrono::duration<double, std::micro>(now - *callStart_).count());
    }
    if (samples_.latencies.size() == count_) {
        samples_.cpu = cpuSeconds() - cpuStart_;
        samples_.wall = std::chrono::duration<double>(Clock::now() - wallStart_).count();
        return false;
    }
    callStart_ = Clock::now();
    return true;
}

Task<std::shared_ptr<mcp::Client>> connectClient(mcp::ServerConfig config) {
    mcp::ClientOptions options;
    auto connected = co_await mcp::Client::connect(std::move(config), std::move(options));
    if (!connected) {
        throw std::runtime_error("reagent: " + connected.error().message);
    }
    co_return std::move(*connected);
}

Task<void> callOnce(std::shared_ptr<mcp::Client> client, std::shared_ptr<const McpCall> call) {
    auto result = co_await client->callTool(call->tool, call->arguments);
    if (!result || result->isError || result->text != call->reply) {
        throw std::runtime_error("reagent: the call failed: " +
                                 (result ? result->text : result.error().message));
    }
}

// A child process with its stdin and stdout on pipes (stderr to /dev/null), read and written blocking.
class BareMcpClient::Child {
  public:
    Child(const std::vector<std::string>& argv, bool socketInput) {
        int in[2];
        int out[2];
        const int inputMade =
            socketInput ? ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) : ::pipe2(in, O_CLOEXEC);
        if (inputMade != 0 || ::pipe2(out, O_CLOEXEC) != 0) {
            throw std::runtime_error("pipe2 failed");
        }
        posix_spawn_file_actions_t actions;
        ::posix_spawn_file_actions_init(&actions);
        ::posix_spawn_file_actions_adddup2(&actions, in[0], 0);
        ::posix_spawn_file_actions_adddup2(&actions, out[1], 1);
        ::posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
        std::vector<char*> args;
        for (const auto& arg : argv) {
            args.push_back(const_cast<char*>(arg.c_str()));
        }
        args.push_back(nullptr);
        const int spawned = ::posix_spawnp(&pid_, args[0], &actions, nullptr, args.data(), environ);
        ::posix_spawn_file_actions_destroy(&actions);
        ::close(in[0]);
        ::close(out[1]);
        input_ = in[1];
        output_ = out[0];
        if (spawned != 0) {
            ::close(input_);
            ::close(output_);
            throw std::runtime_error(std::string("posix_spawn failed: ") + std::strerror(spawned));
        }
    }
    Child(const Child&) = delete;
    Child& operator=(const Child&) = delete;
    ~Child() {
        ::close(input_);  // server-everything exits when its stdin closes
        int status = 0;
        ::waitpid(pid_, &status, 0);
        ::close(output_);
    }

    void write(std::string_view bytes) const {
        while (!bytes.empty()) {
            const ssize_t n = ::write(input_, bytes.data(), bytes.size());
            if (n <= 0) {
                throw std::runtime_error("bare: write to the server failed");
            }
            bytes.remove_prefix(static_cast<std::size_t>(n));
        }
    }

    // The next line without its newline; valid until the next call.
    std::string_view readLine() {
        for (;;) {
            if (const void* newline = std::memchr(buffer_.data() + begin_, '\n', end_ - begin_)) {
                const std::size_t at = static_cast<const char*>(newline) - buffer_.data();
                const std::string_view line(buffer_.data() + begin_, at - begin_);
                begin_ = at + 1;
                return line;
            }
            if (begin_ > 0) {
                std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
                end_ -= begin_;
                begin_ = 0;
            }
            if (end_ == buffer_.size()) {
                buffer_.resize(buffer_.size() * 2);
            }
            const ssize_t n = ::read(output_, buffer_.data() + end_, buffer_.size() - end_);
            if (n <= 0) {
                throw std::runtime_error("bare: the server closed its output");
            }
            end_ += static_cast<std::size_t>(n);
        }
    }

    // Lines until the one that ends with `"id":<id>}`: the reply (the server puts `id` last; anything else,
    // such as notifications/tools/list_changed after the handshake, is skipped).
    std::string_view readReply(int id) {
        char suffix[32];
        const int length = std::snprintf(suffix, sizeof suffix, "\"id\":%d}", id);
        for (;;) {
            const std::string_view line = readLine();
            if (line.ends_with(std::string_view(suffix, static_cast<std::size_t>(length)))) {
                return line;
            }
        }
    }

  private:
    pid_t pid_ = -1;
    int input_ = -1;
    int output_ = -1;
    std::string buffer_ = std::string(64 * 1024, '\0');
    std::size_t begin_ = 0;
    std::size_t end_ = 0;
};

BareMcpClient::BareMcpClient(const std::vector<std::string>& argv, bool socketInput)
    : child_(std::make_unique<Child>(argv, socketInput)) {
    child_->write(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",)"
                  R"("capabilities":{},"clientInfo":{"name":"bare","version":"1.0.0"}}})"
                  "\n");
    (void)child_->readReply(0);
    child_->write(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
                  "\n");
}

BareMcpClient::~BareMcpClient() = default;

void BareMcpClient::callEcho() {
    const int id = nextId_++;
    char request[160];
    const int length = std::snprintf(
        request, sizeof request,
        R"({"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":"ping"}}})"
        "\n",
        id);
    child_->write(std::string_view(request, static_cast<std::size_t>(length)));
    const std::string_view reply = child_->readReply(id);
    if (reply.find(kEchoReply) == std::string_view::npos) {
        throw std::runtime_error("bare: unexpected reply: " + std::string(reply));
    }
}

}  // namespace bench
