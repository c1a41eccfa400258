#pragma once
// Runs the real `reagent` binary as a child process and collects its exit status, stdout and stderr.
// posix_spawn with an argument vector: no shell, so prompts need no quoting.

#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace reagent::test {

struct CliOutcome {
    /// The exit status, or -1 when a signal ended the process.
    int status = -1;
    std::string out;
    std::string err;
};

class CliProcess {
  public:
    /// With `input`, the child's standard input is a pipe that receives it (from a thread, so that a large
    /// input never blocks the reading of the outputs) and is then closed.
    /// `environment` adds `NAME=value` entries to the child's environment (this process's is inherited).
    explicit CliProcess(std::vector<std::string> args, std::optional<std::string> input = std::nullopt,
                        std::vector<std::string> environment = {}) {
        args.insert(args.begin(), REAGENT_CLI_PATH);
        std::vector<char*> argv;
        for (auto& arg : args) {
            argv.push_back(arg.data());
        }
        argv.push_back(nullptr);
        if (::pipe(out_.data()) != 0 || ::pipe(err_.data()) != 0 || (input && ::pipe(in_.data()) != 0)) {
            throw std::runtime_error("pipe failed");
        }
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        if (input) {
            posix_spawn_file_actions_adddup2(&actions, in_[0], STDIN_FILENO);
            posix_spawn_file_actions_addclose(&actions, in_[0]);
            posix_spawn_file_actions_addclose(&actions, in_[1]);
        }
        posix_spawn_file_actions_adddup2(&actions, out_[1], STDOUT_FILENO);
        posix_spawn_file_actions_adddup2(&actions, err_[1], STDERR_FILENO);
        for (const int fd : {out_[0], out_[1], err_[0], err_[1]}) {
            posix_spawn_file_actions_addclose(&actions, fd);
        }
        std::vector<char*> envp;
        for (auto& entry : environment) {
            envp.push_back(entry.data());
        }
        for (char** entry = environ; *entry != nullptr; ++entry) {
            envp.push_back(*entry);
        }
        envp.push_back(nullptr);
        const int rc = ::posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), envp.data());
        posix_spawn_file_actions_destroy(&actions);
        ::close(out_[1]);
        ::close(err_[1]);
        if (input) {
            ::signal(SIGPIPE, SIG_IGN);  // a child that exits without reading must not kill the test
            ::close(in_[0]);
            writer_ = std::thread([fd = in_[1], text = std::move(*input)] {
                std::size_t done = 0;
                while (done < text.size()) {
                    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
                    if (n <= 0) {
                        break;  // the child closed its end (or exited) early
                    }
                    done += static_cast<std::size_t>(n);
                }
                ::close(fd);
            });
        }
        if (rc != 0) {
            throw std::runtime_error(std::string("cannot start ") + REAGENT_CLI_PATH);
        }
    }
    CliProcess(const CliProcess&) = delete;
    CliProcess& operator=(const CliProcess&) = delete;
    ~CliProcess() {
        if (pid_ > 0) {
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, nullptr, 0);
        }
        if (writer_.joinable()) {
            writer_.join();
        }
    }

    void signal(int number) const { ::kill(pid_, number); }

    /// Waits until the child catches `number` (its bit in /proc/<pid>/status's SigCgt mask): from then on
    /// the signal reaches the CLI's handler instead of ending the process. False if `limit` passes first.
    bool waitUntilCatching(int number, std::chrono::milliseconds limit) const {
        const auto deadline = std::chrono::steady_clock::now() + limit;
        const std::string path = "/proc/" + std::to_string(pid_) + "/status";
        while (std::chrono::steady_clock::now() < deadline) {
            std::ifstream status(path);
            std::string line;
            while (std::getline(status, line)) {
                if (line.starts_with("SigCgt:")) {
                    const unsigned long long mask = std::stoull(line.substr(7), nullptr, 16);
                    if ((mask >> (number - 1)) & 1U) {
                        return true;
                    }
                }
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        return false;
    }

    /// Reads stderr until it holds `needle` or `limit` passes; what was read so far (kept for `wait`).
    std::string readErrUntil(const std::string& needle, std::chrono::milliseconds limit) {
        const auto deadline = std::chrono::steady_clock::now() + limit;
        while (early_.find(needle) == std::string::npos) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                deadline - std::chrono::steady_clock::now());
            if (left.count() <= 0) {
                break;
            }
            pollfd fd{err_[0], POLLIN, 0};
            if (::poll(&fd, 1, static_cast<int>(left.count())) <= 0) {
                break;
            }
            char buffer[4096];
            const ssize_t n = ::read(err_[0], buffer, sizeof buffer);
            if (n <= 0) {
                break;
            }
            early_.append(buffer, static_cast<std::size_t>(n));
        }
        return early_;
    }

    /// Reads both pipes to their end (together, so a full pipe never blocks the child), then reaps it.
    CliOutcome wait() {
        CliOutcome outcome;
        outcome.err = std::move(early_);
        std::array<pollfd, 2> fds{pollfd{out_[0], POLLIN, 0}, pollfd{err_[0], POLLIN, 0}};
        std::array<std::string*, 2> sinks{&outcome.out, &outcome.err};
        int open = 2;
        while (open > 0) {
            if (::poll(fds.data(), fds.size(), -1) < 0) {
                break;
            }
            for (std::size_t i = 0; i < fds.size(); ++i) {
                if (fds[i].fd < 0 || fds[i].revents == 0) {
                    continue;
                }
                char buffer[4096];
                const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
                if (n > 0) {
                    sinks[i]->append(buffer, static_cast<std::size_t>(n));
                } else {
                    ::close(fds[i].fd);
                    fds[i].fd = -1;
                    --open;
                }
            }
        }
        int status = 0;
        ::waitpid(pid_, &status, 0);
        pid_ = -1;
        if (writer_.joinable()) {
            writer_.join();
        }
        outcome.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        return outcome;
    }

  private:
    pid_t pid_ = -1;
    std::array<int, 2> out_{-1, -1};
    std::array<int, 2> err_{-1, -1};
    std::array<int, 2> in_{-1, -1};
    std::thread writer_;
    // stderr read by `readErrUntil` before `wait`.
    std::string early_;
};

inline CliOutcome runCli(std::vector<std::string> args, std::optional<std::string> input = std::nullopt) {
    return CliProcess(std::move(args), std::move(input)).wait();
}

}  // namespace reagent::test
