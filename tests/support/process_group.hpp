#pragma once
// Looking at a process group from /proc, for tests that check a kill reached every member.

#include <sys/types.h>

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "reagent/core/task.hpp"

namespace reagent::test {

/// Processes of process group `group` that are not zombies (killed grandchildren may linger as zombies
/// until init reaps them, which some container inits never do).
inline int liveMembers(pid_t group) {
    int live = 0;
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
        const std::string name = entry.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) {
            continue;
        }
        std::ifstream stat(entry.path() / "stat");
        std::string line;
        std::getline(stat, line);
        const auto close = line.rfind(')');
        char state = 0;
        int parent = 0;
        int pgrp = 0;
        if (close != std::string::npos &&
            std::sscanf(line.c_str() + close + 1, " %c %d %d", &state, &parent, &pgrp) == 3 &&
            pgrp == group && state != 'Z') {
            ++live;
        }
    }
    return live;
}

/// The live members of `group` after up to a second: SIGKILL reaches the members asynchronously, so a
/// group just killed is given a moment to die.
inline Task<int> liveMembersAfterKill(pid_t group) {
    using namespace std::chrono_literals;
    auto executor = co_await boost::asio::this_coro::executor;
    for (int i = 0; i < 100 && liveMembers(group) != 0; ++i) {
        boost::asio::steady_timer pause(executor, 10ms);
        co_await pause.async_wait(boost::asio::use_awaitable);
    }
    co_return liveMembers(group);
}

}  // namespace reagent::test
