// The CLI under hostile or awkward input: prompts from stdin and files, bad flag values, invalid UTF-8 and
// escape sequences in what it prints, --timeout, and the signals that end a run.

#include <catch2/catch.hpp>
#include <chrono>
#include <csignal>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>

#include "cli_process.hpp"
#include "temp_dir.hpp"
#include "terminal_text.hpp"
#include "trace.hpp"
#include "utf8_check.hpp"

using nlohmann::json;
using reagent::cli::StreamedTerminalText;
using reagent::cli::terminalSafe;
using reagent::test::runCli;
using namespace std::chrono_literals;

namespace {

json parseStdout(const reagent::test::CliOutcome& outcome) {
    INFO("stdout: " << outcome.out.substr(0, 2000) << "\nstderr: " << outcome.err.substr(0, 2000));
    json parsed = json::parse(outcome.out, nullptr, false);
    REQUIRE_FALSE(parsed.is_discarded());
    return parsed;
}

// The output of the word_count call of a demo run, parsed.
json wordCount(const json& result) {
    for (const auto& call : result["toolCalls"]) {
        if (call["name"] == "word_count") {
            return json::parse(call["output"].get<std::string>());
        }
    }
    FAIL("no word_count call");
    return {};
}

}  // namespace

TEST_CASE("terminalSafe makes controls visible and keeps printable text", "[cli][terminal]") {
    CHECK(terminalSafe("plain text, caf\u00e9, \u4e2d\u6587, \U0001F600") ==
          "plain text, caf\u00e9, \u4e2d\u6587, \U0001F600");
    CHECK(terminalSafe("a\nb\tc") == "a\nb\tc");
    CHECK(terminalSafe("a\nb\tc", false) == "a b c");
    CHECK(terminalSafe("\x1b]0;owned\x07title") == "\\x1b]0;owned\\x07title");  // window title (OSC)
    CHECK(terminalSafe("\x1b[2J\x1b[8mhidden") == "\\x1b[2J\\x1b[8mhidden");    // clear screen, hidden text
    CHECK(terminalSafe("over\rwrite\b\x7f") == "over\\x0dwrite\\x08\\x7f");
    CHECK(terminalSafe("\u009b31m") == "\\u009b31m");        // C1 CSI, as UTF-8
    CHECK(terminalSafe("abc\u202edef") == "abc\\u202edef");  // right-to-left override
    CHECK(terminalSafe("bad \xff byte, cut \xe2\x82") == "bad \uFFFD byte, cut \uFFFD\uFFFD");
    CHECK(terminalSafe("\x9b"
                       "31m") == "\uFFFD31m");  // a raw C1 byte is not UTF-8: replaced, not sent
}

TEST_CASE("StreamedTerminalText holds back a character cut between two pieces", "[cli][terminal]") {
    StreamedTerminalText text;
    const std::string euro = "\u20ac";  // three bytes
    std::string shown = text.feed("price: " + euro.substr(0, 1));
    CHECK(shown == "price: ");
    shown += text.feed(euro.substr(1, 1));
    shown += text.feed(euro.substr(2) + " \x1b[31m");
    shown += text.flush();
    CHECK(shown == "price: \u20ac \\x1b[31m");
    CHECK(text.feed("\xe2\x82") == "");
    CHECK(text.flush() == "\uFFFD\uFFFD");  // the stream ended inside a character
}

TEST_CASE("run reads the prompt from standard input with - and from --prompt-file", "[cli][run][prompt]") {
    const auto piped = runCli({"run", "--json", "-"}, std::string("What is 6*7?\n"));
    REQUIRE(piped.status == 0);
    CHECK(parseStdout(piped)["output"].get<std::string>().find("6*7 = 42") != std::string::npos);

    // 10 MB: far beyond what argv can carry.
    std::string large = "What is 6*7? ";
    while (large.size() < 10'000'000) {
        large += "lorem ipsum dolor sit amet ";
    }
    const auto big = runCli({"run", "--json", "-"}, large);
    REQUIRE(big.status == 0);
    CHECK(wordCount(parseStdout(big))["characters"] == large.size());

    reagent::test::TempDir dir;
    const std::string file = dir.file("prompt.txt");
    std::ofstream(file) << "What is (2+3)*4?";
    const auto fromFile = runCli({"run", "--quiet", "--prompt-file", file});
    REQUIRE(fromFile.status == 0);
    CHECK(fromFile.out.find("(2+3)*4 = 20") != std::string::npos);

    const std::string empty = dir.file("empty.txt");
    std::ofstream(empty) << " \n";
    struct Case {
        std::vector<std::string> args;
        std::string message;
    };
    const std::vector<Case> wrong{
        {{"run", "--prompt-file", dir.file("missing.txt")}, "cannot read the prompt file"},
        {{"run", "--prompt-file", file, "words"}, "not both"},
        {{"run", "--prompt-file", empty}, "the prompt is empty"},
        {{"run"}, "run needs a prompt"},
    };
    for (const auto& c : wrong) {
        INFO(c.args.back());
        const auto outcome = runCli(c.args);
        CHECK(outcome.status == 2);
        CHECK(outcome.err.find(c.message) != std::string::npos);
    }
    const auto emptyStdin = runCli({"run", "-"}, std::string());
    CHECK(emptyStdin.status == 2);
    CHECK(emptyStdin.err.find("the prompt is empty") != std::string::npos);
}

TEST_CASE("a repeatable option takes one value each time: the words after it stay the prompt",
          "[cli][run][prompt]") {
    // --pass-env NAME and --attach FILE once took every following word as one more value.
    const auto passEnv = runCli(
        {"run", "--quiet", "--pass-env", "SOME_TOKEN", "--pass-env", "OTHER_KEY", "What", "is", "6*7?"});
    INFO(passEnv.err);
    REQUIRE(passEnv.status == 0);
    CHECK(passEnv.out.find("6*7 = 42") != std::string::npos);
}

TEST_CASE("bad flag values are refused at start with messages a person can act on", "[cli][usage]") {
    struct Case {
        std::vector<std::string> args;
        std::string message;
    };
    const std::vector<Case> wrong{
        {{"run", "--max-iterations", "0", "x"}, "'0' is not a whole number from 1 to 1000000"},
        {{"run", "--max-iterations", "-3", "x"}, "is not a whole number"},
        {{"run", "--max-iterations", "2.5", "x"}, "is not a whole number"},
        {{"run", "--budget", "18446744073709551616", "x"}, "is too large (at most 1000000000)"},
        {{"run", "--budget", "0", "x"}, "is not a whole number from 1 to 1000000000"},
        {{"run", "--memory", "", "x"}, "needs a file path"},
        {{"run", "--base-url", "", "x"}, "needs a URL"},
        {{"run", "--timeout", "0", "x"}, "is not a number of seconds above 0"},
        {{"run", "--timeout", "soon", "x"}, "is not a number of seconds above 0"},
        {{"memory", "recent", "--memory", ""}, "needs a file path"},
        {{"memory", "recent", "--memory", "m.db", "--limit", "0"}, "is not a whole number"},
    };
    for (const auto& c : wrong) {
        std::string line;
        for (const auto& arg : c.args) {
            line += arg + " ";
        }
        INFO("reagent " << line);
        const auto outcome = runCli(c.args);
        CHECK(outcome.status == 2);
        CHECK(outcome.err.find(c.message) != std::string::npos);
        CHECK(outcome.err.find("1797") == std::string::npos);  // no 309-digit double
    }
}

TEST_CASE("invalid UTF-8 in a run never breaks --json and never reaches the terminal raw",
          "[cli][run][utf8]") {
    // The prompt reaches the word_count tool's input and the trace; its bad bytes must survive both.
    const std::string prompt = "What is 6*7? caf\xc3 \xff\xfe end \xe2\x82";
    const auto asJson = runCli({"run", "--json", prompt});
    REQUIRE(asJson.status == 0);
    CHECK(reagent::test::isValidUtf8(asJson.out));
    const json result = parseStdout(asJson);
    CHECK(result["success"] == true);

    const auto traced = runCli({"run", prompt});
    REQUIRE(traced.status == 0);
    CHECK(reagent::test::isValidUtf8(traced.err));
    CHECK(traced.err.find("\uFFFD") != std::string::npos);
}

TEST_CASE("escape sequences in the prompt and tool output are shown, not sent to the terminal",
          "[cli][run][terminal]") {
    const std::string prompt = "\x1b]0;owned\x07\x1b[2J What is 6*7? \x1b[8mhidden\u009b";
    const auto traced = runCli({"run", prompt});
    REQUIRE(traced.status == 0);
    CHECK(traced.err.find('\x1b') == std::string::npos);
    CHECK(traced.err.find('\x07') == std::string::npos);
    CHECK(traced.err.find("\u009b") == std::string::npos);
    CHECK(traced.err.find("\\x1b]0;owned\\x07") != std::string::npos);
    CHECK(traced.out.find('\x1b') == std::string::npos);

    // --json is for programs: the exact text, JSON-escaped.
    const auto asJson = runCli({"run", "--json", prompt});
    REQUIRE(asJson.status == 0);
    CHECK(parseStdout(asJson)["toolCalls"][1]["input"]["text"] == prompt);
}

TEST_CASE("a --timeout bounds the whole run, which is reported as timed out", "[cli][run][timeout]") {
    const auto start = std::chrono::steady_clock::now();
    // Each demo turn waits 10 s; the run is given half a second.
    const auto outcome =
        runCli({"run", "--json", "--timeout", "0.5", "--demo-latency", "10000", "What is 6*7?"});
    const auto elapsed = std::chrono::steady_clock::now() - start;
    CHECK(outcome.status == 1);
    CHECK(elapsed < 5s);
    const json result = parseStdout(outcome);
    CHECK(result["success"] == false);
    CHECK(result["timedOut"] == true);
    CHECK(result["terminatedBy"] == "cancelled");
    CHECK(result["error"]["message"].get<std::string>().find("timed out: --timeout 500.0 ms elapsed") !=
          std::string::npos);

    const auto human = runCli({"run", "--timeout", "0.3", "--demo-latency", "10000", "What is 6*7?"});
    CHECK(human.status == 1);
    CHECK(human.err.find("the run failed: cancelled: the run timed out") != std::string::npos);

    const auto inTime = runCli({"run", "--json", "--timeout", "30", "What is 6*7?"});
    CHECK(inTime.status == 0);
    CHECK(parseStdout(inTime)["timedOut"] == false);
}

TEST_CASE("the iteration-limit error names the CLI's flag", "[cli][run]") {
    const auto outcome = runCli({"run", "--max-iterations", "1", "What is 6*7?"});
    CHECK(outcome.status == 1);
    CHECK(outcome.err.find("raise the limit with --max-iterations") != std::string::npos);
    CHECK(outcome.err.find("withMaxIterations") == std::string::npos);
}

TEST_CASE("SIGHUP and SIGQUIT cancel the run like SIGTERM, with the result reported", "[cli][signal]") {
    const int number = GENERATE(SIGHUP, SIGQUIT);
    INFO("signal " << number);
    reagent::test::CliProcess process({"run", "--json", "--demo-latency", "10000", "What is 6*7?"});
    // Its start-up takes over a second under the sanitizers: the signal comes once it is handled.
    REQUIRE(process.waitUntilCatching(number, 20s));
    process.signal(number);
    const auto outcome = process.wait();
    CHECK(outcome.status == 1);
    CHECK(outcome.err.find("cancelling the run") != std::string::npos);
    const json result = parseStdout(outcome);
    CHECK(result["terminatedBy"] == "cancelled");
}

TEST_CASE("a turn cut off while streaming ends its line before the error", "[cli][trace]") {
    std::ostringstream out;
    reagent::cli::TracePrinter trace(out);
    trace(reagent::agent::RunStarted{"hi"});
    trace(reagent::agent::TextDelta{0, "Half an ans"});
    trace(reagent::agent::TextDelta{0, "wer \xe2\x82"});  // the stream breaks inside a character
    trace(reagent::agent::RunFinished{reagent::agent::TerminatedBy::provider_error, 1});
    CHECK(out.str() == "run: \"hi\"\nmodel turn 1: Half an answer \uFFFD\uFFFD\n");
}

TEST_CASE("chat answers one turn per line until its input ends or /exit", "[cli][chat]") {
    const auto chat = runCli({"chat", "--provider", "demo", "--quiet"},
                             std::string("What is 6*7?\n\n/reset\nWhat is 2+3?\n"));
    INFO(chat.err);
    REQUIRE(chat.status == 0);
    CHECK(chat.out.find("42") != std::string::npos);
    CHECK(chat.out.find("5") != std::string::npos);
    CHECK(chat.err.find("the conversation was reset") != std::string::npos);

    const auto stopped =
        runCli({"chat", "--provider", "demo", "--quiet"}, std::string("/exit\nWhat is 6*7?\n"));
    REQUIRE(stopped.status == 0);
    CHECK(stopped.out.find("42") == std::string::npos);

    const auto bad = runCli({"chat", "--provider", "nobody"}, std::string("hi\n"));
    CHECK(bad.status == 2);
}

TEST_CASE("chat: /context shows the last request against the window, --context-window gives it",
          "[cli][chat][context]") {
    const auto chat = runCli({"chat", "--provider", "demo", "--quiet", "--context-window", "100000"},
                             std::string("/context\nWhat is 6*7?\n/context\n"));
    INFO(chat.err);
    REQUIRE(chat.status == 0);
    CHECK(chat.err.find("(context: 0 tokens in the last request, of a window of 100000 (0%); 0 messages") !=
          std::string::npos);
    CHECK(chat.err.find("of a window of 100000 (1%); 7 messages in the conversation)") != std::string::npos);

    // Without a window, and none published for the demo model: it says how to give one.
    const auto unknown =
        runCli({"chat", "--provider", "demo", "--quiet"}, std::string("What is 6*7?\n/context\n"));
    REQUIRE(unknown.status == 0);
    CHECK(unknown.err.find("the model's window is not known: give it with --context-window") !=
          std::string::npos);

    // A window too small for the first request: the turn fails and is not kept.
    const auto tiny = runCli({"chat", "--provider", "demo", "--quiet", "--context-window", "10"},
                             std::string("What is 6*7?\n"));
    CHECK(tiny.status == 1);
    CHECK(tiny.err.find("past the context window of 10 tokens") != std::string::npos);
    CHECK(runCli({"chat", "--provider", "demo", "--context-window", "0"}, std::string("hi\n")).status == 2);
}

TEST_CASE("chat: a conversation past the threshold is compacted, /compact and /context report it",
          "[cli][chat][context][compaction]") {
    // The demo's first request is about 1,000 tokens; 5,600 less the reply's reserve of 4,096 leaves 1,504,
    // whose 80 % the fourth question passes.
    const auto chat = runCli({"chat", "--provider", "demo", "--context-window", "5600"},
                             std::string("What is 6*7?\nWhat is 2+2?\nWhat is 3*3?\nWhat is 5-1?\n/context\n"
                                         "/compact\n/context\n"));
    INFO(chat.err);
    REQUIRE(chat.status == 0);
    CHECK(chat.out.find("5-1 = 4") != std::string::npos);
    CHECK(chat.err.find("\u2702 context compacted (threshold): ") != std::string::npos);
    CHECK(chat.err.find(" messages by drop-oldest") != std::string::npos);
    CHECK(chat.err.find("; compacted ") != std::string::npos);
    CHECK(chat.err.find("(compacted: ") != std::string::npos);

    // An agent that never compacts says so.
    const auto none =
        runCli({"chat", "--provider", "demo", "--quiet", "--no-compaction"}, std::string("/compact\n"));
    CHECK(none.status == 0);
    CHECK(none.err.find("reagent: /compact: this agent compacts nothing") != std::string::npos);
}
