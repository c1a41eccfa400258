#pragma once
// One HTTP/1.1 request to a server the CLI started on 127.0.0.1, for the CLI's tests.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <regex>
#include <string>

#include "cli_process.hpp"

namespace reagent::test {

struct Reply {
    int status = 0;
    std::string head;
    std::string body;
};

// One HTTP/1.1 request to 127.0.0.1:port (Connection: close), the reply read to its end within 10 s.
inline Reply request(int port, const std::string& method, const std::string& path, const std::string& body,
                     const std::string& authorization = "") {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    REQUIRE(fd >= 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
    std::string text = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
                       "\r\nConnection: close\r\nContent-Type: application/json\r\n"
                       "Accept: application/json, text/event-stream\r\n";
    if (!authorization.empty()) {
        text += "Authorization: " + authorization + "\r\n";
    }
    text += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    REQUIRE(::send(fd, text.data(), text.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(text.size()));
    std::string all;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
        pollfd ready{fd, POLLIN, 0};
        if (::poll(&ready, 1, 100) <= 0) {
            continue;
        }
        char buffer[4096];
        const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
        if (n <= 0) {
            break;
        }
        all.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(fd);
    Reply reply;
    const auto split = all.find("\r\n\r\n");
    reply.head = all.substr(0, split);
    reply.body = split == std::string::npos ? "" : all.substr(split + 4);
    if (all.starts_with("HTTP/1.1 ")) {
        reply.status = std::stoi(all.substr(9, 3));
    }
    return reply;
}

// Waits for the server's address on stderr; its port.
inline int portOf(CliProcess& server, const std::string& marker) {
    const std::string err = server.readErrUntil(marker, std::chrono::seconds(20));
    std::smatch match;
    const std::regex pattern(R"(http://127\.0\.0\.1:(\d+))");
    INFO(err);
    REQUIRE(std::regex_search(err, match, pattern));
    return std::stoi(match[1]);
}

}  // namespace reagent::test
