// Episodic memory across processes: one program logs a tool result, a second one recalls it.
#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

#include "temp_dir.hpp"

namespace {

struct Output {
    int status = -1;
    std::string text;
};

Output runProgram(const std::string& command) {
    Output out;
    FILE* pipe = ::popen(command.c_str(), "r");
    REQUIRE(pipe != nullptr);
    std::array<char, 4096> buffer{};
    while (std::fgets(buffer.data(), static_cast<int>(buffer.size()), pipe) != nullptr) {
        out.text += buffer.data();
    }
    out.status = ::pclose(pipe);
    return out;
}

}  // namespace

TEST_CASE("Episodic memory written by one process is recalled by a second", "[agent][memory][episodic]") {
    const reagent::test::TempDir dir;
    const std::string file = dir.file("memory.db");
    const std::string program = REAGENT_EPISODIC_PROCESS;

    const Output first = runProgram(program + " write " + file);
    CHECK(first.status == 0);
    CHECK(first.text == "the secret of Lyon is 4242\n");

    const Output second = runProgram(program + " recall " + file);
    CHECK(second.status == 0);
    CHECK(second.text.find("Episodic memory: 1 match, newest first\n#1 ") != std::string::npos);
    CHECK(second.text.find(" lookup: ") != std::string::npos);
    CHECK(second.text.find("the secret of Lyon is 4242") != std::string::npos);
}
