// What a wake-up costs: two coroutines on one io_context play ping-pong, each waking the other and
// waiting for its answer, through
//
//   timer          the idiom reagent::Event replaces: a steady_timer that never expires, `expires_at(max)`
//                  and `async_wait` to wait, `cancel()` to wake, and a flag beside it (the baseline);
//   event          reagent::Event: `set()`, `co_await wait()`, `reset()`;
//   event-op       the same Event awaited as an operation, `wait(use_awaitable)`, without `wait()`'s own
//                  coroutine frame;
//   event-inline   the same set with `Resumption::inlineFirst`, which runs the waiter at once on the
//                  setter's stack (the MCP client's hand-off of a response to its request).
//
// A plain program: each run takes the variants in turn, so that drift on this shared machine hits them all
// alike; the summary is the median of the runs. Printed: nanoseconds per round trip (two wake-ups and two
// waits), and each variant's ratio to the timer of the same run.
//
//   event_bench [--rounds N=200000] [--runs N=7]

#include <algorithm>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "reagent/core/event.hpp"

namespace {

namespace asio = boost::asio;
using reagent::Task;
using Clock = std::chrono::steady_clock;

constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);

// Runs the two players to the end on a fresh io_context; returns nanoseconds per round trip.
template <class Game>
double play(long rounds) {
    asio::io_context io;
    Game game(io.get_executor());
    asio::co_spawn(io, Game::ponger(&game, rounds), asio::detached);
    asio::co_spawn(io, Game::pinger(&game, rounds), asio::detached);
    const auto start = Clock::now();
    io.run();
    const auto elapsed = std::chrono::duration<double, std::nano>(Clock::now() - start).count();
    if (game.count != 2 * rounds) {
        std::fprintf(stderr, "event_bench: a game stopped after %ld of %ld wake-ups\n", game.count,
                     2 * rounds);
        std::exit(1);
    }
    return elapsed / static_cast<double>(rounds);
}

struct TimerGame {
    struct Side {
        explicit Side(const reagent::Executor& executor) : timer(executor) {}
        asio::steady_timer timer;
        bool flag = false;
    };
    explicit TimerGame(const reagent::Executor& executor) : ping(executor), pong(executor) {}
    Side ping;
    Side pong;
    long count = 0;

    static void wake(Side& side) {
        side.flag = true;
        side.timer.cancel();
    }
    static Task<void> pinger(TimerGame* game, long rounds) {
        for (long i = 0; i < rounds; ++i) {
            wake(game->ping);
            while (!game->pong.flag) {
                game->pong.timer.expires_at(asio::steady_timer::time_point::max());
                co_await game->pong.timer.async_wait(kTuple);
            }
            game->pong.flag = false;
            ++game->count;
        }
    }
    static Task<void> ponger(TimerGame* game, long rounds) {
        for (long i = 0; i < rounds; ++i) {
            while (!game->ping.flag) {
                game->ping.timer.expires_at(asio::steady_timer::time_point::max());
                co_await game->ping.timer.async_wait(kTuple);
            }
            game->ping.flag = false;
            ++game->count;
            wake(game->pong);
        }
    }
};

template <bool kOperation>
struct EventGame {
    explicit EventGame(const reagent::Executor& executor) : ping(executor), pong(executor) {}
    reagent::Event ping;
    reagent::Event pong;
    long count = 0;

    static Task<void> pinger(EventGame* game, long rounds) {
        for (long i = 0; i < rounds; ++i) {
            game->ping.set();
            if constexpr (kOperation) {
                auto result = co_await game->pong.wait(asio::use_awaitable);
                (void)result;
            } else {
                auto result = co_await game->pong.wait();
                (void)result;
            }
            game->pong.reset();
            ++game->count;
        }
    }
    static Task<void> ponger(EventGame* game, long rounds) {
        for (long i = 0; i < rounds; ++i) {
            if constexpr (kOperation) {
                auto result = co_await game->ping.wait(asio::use_awaitable);
                (void)result;
            } else {
                auto result = co_await game->ping.wait();
                (void)result;
            }
            game->ping.reset();
            ++game->count;
            game->pong.set();
        }
    }
};

// The hand-off the MCP client makes when a response arrives: `set(Resumption::inlineFirst)` runs the
// waiter at once on the setter's stack; a side that finds the event set already does not wait.
struct InlineGame {
    explicit InlineGame(const reagent::Executor& executor) : ping(executor), pong(executor) {}
    reagent::Event ping;
    reagent::Event pong;
    long count = 0;

    static constexpr auto kInline = reagent::Event::Resumption::inlineFirst;

    static Task<void> pinger(InlineGame* game, long rounds) {
        for (long i = 0; i < rounds; ++i) {
            game->ping.set(kInline);
            if (!game->pong.isSet()) {
                auto result = co_await game->pong.wait(asio::use_awaitable);
                (void)result;
            }
            game->pong.reset();
            ++game->count;
        }
    }
    static Task<void> ponger(InlineGame* game, long rounds) {
        for (long i = 0; i < rounds; ++i) {
            if (!game->ping.isSet()) {
                auto result = co_await game->ping.wait(asio::use_awaitable);
                (void)result;
            }
            game->ping.reset();
            ++game->count;
            game->pong.set(kInline);
        }
    }
};

struct Variant {
    const char* name;
    std::function<double(long)> run;
    std::vector<double> figures;  // ns per round trip, one per run
    std::vector<double> ratios;   // to the timer of the same run
};

double medianOf(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

long argument(int argc, char** argv, const char* name, long fallback) {
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], name) == 0) {
            return std::strtol(argv[i + 1], nullptr, 10);
        }
    }
    return fallback;
}

}  // namespace

int main(int argc, char** argv) {
    const long rounds = argument(argc, argv, "--rounds", 200000);
    const long runs = argument(argc, argv, "--runs", 7);
    std::vector<Variant> variants{
        {"timer", play<TimerGame>, {}, {}},
        {"event", play<EventGame<false>>, {}, {}},
        {"event-op", play<EventGame<true>>, {}, {}},
        {"event-inline", play<InlineGame>, {}, {}},
    };
    std::printf("ping-pong of two coroutines, %ld round trips per run, %ld runs\n", rounds, runs);
    for (Variant& variant : variants) {
        (void)variant.run(rounds / 10);  // warm-up: allocator caches, page faults
    }
    for (long run = 1; run <= runs; ++run) {
        std::printf("run %ld", run);
        for (Variant& variant : variants) {
            variant.figures.push_back(variant.run(rounds));
        }
        const double timer = variants.front().figures.back();
        for (Variant& variant : variants) {
            variant.ratios.push_back(variant.figures.back() / timer);
            std::printf("  %s %.0f", variant.name, variant.figures.back());
        }
        std::printf(" ns\n");
    }
    std::printf("\nmedian of %ld runs:\n%-14s %12s %10s %16s\n", runs, "variant", "ns/round", "/timer",
                "ratio range");
    for (const Variant& variant : variants) {
        const auto [low, high] = std::minmax_element(variant.ratios.begin(), variant.ratios.end());
        std::printf("%-14s %12.1f %10.3f %7.3f-%-7.3f\n", variant.name, medianOf(variant.figures),
                    medianOf(variant.ratios), *low, *high);
    }
    const auto median = [&](const char* name) {
        for (const Variant& variant : variants) {
            if (std::strcmp(variant.name, name) == 0) {
                return medianOf(variant.figures);
            }
        }
        return 0.0;
    };
    std::printf("\nevent-op / event %.2f, event-inline / event-op %.2f\n",
                median("event-op") / median("event"), median("event-inline") / median("event-op"));
    return 0;
}
